#!/usr/bin/env bash
# Set up sitewise on a Debian machine with Python 3.11: Debian's Chromium (for the collector) and a
# virtual environment in .venv with sitewise installed editable. Safe to run again: it skips what is done.
# Usage: scripts/setup.sh [EXTRAS]   e.g. scripts/setup.sh test   or   scripts/setup.sh test,bench
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if [ ! -x /usr/lib/chromium/chromium ] || [ ! -x /usr/lib/chromium/chromium-headless-shell ]; then
  echo "setup: installing Debian's chromium and its headless shell (the collector renders pages with it)"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium chromium-headless-shell >/dev/null
fi

python=$(command -v python3.11 || command -v python3)
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv with $python"
  "$python" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
spec="."
[ -n "$extras" ] && spec=".[${extras}]"
echo "setup: pip install -e '$spec' (within constraints.txt)"
# the pinned versions: the shipped model's trees and the benchmarks' figures depend on them
.venv/bin/python -m pip install -q -c constraints.txt -e "$spec"
echo "setup: done (.venv/bin/sitewise)"
