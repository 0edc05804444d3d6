#!/usr/bin/env bash
# Installs what the mailbox-through-tmux tests need: a real tmux (Debian's package), only when
# missing. The tests start their own server on a private socket and kill it (tests/it/support/tmux.rs).
# Usage: tests/testbed/tmux.sh   (idempotent; needs root, or sudo, only when tmux is missing)
set -euo pipefail
exec bash "$(dirname "$0")/debian.sh" tmux tmux=tmux
