#!/usr/bin/env bash
# Side-by-side benchmarks: samebytes against GNU coreutils and the best peer
# (uutils), in one run, reported as t(GNU) / t(ours).
#
#   bash bench/run.sh [--runs N] [--only wc|cat|yes|grep|grep-tree] [--markdown FILE]
#
# Installs hyperfine, pv and ripgrep from the distribution if they are
# missing, and uutils (`cargo install coreutils`) into bench/data/uutils.
# The peer is uutils for wc, cat and yes, and ripgrep for grep.  grep runs
# with hyperfine's --output=pipe: GNU grep stops at the first match when
# its stdout is /dev/null, even with -c.  The seed's pathological input
# (lines of 0 to 65535 bytes, about 2 GiB) is generated for the grep rows.  Generates a
# 1 GiB English-like text file, a 256 MiB UTF-8-heavy file and 1 GiB of the
# machine's own Rust and Markdown sources (bench/gen_corpus.py) in bench/data
# (never committed).  Don't run it while anything else is building: on two
# cores both numbers would lie.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
data="$here/data"
runs=10
markdown=""
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --markdown) markdown=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    *) echo "usage: bash bench/run.sh [--runs N] [--only TOOL] [--markdown FILE]" >&2; exit 2 ;;
  esac
done

need_pkg() {
  if ! command -v "$1" >/dev/null 2>&1; then
    echo "installing $2 ..." >&2
    if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq "$2" >/dev/null
    else sudo apt-get update -qq && sudo apt-get install -y -qq "$2" >/dev/null; fi
  fi
}
need_pkg hyperfine hyperfine
need_pkg pv pv
need_pkg python3 python3
need_pkg rg ripgrep

mkdir -p "$data"
(cd "$root" && cargo build --release --quiet -p samebytes --bins)
ours="$root/target/release"

uutils="$data/uutils/bin/coreutils"
# grep's peer is ripgrep: uutils is not needed for it alone.
if [ "$only" != grep ] && [ "$only" != grep-tree ] && ! "$uutils" --list 2>/dev/null | grep -qx yes; then
  echo "installing uutils coreutils (wc, cat, yes) into $data/uutils ..." >&2
  cargo install --quiet coreutils --no-default-features --features wc,cat,yes --root "$data/uutils" >&2 || true
fi
have_uutils=0
[ -x "$uutils" ] && have_uutils=1

[ -f "$data/text.txt" ] || python3 "$here/gen_text.py" text $((1 << 30)) "$data/text.txt"
[ -f "$data/utf8.txt" ] || python3 "$here/gen_text.py" utf8 $((256 << 20)) "$data/utf8.txt"
# Real text: the machine's own Rust and Markdown sources (cargo registry),
# 1 GiB.  Built from whatever crates are there, so never committed.
[ -f "$data/source.txt" ] || python3 "$here/gen_corpus.py" source $((1 << 30)) "$data/source.txt"
[ -f "$data/binary.txt" ] || python3 "$here/gen_corpus.py" binary $((1 << 30)) "$data/binary.txt"
echo "one short line" > "$data/short.txt"
if [ ! -d "$data/small" ]; then
  # 1000 files of 100 bytes to 8 KB, cut from the text.
  python3 - "$data/text.txt" "$data/small" <<'PY'
import os, random, sys
words = open(sys.argv[1], "rb").read(2_000_000)
os.makedirs(sys.argv[2])
r = random.Random(5)
for i in range(1000):
    n = r.randint(100, 8000)
    s = r.randint(0, len(words) - n)
    open(os.path.join(sys.argv[2], "f%04d.txt" % i), "wb").write(words[s:s + n])
PY
fi
cat "$data/text.txt" "$data/utf8.txt" "$data/source.txt" > /dev/null   # warm the page cache

results=$(mktemp)
trap 'rm -f "$results"' EXIT
# Each section's rows as JSON lines, for bench/plot.py (committed).
rdir="$here/results"
mkdir -p "$rdir"
section=""
start_section() { section=$1; : > "$rdir/ratios-$section.jsonl"; }

