#!/usr/bin/env bash
# Install the IAM and CloudFormation linters (parliament, cfn-lint) into a project-local
# virtualenv, target/lint-venv (or $FACETEER_LINT_VENV), once, and print its path on stdout.
# Progress goes to stderr. Lint policy documents with:
#   "$(scripts/ensure-lint.sh)/bin/python" scripts/lint_iam.py DIR
# and templates with:
#   "$(scripts/ensure-lint.sh)/bin/cfn-lint" template.json
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${FACETEER_LINT_VENV:-$root/target/lint-venv}"
parliament="1.6.4"
cfn_lint="1.58.0"
specs=("parliament==$parliament" "cfn-lint==$cfn_lint")

say() { echo "faceteer: $*" >&2; }

installed() {
  [ -x "$venv/bin/python" ] && "$venv/bin/python" - "$parliament" "$cfn_lint" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
import parliament, cfnlint  # noqa: F401  (both import)
sys.exit(0 if (version("parliament"), version("cfn-lint")) == (sys.argv[1], sys.argv[2]) else 1)
PY
}

if installed; then
  echo "$venv"
  exit 0
fi

python="${PYTHON:-python3}"
if ! command -v "$python" >/dev/null 2>&1; then
  say "error: $python not found."
  say "  the IAM lint needs Python 3.9 or later with venv and pip"
  say "  (Debian/Ubuntu: apt install python3 python3-venv; macOS: brew install python)."
  say "  Set PYTHON=/path/to/python3 to use another interpreter."
  exit 127
fi
if ! "$python" -c "import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)"; then
  say "error: $("$python" --version 2>&1) is too old for cfn-lint; Python 3.9 or later is needed."
  exit 1
fi

say "installing ${specs[*]} (the IAM and CloudFormation linters) into $venv, once"
say "  [1/3] creating the virtualenv"
rm -rf "$venv"
if ! "$python" -m venv "$venv"; then
  say "error: '$python -m venv' failed; install the venv module (Debian/Ubuntu: apt install python3-venv)."
  exit 1
fi
say "  [2/3] downloading and installing ${specs[*]} and their dependencies from PyPI"
"$venv/bin/python" -m pip install --disable-pip-version-check --progress-bar off "${specs[@]}" 2>&1 |
  grep --line-buffered -E '^(Collecting|Successfully installed|ERROR)' >&2 || true
say "  [3/3] checking the install"
if ! installed; then
  say "error: ${specs[*]} did not install; see pip's messages above."
  exit 1
fi
say "parliament $parliament and cfn-lint $cfn_lint installed: done"
echo "$venv"
