#!/usr/bin/env bash
# Sweeps for the plots (bench/plot.py): throughput or time against one
# parameter, samebytes beside GNU (and the peer where there is one).
#
#   bash bench/sweep.sh [--runs N] [--only cat-buffers|yes-lines|grep-lines]
#
#   cat-buffers  cat --read-buffer-size=N --write-buffer-size=N, N from 512 B
#                to 16 MiB, 256 MiB of text: file → /dev/null, file → pipe,
#                pipe → pipe; plain (kernel copies, where the sizes are not
#                used) and -v (through memory, where they are); GNU cat
#                plain and -v beside them (its buffer is fixed: 128 KiB).
#                The seed's BUFSIZ table, as a curve.
#   yes-lines    yes with lines of 2 B to 256 KiB, 4 GiB into a pipe (pv),
#                beside GNU yes and uutils yes.
#   grep-lines   grep b on the seed's increasing-line input (every line one
#                byte longer than the one before, none matching) cut at a
#                longest line of 1 KiB to 64 KiB, beside GNU grep and rg.
#
# Writes hyperfine's JSON per point into bench/results/sweeps/ (committed:
# the plots are drawn from it).  Don't run it while anything else builds.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
data="$here/data"
out="$here/results/sweeps"
runs=5
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    *) echo "usage: bash bench/sweep.sh [--runs N] [--only cat-buffers|yes-lines|grep-lines]" >&2; exit 2 ;;
  esac
done
for tool in hyperfine pv rg; do
  command -v "$tool" >/dev/null || { echo "bench/sweep.sh: $tool is missing (bash bench/run.sh installs it)" >&2; exit 1; }
done
mkdir -p "$data" "$out"
(cd "$root" && cargo build --release --quiet -p samebytes --bins)
ours="$root/target/release"
uutils="$data/uutils/bin/coreutils"

# point FILE LOCALE OUTPUT CMD...: time the commands, keep hyperfine's JSON.
point() {
  local file=$1 locale=$2 output=$3
  shift 3
  LC_ALL=$locale hyperfine --style none --warmup 1 --runs "$runs" --output="$output" \
    --ignore-failure --export-json "$out/$file.json" "$@" >/dev/null 2>&1
  echo "  $file" >&2
}

sizes="512 1K 2K 4K 8K 16K 32K 64K 128K 256K 512K 1M 2M 4M 8M 16M"

if [ -z "$only" ] || [ "$only" = cat-buffers ]; then
  [ -f "$data/text.txt" ] || python3 "$here/gen_text.py" text $((1 << 30)) "$data/text.txt"
  F="$data/text-256M.txt"
  [ -f "$F" ] || head -c $((256 << 20)) "$data/text.txt" > "$F"
  cat "$F" > /dev/null
  echo "cat-buffers ($F):" >&2
  for flags in "" "-v"; do
    tag=${flags:+-v}
    tag=${tag:-plain}
    point "cat-gnu-$tag" C null \
      "cat $flags $F >/dev/null" "cat $flags $F | pv -q >/dev/null" "pv -q $F | cat $flags | pv -q >/dev/null"
    for n in $sizes; do
      c="$ours/cat $flags --read-buffer-size=$n --write-buffer-size=$n"
      point "cat-ours-$tag-$n" C null "$c $F >/dev/null" "$c $F | pv -q >/dev/null" "pv -q $F | $c | pv -q >/dev/null"
    done
  done
fi

if [ -z "$only" ] || [ "$only" = yes-lines ]; then
  echo "yes-lines:" >&2
  # A longer line would not fit one argv string (128 KiB with its NUL).
  for len in 2 4 16 64 256 1024 4096 16384 65536; do
    line=$(head -c $((len - 1)) /dev/zero | tr '\0' y)
    cmds=("$ours/yes $line | pv -q -S -s 4G >/dev/null" "yes $line | pv -q -S -s 4G >/dev/null")
    [ -x "$uutils" ] && cmds+=("$uutils yes $line | pv -q -S -s 4G >/dev/null")
    point "yes-$len" C null "${cmds[@]}"
  done
fi

if [ -z "$only" ] || [ "$only" = grep-lines ]; then
  echo "grep-lines:" >&2
  for longest in 1024 2048 4096 8192 16384 32768 65536; do
    P="$data/increasing-$longest.txt"
    [ -f "$P" ] || python3 -c 'import sys
n = int(sys.argv[1])
w = sys.stdout.buffer
for i in range(n):
    w.write(b"a" * i + b"\n")' "$longest" > "$P"
    cat "$P" > /dev/null
    # Output to a pipe: GNU grep stops early when stdout is /dev/null.
    point "grep-$longest" C pipe "$ours/grep b $P" "grep b $P" "rg b $P"
  done
fi
