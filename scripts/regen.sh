#!/usr/bin/env bash
# Regenerates completions/ and man/ from the clap definition, through the binary itself.
# Run after changing src/cli.rs; tests fail while the committed files are stale.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet
bin=target/debug/mpt
mkdir -p completions
"$bin" completions bash > completions/mpt.bash
"$bin" completions zsh > completions/_mpt
"$bin" completions fish > completions/mpt.fish
"$bin" completions elvish > completions/mpt.elv
"$bin" completions powershell > completions/_mpt.ps1
rm -rf man && "$bin" man man > /dev/null
echo "regenerated completions/ and man/"
