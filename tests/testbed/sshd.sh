#!/usr/bin/env bash
# Installs what the remote-feeding tests need: an OpenSSH server and rsync (Debian packages), only
# when missing. The tests start and stop their own sshd on loopback (tests/it/support/sshd.rs).
# Usage: tests/testbed/sshd.sh   (idempotent; needs root, or sudo, only when something is missing)
# The package may start a system sshd on port 22 through its postinst (no init here, usually);
# the tests never use it: they start their own on a free loopback port.
set -euo pipefail
exec bash "$(dirname "$0")/debian.sh" sshd \
  /usr/sbin/sshd=openssh-server rsync=rsync ssh-keygen=openssh-client
