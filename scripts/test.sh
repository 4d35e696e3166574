#!/usr/bin/env bash
# Installs what is missing, builds everything (the CUDA code included) into
# build/werror with the `werror` preset (Release, every warning an error: what
# CI builds) and runs the whole test suite. GPU tests skip on a machine
# without a usable GPU; the MPI split's tests run under MPICH, installed
# here when missing, and the HTML reports' browser tests under headless
# Chromium, installed likewise. Extra arguments go to ctest, e.g. ./scripts/test.sh -R cli
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/deps.sh
qr_deps
qr_mpi_deps
qr_browser_deps
qr_build werror
# every test writes its scratch files under names unique to its process
ctest --preset werror -j"$(nproc)" "$@"
