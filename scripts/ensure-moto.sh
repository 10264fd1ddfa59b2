#!/usr/bin/env bash
# Install moto's DynamoDB server into a project-local virtualenv (target/ddb-venv), once.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${FACETEER_VENV:-$root/target/ddb-venv}"
spec="moto[server]==5.2.5"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import moto.server, sys; import moto; sys.exit(0 if moto.__version__ == '5.2.5' else 1)" 2>/dev/null; then
  exit 0
fi
echo "faceteer: installing $spec into $venv" >&2
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$spec"
