#!/usr/bin/env bash
# Tests `tempo lsp` against a real third-party LSP client (pytest-lsp). Needs python3 with venv
# and pip, and PyPI; makes its own virtual environment under target/ and builds the binary.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=target/lsp-client-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r tests/lsp_client/requirements.txt
cargo build --quiet --bin tempo
# The binary cargo just built, wherever CARGO_TARGET_DIR puts it.
export TEMPO_BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/tempo"
exec "$venv/bin/python" -m pytest -c tests/lsp_client/pytest.ini tests/lsp_client "$@"
