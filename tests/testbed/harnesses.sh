#!/usr/bin/env bash
# Provision the real harnesses the integration tests drive (opencode, pi, the MCP Inspector CLI,
# Claude Code, Codex) from the npm registry, at the versions package-lock.json pins, under target/.
# `modern` installs the second set instead: the Inspector's v2 line and the Node.js 22 it runs on
# (tests/harnesses/modern/), apart, so the first set keeps running on the machine's Node.
# Usage: tests/testbed/harnesses.sh [modern]   (idempotent, safe to run concurrently; prints the install root)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tb=${MPT_TESTBED:-$root/target/testbed}
case ${1:-} in
  "") src="$root/tests/harnesses" dest="$tb/harnesses" ;;
  modern) src="$root/tests/harnesses/modern" dest="$tb/harnesses-modern" ;;
  *) printf 'harnesses: unknown set %s (none, or modern)\n' "$1" >&2; exit 2 ;;
esac
lock="$src/package-lock.json"
mkdir -p "$tb"

log() { printf 'harnesses: %s\n' "$*" >&2; }
need() {
  command -v "$1" >/dev/null || { log "$1 is missing: the harness tests need Node.js 20 with npm (Debian: apt-get install nodejs npm)"; exit 1; }
}
need node
need npm
need flock
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  log "Node.js $(node --version) is too old: the pinned harnesses need Node.js 20 or newer"
  exit 1
fi

# One installer at a time: the test binary runs its tests in parallel and each may ask.
exec 9>"$tb/harnesses.lock"
flock 9

want=$(sha256sum "$lock" | cut -d' ' -f1)
if [ "$(cat "$dest/.complete" 2>/dev/null)" = "$want" ]; then
  log "cached: $dest"
else
  log "installing the pinned harnesses from the npm registry (once; about a minute)"
  start=$(date +%s)
  rm -rf "$dest"
  mkdir -p "$dest"
  cp "$src/package.json" "$lock" "$dest/"
  # `npm install`, not `npm ci`: npm leaves opencode's per-platform binaries out of the lockfile and
  # `npm ci` then refuses it; install still takes every version the lockfile pins.
  if ! (cd "$dest" && npm install --no-audit --no-fund --loglevel=error >&2); then
    log "npm install failed in $dest: is the npm registry ($(npm config get registry)) reachable? The harness tests cannot run without it"
    exit 1
  fi
  echo "$want" >"$dest/.complete"
  log "ready in $(( $(date +%s) - start ))s"
fi
echo "$dest"
