#!/usr/bin/env bash
# Installs what the remote-feeding tests need: an OpenSSH server and rsync (Debian packages), only
# when missing. The tests start and stop their own sshd on loopback (tests/it/support/sshd.rs).
# Usage: tests/testbed/sshd.sh   (idempotent; needs root, or sudo, only when something is missing)
set -euo pipefail
log() { printf 'sshd: %s\n' "$*" >&2; }
missing=()
[ -x /usr/sbin/sshd ] || missing+=(openssh-server)
command -v rsync >/dev/null 2>&1 || missing+=(rsync)
command -v ssh-keygen >/dev/null 2>&1 || missing+=(openssh-client)
if [ ${#missing[@]} -eq 0 ]; then
  log "present: /usr/sbin/sshd, rsync, ssh-keygen"
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
# The package may start a system sshd on port 22 through its postinst (no init here, usually);
# the tests never use it: they start their own on a free loopback port.
[ -x /usr/sbin/sshd ] && command -v rsync >/dev/null 2>&1 || { log "install failed"; exit 1; }
log "installed ${missing[*]}"
