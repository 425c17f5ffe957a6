#!/usr/bin/env bash
# 1 MiB O_DIRECT appends through the FUSE mount of zonekit's zonefs (`dd oflag=direct,append` to
# every sequential file in turn) against the same writes straight to the same emulated device
# (`zonekit bench`, fio's psync engine: 1 MiB direct writes at the write pointers, zone after
# zone, through the block layer). The device is a directory device on tmpfs (/dev/shm), so its
# data live in memory; it is reset between runs. Needs root and /dev/fuse.
#
#   bench/zonefs-fuse.sh          # 5 runs each, 16 zones of 64 MiB (1 GiB per run)
#   RUNS=3 ZONES=4 ZONE_MIB=256 bench/zonefs-fuse.sh
#
# Prints each run's MB/s (decimal, as dd and fio print them) and CPU seconds, the medians, the
# bandwidth ratio FUSE / device (target: at least 70 %), and the same ratio at equal CPU time
# (device CPU / FUSE CPU), which a loaded machine disturbs less than wall-clock bandwidth.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${RUNS:-5}
zones=${ZONES:-16}
zone_mib=${ZONE_MIB:-64}
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
tck=$(getconf CLK_TCK)
# cpu_of PID: user + system seconds of a running process.
cpu_of() { awk -v t="$tck" '{ printf "%.3f\n", ($14 + $15) / t }' "/proc/$1/stat"; }

# fuse_run: "MB/s CPU-seconds" of one pass of dd over every sequential file; the CPU is dd's
# (with its shell) and the mount daemon's.
fuse_run() {
    "$zk" mkfs --force "$work/dev" >/dev/null
    "$zk" mount "$work/dev" "$mnt"
    local pid t0 t1 c0 c1 ddcpu
    pid=$(pgrep -f -- "mount $work/dev $mnt" | head -1)
    c0=$(cpu_of "$pid")
    t0=$(now)
    ddcpu=$(/usr/bin/time -f "%U %S" bash -c "for ((i = 0; i < $zones; i++)); do
        dd if=/dev/zero of=$mnt/seq/\$i bs=1M count=$zone_mib oflag=direct,append conv=notrunc status=none
    done" 2>&1 | awk '{ print $1 + $2 }')
    t1=$(now)
    c1=$(cpu_of "$pid")
    umount "$mnt"
    # The daemon closes the device after the unmount: wait for the directory's lock.
    while ! "$zk" dev info "$work/dev" >/dev/null 2>&1; do sleep 0.05; done
    awk -v b="$bytes" -v t=$((t1 - t0)) -v c="$ddcpu" -v c0="$c0" -v c1="$c1" \
        'BEGIN { printf "%.0f %.3f\n", b / (t / 1e9) / 1e6, c + c1 - c0 }'
}

# device_run: "MB/s CPU-seconds" of zonekit bench writing the same zones, 1 MiB direct writes.
device_run() {
    "$zk" mkfs --force "$work/dev" >/dev/null
    local off=$((zone_mib * 1024 * 1024))
    /usr/bin/time -o "$work/time" -f "%U %S" "$zk" bench --name=dev --filename="$work/dev" --ioengine=psync \
        --direct=1 --rw=write --bs=1M --zonemode=zbd --offset=$off --size=$bytes --output-format=json >"$work/json"
    python3 -c 'import json, sys; print(round(json.load(open(sys.argv[1]))["jobs"][0]["write"]["bw_bytes"] / 1e6), end=" ")' "$work/json"
    awk '{ printf "%.3f\n", $1 + $2 }' "$work/time"
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

fuse=()
dev=()
fcpu=()
dcpu=()
for ((r = 1; r <= runs; r++)); do
    read -r f fc < <(fuse_run)
    read -r d dc < <(device_run)
    echo "run $r: FUSE $f MB/s ($fc CPU s), device $d MB/s ($dc CPU s)"
    fuse+=("$f")
    dev+=("$d")
    fcpu+=("$fc")
    dcpu+=("$dc")
done
mf=$(printf '%s\n' "${fuse[@]}" | median)
md=$(printf '%s\n' "${dev[@]}" | median)
mfc=$(printf '%s\n' "${fcpu[@]}" | median)
mdc=$(printf '%s\n' "${dcpu[@]}" | median)
gib=$(awk -v b="$bytes" 'BEGIN { print b / 2^30 }')
echo "median: FUSE $mf MB/s, device $md MB/s: ratio $(awk -v f="$mf" -v d="$md" 'BEGIN { printf "%.0f %%", 100 * f / d }')"
echo "CPU per GiB: FUSE $(awk -v c="$mfc" -v g="$gib" 'BEGIN { printf "%.3f", c / g }') s, device $(awk -v c="$mdc" -v g="$gib" 'BEGIN { printf "%.3f", c / g }') s: bandwidth ratio at equal CPU $(awk -v f="$mfc" -v d="$mdc" 'BEGIN { printf "%.0f %%", 100 * d / f }')"
