#!/usr/bin/env bash
# Install samebytes: the tools, the multicall binary and the manual pages.
#
#   bash install.sh [--prefix DIR] [--program-prefix P | --own-names]
#                   [--links] [--from DIR] [--uninstall]
#
# By default the tools are installed as sb-wc, sb-cat, sb-yes and sb-grep
# in ~/.local/bin (/usr/local/bin for root), beside `samebytes` itself,
# with their pages in DIR/share/man/man1: nothing the system already has
# is shadowed.  --own-names installs them as wc, cat, yes and grep, which
# shadows the system's tools wherever DIR/bin comes first in PATH: for
# people who want the drop-ins everywhere, and only when asked.
#   --program-prefix P  name the tools P-wc... as P gives (default "sb-")
#   --links             symbolic links to `samebytes` instead of the four
#                       tool binaries (one 2.7 MB file; about 0.1 ms more
#                       start-up per run)
#   --from DIR          install binaries already built in DIR instead of
#                       running `cargo build --release`
#   --uninstall         remove what the same options would install
set -euo pipefail

root=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" = 0 ]; then prefix=/usr/local; else prefix="$HOME/.local"; fi
program_prefix="sb-"
links=0
from=""
uninstall=0
usage() {
  echo "usage: bash install.sh [--prefix DIR] [--program-prefix P | --own-names] [--links] [--from DIR] [--uninstall]" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] || usage; prefix=$2; shift 2 ;;
    --program-prefix) [ $# -ge 2 ] || usage; program_prefix=$2; shift 2 ;;
    --own-names) program_prefix=""; shift ;;
    --links) links=1; shift ;;
    --from) [ $# -ge 2 ] || usage; from=$2; shift 2 ;;
    --uninstall) uninstall=1; shift ;;
    *) usage ;;
  esac
done
case "$program_prefix" in
  */*) echo "install.sh: a program prefix cannot contain '/'" >&2; exit 2 ;;
esac

tools="wc cat yes grep"
bindir="$prefix/bin"
mandir="$prefix/share/man/man1"

if [ "$uninstall" = 1 ]; then
  for t in $tools; do
    rm -f "$bindir/$program_prefix$t" "$mandir/$program_prefix$t.1"
  done
  rm -f "$bindir/samebytes" "$mandir/samebytes.1"
  echo "removed samebytes from $prefix"
  exit 0
fi

if [ -z "$from" ]; then
  (cd "$root" && cargo build --release --quiet -p samebytes --bins)
  from="$root/target/release"
fi
for b in samebytes $tools; do
  [ -x "$from/$b" ] || { echo "install.sh: $from/$b was not built" >&2; exit 1; }
done

mkdir -p "$bindir" "$mandir"
install -m 755 "$from/samebytes" "$bindir/samebytes"
"$from/samebytes" --man > "$mandir/samebytes.1"
for t in $tools; do
  name="$program_prefix$t"
  if [ "$links" = 1 ]; then
    ln -sf samebytes "$bindir/$name"
  else
    install -m 755 "$from/$t" "$bindir/$name"
  fi
  # The page names the command as installed (sb-wc, or wc).
  "$from/samebytes" "--man=$name" > "$mandir/$name.1"
done

echo "installed samebytes and $(for t in $tools; do printf '%s ' "$program_prefix$t"; done)into $bindir"
echo "manual pages in $mandir (man $program_prefix""wc)"
case ":$PATH:" in
  *":$bindir:"*) ;;
  *) echo "note: $bindir is not in PATH" ;;
esac
if [ -z "$program_prefix" ]; then
  for t in $tools; do
    found=$(command -v "$t" || true)
    if [ -n "$found" ] && [ "$found" = "$bindir/$t" ]; then
      echo "note: $t now runs $bindir/$t ahead of the system's own"
    fi
  done
fi
