#!/usr/bin/env bash
# Provision the MCP Python SDK 2.x (PyPI) the protocol-era tests drive as a real client of both
# eras, in a venv of its own beside MemPalace's (it shares none of MemPalace's pins), under target/.
# Usage: tests/testbed/mcp_sdk.sh   (idempotent, safe to run concurrently; prints the venv's python)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
version=2.3.0
tb="${MPT_TESTBED:-$root/target/testbed}"
venv="$tb/venv-mcp-$version"
mkdir -p "$tb"
log() { printf 'mcp-sdk: %s\n' "$*" >&2; }
exec 9>"$tb/mcp-sdk.lock"
flock 9
if [ ! -f "$venv/.complete" ]; then
  log "creating a venv with mcp==$version (PyPI; once)"
  start=$(date +%s)
  rm -rf "$venv"
  python3 -m venv "$venv"
  if ! "$venv/bin/pip" install -q --disable-pip-version-check "mcp==$version"; then
    log "pip install mcp==$version failed: is PyPI ($("$venv/bin/pip" config get global.index-url 2>/dev/null || echo https://pypi.org/simple)) reachable? The protocol-era tests cannot run without it"
    exit 1
  fi
  "$venv/bin/python" -c 'import mcp, mcp_types.version as v; assert "2026-07-28" in v.MODERN_PROTOCOL_VERSIONS'
  touch "$venv/.complete"
  log "ready in $(( $(date +%s) - start ))s"
fi
echo "$venv/bin/python"
