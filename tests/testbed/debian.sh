#!/usr/bin/env bash
# Installs Debian packages the tests need, only those whose program is missing (apt-get, as root
# or through sudo). Each argument is PROGRAM=PACKAGE: a command name found on PATH, or an
# absolute path that must be executable. Called by sshd.sh and tmux.sh; idempotent.
# Usage: tests/testbed/debian.sh LABEL PROGRAM=PACKAGE...
set -euo pipefail
label=$1
shift
log() { printf '%s: %s\n' "$label" "$*" >&2; }
present() { case $1 in /*) [ -x "$1" ] ;; *) command -v "$1" >/dev/null 2>&1 ;; esac; }
missing=()
programs=()
for pair in "$@"; do
  program=${pair%%=*}
  programs+=("$program")
  present "$program" || missing+=("${pair#*=}")
done
if [ ${#missing[@]} -eq 0 ]; then
  log "present: ${programs[*]}"
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { log "need root to install ${missing[*]}"; exit 1; }
  sudo="sudo"
fi
log "installing ${missing[*]} (apt-get)"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
for program in "${programs[@]}"; do
  present "$program" || { log "install failed: $program is still missing"; exit 1; }
done
log "installed ${missing[*]}"
