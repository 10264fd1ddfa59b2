#!/usr/bin/env bash
# Install moto's DynamoDB server (the test suite's second engine) into a project-local
# virtualenv, target/ddb-venv (or $FACETEER_VENV), once. Prints what it does and "done".
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${FACETEER_VENV:-$root/target/ddb-venv}"
version="5.2.5"
spec="moto[server]==$version"

say() { echo "faceteer: $*" >&2; }

if [ -x "$venv/bin/python" ] &&
  "$venv/bin/python" -c "import sys, moto, moto.server; sys.exit(0 if moto.__version__ == '$version' else 1)" 2>/dev/null; then
  exit 0
fi

python="${PYTHON:-python3}"
if ! command -v "$python" >/dev/null 2>&1; then
  say "error: $python not found."
  say "  moto, the test suite's second DynamoDB engine, needs Python 3.9 or later with venv and pip"
  say "  (Debian/Ubuntu: apt install python3 python3-venv; macOS: brew install python)."
  say "  Set PYTHON=/path/to/python3 to use another interpreter, or run only the embedded engine's"
  say "  tests with: cargo test --workspace -- --skip ::moto"
  exit 127
fi
if ! "$python" -c "import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)"; then
  say "error: $("$python" --version 2>&1) is too old for moto; Python 3.9 or later is needed."
  exit 1
fi

say "installing $spec (the suite's second DynamoDB engine) into $venv, once; about a minute"
say "  [1/3] creating the virtualenv"
rm -rf "$venv"
if ! "$python" -m venv "$venv"; then
  say "error: '$python -m venv' failed; install the venv module (Debian/Ubuntu: apt install python3-venv)."
  exit 1
fi
say "  [2/3] downloading and installing $spec and its dependencies from PyPI"
"$venv/bin/python" -m pip install --disable-pip-version-check --progress-bar off "$spec" 2>&1 |
  grep --line-buffered -E '^(Collecting|Successfully installed|ERROR)' >&2 || true
say "  [3/3] checking the install"
if ! "$venv/bin/python" -c "import moto.server" 2>/dev/null; then
  say "error: $spec did not install; see pip's messages above."
  exit 1
fi
say "moto $version installed: done"
