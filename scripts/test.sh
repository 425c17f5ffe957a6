#!/usr/bin/env bash
# Run every zonekit test: the workspace's unit, property, text-driven and end-to-end tests, the
# comparisons with real fio 3.33, the python3 scripts and the manual pages rendered by man (all
# needed: without them those tests fail), then the Linux backend's tests and the block layer's
# differential against real kernels (Debian 12's 6.1 and 6.12 from bookworm-backports, under QEMU,
# one boot each; see scripts/vm/README.md). The VM lanes need qemu-system-x86, busybox-static and
# cpio (installed with apt-get when run as root); ZONEKIT_SKIP_VM=1 skips them.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo test (workspace)"
cargo test --workspace --locked
# The tests with real tools (fio, python3, man) are #[ignore]d for a plain `cargo test` and run
# here, where a missing tool fails them instead of letting them pass unseen.
echo "== cargo test: the tests with fio, python3 and man (needs_tools::)"
cargo test --workspace --locked -- --ignored needs_tools::

if [[ "${ZONEKIT_SKIP_VM:-0}" == 1 ]]; then
    echo "== VM lane skipped (ZONEKIT_SKIP_VM=1)"
    exit 0
fi
echo "== Linux backend and the block layer's differential against real kernels (QEMU: 6.1, 6.12)"
bins=()
for crate in zonekit-dev zonekit-blk; do
    bin=$(cargo test --locked -p "$crate" --test linux_vm --no-run --message-format=json 2>/dev/null |
        sed -n 's/.*"executable":"\([^"]*linux_vm[^"]*\)".*/\1/p' | tail -1)
    [[ -x "$bin" ]] || { echo "scripts/test.sh: could not build $crate's linux_vm test binary" >&2; exit 1; }
    bins+=(--bin "$bin")
done
cargo build --locked -q -p zonekit
target=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
# One boot per kernel; each lane's wall time is printed, and a failing lane does not hide the other.
lanes_rc=0
for kernel in 6.1 6.12; do
    t0=$(date +%s)
    echo "== VM lane: Linux $kernel"
    rc=0
    ZONEKIT_VM_TIMEOUT=${ZONEKIT_VM_TIMEOUT:-900} scripts/vm/run.sh --kernel "$kernel" --nvme-zns --module zonefs \
        "${bins[@]}" --bin "$target/debug/zonekit" --bin "$(command -v dd)" scripts/vm/linux-tests.sh || rc=$?
    echo "== VM lane: Linux $kernel: exit status $rc in $(($(date +%s) - t0)) s"
    [[ $rc -eq 0 ]] || lanes_rc=$rc
done
exit "$lanes_rc"