# Where hyperfine sends the commands' stdout (grep sets pipe), and whether
# a nonzero status is expected (grep exits 1 when nothing matches).
hf_output=null
hf_ignore=()

# bench NAME LOCALE RUNS ours-cmd gnu-cmd peer-cmd [prepare-cmd]
bench() {
  local name=$1 locale=$2 runs_here=$3 ours_cmd=$4 gnu_cmd=$5 uu_cmd=$6 prepare=${7:-true}
  local json
  json=$(mktemp)
  local cmds=("$ours_cmd" "$gnu_cmd")
  [ "$have_uutils" = 1 ] && cmds+=("$uu_cmd")
  LC_ALL=$locale hyperfine --style none --warmup 2 --runs "$runs_here" --export-json "$json" \
    --output="$hf_output" "${hf_ignore[@]}" --prepare "$prepare" "${cmds[@]}" >/dev/null 2>&1
  python3 - "$json" "$name" "$rdir/ratios-$section.jsonl" >> "$results" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
ours, gnu = r[0]["mean"], r[1]["mean"]
uu = r[2]["mean"] if len(r) > 2 else None
def fmt(t): return f"{t*1000:.1f} ms" if t < 1 else f"{t:.2f} s"
print("|".join([sys.argv[2], fmt(ours), fmt(gnu), f"{gnu/ours:.2f}",
                fmt(uu) if uu else "n/a", f"{uu/ours:.2f}" if uu else "n/a"]))
# The same row for bench/plot.py: mean seconds of each.
with open(sys.argv[3], "a") as f:
    f.write(json.dumps({"workload": sys.argv[2], "ours": ours, "gnu": gnu, "peer": uu}) + "\n")
PY
  rm -f "$json"
}

T="$data/text.txt"
U="$data/utf8.txt"
R="$data/source.txt"
BIN="$data/binary.txt"
S="$data/short.txt"
uu="$uutils wc"

