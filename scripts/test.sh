#!/usr/bin/env bash
# Run every zonekit test: the workspace's unit, property, text-driven and end-to-end tests, then the
# Linux backend's tests against a real kernel (Debian 12's, under QEMU; see scripts/vm/README.md).
# The VM lane needs qemu-system-x86, busybox-static and cpio (installed with apt-get when run as
# root); ZONEKIT_SKIP_VM=1 skips it.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo test (workspace)"
cargo test --workspace --locked

if [[ "${ZONEKIT_SKIP_VM:-0}" == 1 ]]; then
    echo "== VM lane skipped (ZONEKIT_SKIP_VM=1)"
    exit 0
fi
echo "== Linux backend against a real kernel (QEMU)"
scripts/vm/linux-tests.sh
