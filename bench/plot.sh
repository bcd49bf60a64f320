#!/usr/bin/env bash
# Draw the SVG charts BENCHMARKS.md embeds (bench/plots/) from the
# measurements in bench/results/ (bench/run.sh and bench/sweep.sh write
# them).  matplotlib comes from PyPI into a virtual environment under
# bench/data (never committed).
#
#   bash bench/plot.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv="$here/data/venv"
if ! "$venv/bin/python" -c 'import matplotlib' 2>/dev/null; then
  echo "installing matplotlib into $venv ..." >&2
  python3 -m venv "$venv" 2>/dev/null || {
    # Debian's python3 keeps venv in a package of its own.
    apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
    python3 -m venv "$venv"
  }
  "$venv/bin/pip" install --quiet 'matplotlib>=3.7,<4'
fi
"$venv/bin/python" "$here/plot.py" "$here/results" "$here/plots"
