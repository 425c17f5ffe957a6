#!/usr/bin/env bash
# 1 MiB O_DIRECT appends through the FUSE mount of zonekit's zonefs (`dd oflag=direct,append` to
# every sequential file in turn) against the same writes straight to the same emulated device
# (`zonekit bench`, fio's psync engine: 1 MiB direct writes at the write pointers, zone after
# zone, through the block layer). The device is a directory device on tmpfs (/dev/shm), so its
# data live in memory; it is reset between runs. Needs root and /dev/fuse.
#
#   bench/zonefs-fuse.sh          # 5 runs each, 16 zones of 64 MiB (1 GiB per run)
#   RUNS=3 ZONES=8 bench/zonefs-fuse.sh
#
# Prints each run's MB/s (decimal, as dd and fio print them), the medians, and the ratio
# FUSE / device (target: at least 70 %).
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${RUNS:-5}
zones=${ZONES:-16}
zone_mib=64
cargo build -q --release -p zonekit
zk=$(realpath "${CARGO_TARGET_DIR:-target}/release/zonekit")
work=$(mktemp -d /dev/shm/zonekit-fuse.XXXXXX)
mnt=$work/mnt
export ZONEKIT_RUNTIME_DIR=$work/run
cleanup() {
    umount "$mnt" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$mnt"

# One conventional zone (the superblock), then the sequential files.
"$zk" dev create "$work/dev" --zone-size ${zone_mib}M --zones $((zones + 1)) --conv-zones 1 >/dev/null
"$zk" mkfs "$work/dev" >/dev/null
bytes=$((zones * zone_mib * 1024 * 1024))

now() { date +%s%N; }

fuse_run() {
    "$zk" mkfs --force "$work/dev" >/dev/null
    "$zk" mount "$work/dev" "$mnt"
    local t0 t1
    t0=$(now)
    for ((i = 0; i < zones; i++)); do
        dd if=/dev/zero of="$mnt/seq/$i" bs=1M count=$zone_mib oflag=direct,append conv=notrunc status=none
    done
    t1=$(now)
    umount "$mnt"
    # The daemon closes the device after the unmount: wait for the directory's lock.
    while ! "$zk" dev info "$work/dev" >/dev/null 2>&1; do sleep 0.05; done
    echo "$bytes $((t1 - t0))" | awk '{ printf "%.0f\n", $1 / ($2 / 1e9) / 1e6 }'
}

device_run() {
    "$zk" mkfs --force "$work/dev" >/dev/null
    local off=$((zone_mib * 1024 * 1024))
    "$zk" bench --name=dev --filename="$work/dev" --ioengine=psync --direct=1 --rw=write --bs=1M \
        --zonemode=zbd --offset=$off --size=$bytes --output-format=json |
        python3 -c 'import json, sys; print(round(json.load(sys.stdin)["jobs"][0]["write"]["bw_bytes"] / 1e6))'
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

fuse=()
dev=()
for ((r = 1; r <= runs; r++)); do
    f=$(fuse_run)
    d=$(device_run)
    echo "run $r: FUSE $f MB/s, device $d MB/s"
    fuse+=("$f")
    dev+=("$d")
done
mf=$(printf '%s\n' "${fuse[@]}" | median)
md=$(printf '%s\n' "${dev[@]}" | median)
echo "median: FUSE $mf MB/s, device $md MB/s, ratio $(awk -v f="$mf" -v d="$md" 'BEGIN { printf "%.0f %%", 100 * f / d }')"
