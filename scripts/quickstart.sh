#!/usr/bin/env bash
# Installs what is missing, builds quadrender into build/release and renders the
# rand10k scene to rand10k.png: on the GPU when there is a usable one, else
# on the CPU (quadrender says which).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/deps.sh
qr_deps
qr_build release --target quadrender
./build/release/quadrender render rand10k -o rand10k.png
echo "quickstart: wrote $PWD/rand10k.png"
