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
rc=0
ctest --preset werror -j"$(nproc)" "$@" || rc=$?
# "100% tests passed" counts skipped tests as passed: say how many skipped and why
log=build/werror/Testing/Temporary/LastTest.log
if [ -f "$log" ]; then
    # (Criterion says "Test is disabled" of the tests of a program another entry runs)
    reasons=$(sed -n 's/^\[SKIP\] [A-Za-z0-9_]*::[A-Za-z0-9_]*: \([^:]*\).*$/\1/p' "$log" |
              grep -v '^Test is disabled$' || true)
    if [ -n "$reasons" ]; then
        echo "test.sh: $(printf '%s\n' "$reasons" | wc -l) tests skipped (counted as passed above), by reason:"
        printf '%s\n' "$reasons" | sort | uniq -c | sort -rn
    fi
fi
exit $rc