if [ -z "$only" ] || [ "$only" = wc ]; then
  start_section wc
  bench "wc -l, file" C "$runs" "$ours/wc -l $T" "wc -l $T" "$uu -l $T"
  bench "wc, C.UTF-8" C.UTF-8 "$runs" "$ours/wc $T" "wc $T" "$uu $T"
  bench "wc, C" C "$runs" "$ours/wc $T" "wc $T" "$uu $T"
  bench "wc -m, UTF-8-heavy" C.UTF-8 "$runs" "$ours/wc -m $U" "wc -m $U" "$uu -m $U"
  bench "wc, UTF-8-heavy" C.UTF-8 "$runs" "$ours/wc $U" "wc $U" "$uu $U"
  # Real mixed text in both locales: the UTF-8 rows should cost little more
  # than the C ones.  In C, -m is the byte count (from fstat); its floor in
  # UTF-8 is reading the bytes, as wc -l does.
  for loc in C C.UTF-8; do
    bench "wc, sources, $loc" $loc "$runs" "$ours/wc $R" "wc $R" "$uu $R"
    bench "wc -w, sources, $loc" $loc "$runs" "$ours/wc -w $R" "wc -w $R" "$uu -w $R"
    bench "wc -m, sources, $loc" $loc "$runs" "$ours/wc -m $R" "wc -m $R" "$uu -m $R"
  done
  bench "wc -l, sources, C (the read floor)" C "$runs" "$ours/wc -l $R" "wc -l $R" "$uu -l $R"
  bench "wc -L, C.UTF-8" C.UTF-8 "$runs" "$ours/wc -L $T" "wc -L $T" "$uu -L $T"
  bench "wc -L, C" C "$runs" "$ours/wc -L $T" "wc -L $T" "$uu -L $T"
  bench "wc -w, UTF-8-heavy" C.UTF-8 "$runs" "$ours/wc -w $U" "wc -w $U" "$uu -w $U"
  bench "wc -c, pipe (pv)" C "$runs" "pv -q $T | $ours/wc -c" "pv -q $T | wc -c" "pv -q $T | $uu -c"
  bench "wc -l, pipe (pv)" C "$runs" "pv -q $T | $ours/wc -l" "pv -q $T | wc -l" "pv -q $T | $uu -l"
  bench "wc, one short line" C.UTF-8 $((runs * 30)) "$ours/wc $S" "wc $S" "$uu $S"
  bench "wc, one short line, C" C $((runs * 30)) "$ours/wc $S" "wc $S" "$uu $S"
  # Peak RSS of each workload (KiB), ours only.
  rss() { local loc=$1; shift; LC_ALL=$loc /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
  pipe_rss=$(pv -q "$T" | LC_ALL=C /usr/bin/time -f %M "$ours/wc" -l 2>&1 >/dev/null | tail -1)
  echo "rss|wc -l $(rss C "$ours/wc" -l "$T")|wc $(rss C.UTF-8 "$ours/wc" "$T")|wc -m $(rss C.UTF-8 "$ours/wc" -m "$U")|wc -L $(rss C.UTF-8 "$ours/wc" -L "$T")|wc -l pipe $pipe_rss|wc -c pipe $(pv -q "$T" | LC_ALL=C /usr/bin/time -f %M "$ours/wc" -c 2>&1 >/dev/null | tail -1)" >> "$results"
fi

if [ -z "$only" ] || [ "$only" = cat ]; then
  start_section cat
  uc="$uutils cat"
  SM="$data/small/*"
  bench "cat, file → pipe (pv)" C "$runs" "$ours/cat $T | pv -q >/dev/null" "cat $T | pv -q >/dev/null" "$uc $T | pv -q >/dev/null"
  bench "cat, file → read() consumer (pv -C)" C "$runs" "$ours/cat $T | pv -q -C >/dev/null" "cat $T | pv -q -C >/dev/null" "$uc $T | pv -q -C >/dev/null"
  bench "cat, file → /dev/null" C "$runs" "$ours/cat $T >/dev/null" "cat $T >/dev/null" "$uc $T >/dev/null"
  bench "cat -n, 1 GiB" C "$runs" "$ours/cat -n $T >/dev/null" "cat -n $T >/dev/null" "$uc -n $T >/dev/null"
  bench "cat -n, 1 GiB → pipe (pv)" C "$runs" "$ours/cat -n $T | pv -q >/dev/null" "cat -n $T | pv -q >/dev/null" "$uc -n $T | pv -q >/dev/null"
  bench "cat -A, UTF-8-heavy" C.UTF-8 "$runs" "$ours/cat -A $U >/dev/null" "cat -A $U >/dev/null" "$uc -A $U >/dev/null"
  bench "cat, file → file (256 MiB)" C "$runs" "$ours/cat $U >$data/out.bin" "cat $U >$data/out.bin" "$uc $U >$data/out.bin"
  bench "cat, 1000 small files → /dev/null" C $((runs * 3)) "$ours/cat $SM >/dev/null" "cat $SM >/dev/null" "$uc $SM >/dev/null"
  bench "cat, 1000 small files → pipe" C $((runs * 3)) "$ours/cat $SM | cat >/dev/null" "cat $SM | cat >/dev/null" "$uc $SM | cat >/dev/null"
  bench "cat -n, 1000 small files" C $((runs * 3)) "$ours/cat -n $SM >/dev/null" "cat -n $SM >/dev/null" "$uc -n $SM >/dev/null"
  rm -f "$data/out.bin"
  rss() { local loc=$1; shift; LC_ALL=$loc /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
  rssfile=$(mktemp)
  /usr/bin/time -f %M -o "$rssfile" "$ours/cat" "$T" | pv -q >/dev/null
  echo "rss|cat→pipe $(tail -1 "$rssfile")|cat -n $(rss C "$ours/cat" -n "$T")|cat -A $(rss C.UTF-8 "$ours/cat" -A "$U")|cat small files $(rss C "$ours/cat" $SM)" >> "$results"
fi

if [ -z "$only" ] || [ "$only" = yes ]; then
  start_section yes
  uy="$uutils yes"
  L500=$(printf '%0499d' 0)
  # A stream's ratio is throughput(ours) / throughput(GNU): the same bytes,
  # so t(GNU) / t(ours).
  bench "yes → pv -S -s 8G" C "$runs" "$ours/yes | pv -q -S -s 8G >/dev/null" "yes | pv -q -S -s 8G >/dev/null" "$uy | pv -q -S -s 8G >/dev/null"
  bench "yes, 500-byte line → pv -S -s 8G" C "$runs" "$ours/yes $L500 | pv -q -S -s 8G >/dev/null" "yes $L500 | pv -q -S -s 8G >/dev/null" "$uy $L500 | pv -q -S -s 8G >/dev/null"
  # A regular file: 1 GiB, ended by the file-size limit (EFBIG, with
  # SIGXFSZ ignored); the file is removed before each run.
  OUT="$data/yes.out"
  to_file() { echo "ulimit -f 1048576; trap '' XFSZ; $1 >$OUT 2>/dev/null; true"; }
  bench "yes → regular file (1 GiB)" C "$runs" "bash -c \"$(to_file "$ours/yes")\"" "bash -c \"$(to_file yes)\"" "bash -c \"$(to_file "$uy")\"" "rm -f $OUT"
  rm -f "$OUT"
  bench "yes → head -1 (start-up)" C $((runs * 30)) "$ours/yes | head -1" "yes | head -1" "$uy | head -1"
  rssfile=$(mktemp)
  # head closes the pipe, so yes dies of SIGPIPE: not a failure here.
  /usr/bin/time -f %M -o "$rssfile" "$ours/yes" | head -c 4G >/dev/null || true
  short_rss=$(tail -1 "$rssfile")
  # About 2 MiB of operands (15 of 128 KiB - 1, what argv allows): the limit is 8 MiB plus one
  # copy of the line.
  long=$(head -c 131071 /dev/zero | tr '\0' x)
  /usr/bin/time -f %M -o "$rssfile" "$ours/yes" $(for i in $(seq 15); do echo "$long"; done) | head -c 4G >/dev/null || true
  echo "rss|yes → head -c 4G: $short_rss|yes with a 1.9 MiB line: $(tail -1 "$rssfile")" >> "$results"
  rm -f "$rssfile"
fi

if [ -z "$only" ] || [ "$only" = grep ]; then
  start_section grep
  have_uutils=1   # the peer column is ripgrep here
  hf_output=pipe
  hf_ignore=(--ignore-failure)
  P="$data/pathological.txt"
  [ -f "$P" ] || python3 -c 'import sys
w = sys.stdout.buffer
for i in range(65536):
    w.write(b"a" * i + b"\n")' > "$P"
  cat "$P" > /dev/null
  g="$ours/grep"
  bench "grep literal -c" C "$runs" "$g -c sentence $T" "grep -c sentence $T" "rg -c sentence $T"
  bench "grep literal, printing lines" C "$runs" "$g sentence $T" "grep sentence $T" "rg sentence $T"
  bench "grep -n literal" C "$runs" "$g -n sentence $T" "grep -n sentence $T" "rg -n sentence $T"
  bench "grep -i literal -c, C.UTF-8" C.UTF-8 "$runs" "$g -ci sentence $T" "grep -ci sentence $T" "rg -ci sentence $T"
  bench "grep -E regex with a literal -c" C "$runs" "$g -cE 'sent[a-z]+ce' $T" "grep -cE 'sent[a-z]+ce' $T" "rg -c 'sent[a-z]+ce' $T"
  bench "grep -P literal -c, C.UTF-8" C.UTF-8 "$runs" "$g -cP sentence $T" "grep -cP sentence $T" "rg -cP sentence $T"
  bench "grep -P regex with a leading literal -c, C.UTF-8" C.UTF-8 "$runs" "$g -cP 'sent\\w+ce' $T" "grep -cP 'sent\\w+ce' $T" "rg -cP 'sent\\w+ce' $T"
  bench "grep -P regex, no leading literal -c, C.UTF-8" C.UTF-8 "$runs" "$g -cP 'se?ntence' $T" "grep -cP 'se?ntence' $T" "rg -cP 'se?ntence' $T"
  bench "grep -P regex, no literal at all -c, C.UTF-8" C.UTF-8 "$runs" "$g -cP '\\b[a-z]{8}\\b' $T" "grep -cP '\\b[a-z]{8}\\b' $T" "rg -cP '\\b[a-z]{8}\\b' $T"
  bench "grep back-reference -c" C "$runs" "$g -c '\\(s\\)entence \\1' $T" "grep -c '\\(s\\)entence \\1' $T" "rg -cP '(s)entence \\1' $T"
  bench "grep back-reference after .* -c" C "$runs" "$g -c '\\(sen\\)tence.*\\1' $T" "grep -c '\\(sen\\)tence.*\\1' $T" "rg -cP '(sen)tence.*\\1' $T"
  bench "grep -v literal, printing lines" C "$runs" "$g -v sentence $T" "grep -v sentence $T" "rg -v sentence $T"
  bench "grep literal -c, input from a pipe (pv)" C "$runs" "pv -q $T | $g -c sentence" "pv -q $T | grep -c sentence" "pv -q $T | rg -c sentence"
  bench "grep, pathological long lines (2 GiB)" C 3 "$g b $P" "grep b $P" "rg b $P"
  bench "grep, pathological long lines from a pipe" C 3 "pv -q $P | $g b" "pv -q $P | grep b" "pv -q $P | rg b"
  # Real text: the machine's Rust and Markdown sources (1 GiB, C.UTF-8).
  # `Result` selects 260 thousand of its 32 million lines.
  rx="'pub fn [a-z_]+\\('"
  bench "grep literal -c, sources" C.UTF-8 "$runs" "$g -c Result $R" "grep -c Result $R" "rg -c Result $R"
  bench "grep literal, printing lines, sources" C.UTF-8 "$runs" "$g Result $R" "grep Result $R" "rg Result $R"
  bench "grep -n literal, sources" C.UTF-8 "$runs" "$g -n Result $R" "grep -n Result $R" "rg -n Result $R"
  bench "grep -i literal -c, sources" C.UTF-8 "$runs" "$g -ci result $R" "grep -ci result $R" "rg -ci result $R"
  bench "grep -E regex with a literal -c, sources" C.UTF-8 "$runs" "$g -cE $rx $R" "grep -cE $rx $R" "rg -c $rx $R"
  bench "grep -v literal, printing lines, sources" C.UTF-8 "$runs" "$g -v Result $R" "grep -v Result $R" "rg -v Result $R"
  bench "grep literal -c, sources from a pipe (pv)" C.UTF-8 "$runs" "pv -q $R | $g -c Result" "pv -q $R | grep -c Result" "pv -q $R | rg -c Result"
  # Real text with a stray NUL at 10 MiB and encoding errors after it
  # (bench/gen_corpus.py binary): each row beside the same search with -a.
  for o in -c -l -q "-v -c" "-i -c"; do
    # -l and -q stop at the first match, a few milliseconds in: enough
    # runs that start-up noise averages out.
    n=$runs
    case $o in -l|-q) n=$((runs < 50 ? 50 : runs)) ;; esac
    bench "grep $o, file GNU calls binary, C.UTF-8" C.UTF-8 "$n" "$g $o 'fn main' $BIN" "grep $o 'fn main' $BIN" "rg $o 'fn main' $BIN"
    bench "grep -a $o, the same file as text, C.UTF-8" C.UTF-8 "$n" "$g -a $o 'fn main' $BIN" "grep -a $o 'fn main' $BIN" "rg -a $o 'fn main' $BIN"
  done
  rss() { local loc=$1; shift; LC_ALL=$loc /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
  rssfile=$(mktemp)
  pv -q "$P" | /usr/bin/time -f %M -o "$rssfile" "$g" b >/dev/null || true
  echo "rss|grep -c $(rss C "$g" -c sentence "$T")|grep -n $(rss C "$g" -n sentence "$T")|grep pathological $(rss C "$g" b "$P")|grep pathological from a pipe $(tail -1 "$rssfile")" >> "$results"
  rm -f "$rssfile"
fi

if [ -z "$only" ] || [ "$only" = grep-tree ]; then
  start_section grep-tree
  have_uutils=1   # the peer column is ripgrep here
  hf_output=pipe
  hf_ignore=(-i)
  # A real tree: a copy of the machine's cargo registry sources (tens of
  # thousands of files), never committed.  ripgrep searches exactly the
  # same files (-uuu: no ignore files, hidden files, binary files) on
  # every core; its -c lists files without a match too (--include-zero),
  # as GNU's does.
  TR="$data/tree"
  if [ ! -d "$TR" ]; then
    mkdir -p "$TR"
    cp -r "${CARGO_HOME:-$HOME/.cargo}/registry/src" "$TR/src"
  fi
  rustc -O -o "$data/read_floor" "$here/read_floor.rs"
  find "$TR" -type f -print0 | xargs -0 cat > /dev/null   # warm the page cache
  g="$ours/grep"
  rg="rg -uuu"
  rx="'pub fn [a-z_]+\\('"
  bench "grep -r literal, printing lines, tree" C.UTF-8 "$runs" "$g -r Result $TR" "grep -r Result $TR" "$rg Result $TR"
  bench "grep -ri literal, tree" C.UTF-8 "$runs" "$g -ri result $TR" "grep -ri result $TR" "$rg -i result $TR"
  bench "grep -rE regex with a literal, tree" C.UTF-8 "$runs" "$g -rE $rx $TR" "grep -rE $rx $TR" "$rg $rx $TR"
  bench "grep -rc literal, tree" C.UTF-8 "$runs" "$g -rc Result $TR" "grep -rc Result $TR" "$rg -c --include-zero Result $TR"
  bench "grep -rl literal, tree" C.UTF-8 "$runs" "$g -rl Result $TR" "grep -rl Result $TR" "$rg -l Result $TR"
  bench "grep -r, no match, tree" C.UTF-8 "$runs" "$g -r zqxjkv $TR" "grep -r zqxjkv $TR" "$rg zqxjkv $TR"
  # The floor: list the tree and read every file on every core, no search.
  bench "read every file of the tree (the floor), tree" C.UTF-8 "$runs" "$data/read_floor $TR $(nproc)" "grep -r zqxjkv $TR" "$rg zqxjkv $TR"
  rss() { local loc=$1; shift; LC_ALL=$loc /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
  echo "rss|grep -r $(rss C.UTF-8 "$g" -r Result "$TR")|grep -rc $(rss C.UTF-8 "$g" -rc Result "$TR")|grep -ri $(rss C.UTF-8 "$g" -ri result "$TR")" >> "$results"
fi

table=$(python3 - "$results" <<'PY'
import sys
rows = [l.rstrip("\n").split("|") for l in open(sys.argv[1]) if l.strip()]
out = ["| workload | samebytes | GNU | t(GNU)/t(ours) | peer (uutils; rg for grep) | t(peer)/t(ours) |",
       "|---|---:|---:|---:|---:|---:|"]
rss = []
for r in rows:
    if r[0] == "rss":
        rss += r[1:]
        continue
    out.append("| " + " | ".join(r) + " |")
if rss:
    out.append("")
    out.append("Peak RSS of samebytes (KiB): " + ", ".join(rss))
print("\n".join(out))
PY
)
echo "$table"
if [ -n "$markdown" ]; then
  {
    echo "Command: \`bash bench/run.sh --runs $runs${only:+ --only $only}\`"
    echo "Date: $(date -u +%Y-%m-%d), $(nproc) cores, $(uname -r), GNU coreutils $(wc --version | head -1 | awk '{print $NF}'), GNU grep $(grep --version | head -1 | awk '{print $NF}'), $(rg --version | head -1)"
    echo
    echo "$table"
  } > "$markdown"
fi
