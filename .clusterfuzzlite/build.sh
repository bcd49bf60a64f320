#!/bin/bash -eu
# Build every cargo-fuzz target for ClusterFuzzLite / OSS-Fuzz and put
# what the runners expect in $OUT, for each target T:
#   $OUT/T                 the fuzzer (libFuzzer, AddressSanitizer)
#   $OUT/T_seed_corpus.zip the committed corpus, fuzz/corpus/T
#   $OUT/T.dict            its dictionary, fuzz/dict/T.dict
#   $OUT/T.options         libFuzzer options: the dictionary, the input
#                          length the corpora are made for, no leak check
# The images set $SRC and $OUT; `.ci/run` runs this script outside them
# with SAMEBYTES_SRC pointing at the checkout, to check what lands in $OUT.
cd "${SAMEBYTES_SRC:-$SRC/samebytes}"

# Release code with debug assertions and overflow checks, as the fuzz
# smoke and `cargo fuzz run` build it.
cargo fuzz build -O --debug-assertions

triple=$(rustc -vV | sed -n 's/^host: //p')
built="${CARGO_TARGET_DIR:-fuzz/target}/$triple/release"
for target in $(cargo fuzz list); do
  cp "$built/$target" "$OUT/$target"
  rm -f "$OUT/${target}_seed_corpus.zip"
  (cd "fuzz/corpus/$target" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
  cp "fuzz/dict/$target.dict" "$OUT/$target.dict"
  # LeakSanitizer is off: the search threads' thread-local destructors
  # read as a 32-byte leak at exit (see .ci/run's fuzz smoke).
  printf '[libfuzzer]\ndict = %s.dict\nmax_len = 8192\ndetect_leaks = 0\n' "$target" \
    > "$OUT/$target.options"
done
