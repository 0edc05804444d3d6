#!/usr/bin/env bash
# The test command (README, .ci/run): provisions the real-MemPalace testbed, the npm harnesses (both
# sets) and the MCP Python SDK 2.x (all cached under target/), installs sshd + rsync when missing
# (remote feeding's tests start their own sshd on loopback) and tmux (the mailbox's notification
# tests start their own server on a private socket), then checks formatting and lints, then runs
# every test.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
bash tests/testbed/provision.sh >/dev/null
bash tests/testbed/harnesses.sh >/dev/null
bash tests/testbed/harnesses.sh modern >/dev/null
bash tests/testbed/mcp_sdk.sh >/dev/null
bash tests/testbed/sshd.sh
bash tests/testbed/tmux.sh
cargo fmt --all --check
cargo clippy --locked --workspace --all-targets -- -D warnings
cargo test --locked --workspace
echo "tests/run.sh: done in $(( $(date +%s) - start ))s" >&2
