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
bin=$(cargo test --locked -p zonekit-dev --test linux_vm --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*linux_vm[^"]*\)".*/\1/p' | tail -1)
[[ -x "$bin" ]] || { echo "scripts/test.sh: could not build the linux_vm test binary" >&2; exit 1; }
cargo build --locked -q -p zonekit
ZONEKIT_VM_TIMEOUT=${ZONEKIT_VM_TIMEOUT:-900} scripts/vm/run.sh --bin "$bin" --bin target/debug/zonekit scripts/vm/linux-tests.sh
