#!/usr/bin/env bash
# The test command (README, .ci/run): provisions the real-MemPalace testbed (cached under
# target/), then checks formatting and lints, then runs every unit and integration test.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
bash tests/testbed/provision.sh >/dev/null
cargo fmt --check
cargo clippy --locked --all-targets -- -D warnings
cargo test --locked
echo "tests/run.sh: done in $(( $(date +%s) - start ))s" >&2
