#!/usr/bin/env bash
# 1 MiB O_DIRECT appends through the FUSE mount of zonekit's zonefs (`dd oflag=direct,append` to
# every sequential file in turn) against the same writes straight to the same emulated device
# (`zonekit bench`, fio's psync engine: 1 MiB direct writes at the write pointers, zone after
# zone, through the block layer). The device is a directory device on tmpfs (/dev/shm), so its
# data live in memory; it is reset between runs. Needs root and /dev/fuse.
#
#   bench/zonefs-fuse.sh          # 5 runs each, 16 zones of 64 MiB (1 GiB per run)
#   RUNS=3 ZONES=4 ZONE_MIB=256 bench/zonefs-fuse.sh
#   CPU=1 RTPRIO=10 bench/zonefs-fuse.sh    # measure on CPU 1 only, at real-time priority 10
#
# CPU=N runs every measured command (the mount daemon, dd, zonekit bench) on CPU N alone
# (taskset), RTPRIO=P at SCHED_FIFO priority P (chrt -f): on a shared machine, other work then
# neither takes the CPU nor decides where the daemon and dd run (a FUSE write hands over from dd
# to the daemon and back; across CPUs each hand-over is an inter-processor wake-up). The build
# runs before, at normal priority.
#
# Prints the load average before and after, each run's MB/s (decimal, as dd and fio print them)
# and CPU seconds, the medians with the spread (lowest-highest), the bandwidth ratio FUSE / device
# (target: at least 70 %), the CPU time per 1 MiB write of the mount daemon, of dd with its shell
# and of zonekit bench, and the same ratio at equal CPU time (device CPU / FUSE CPU), which a
# loaded machine disturbs less than wall-clock bandwidth. FUSE MB/s is the wall-clock time of the
# whole dd loop (one dd process per file, their start-up and opens included); "dd's own" is the bandwidth
# dd reports for its copies (its timer starts after the files are opened), the like of the device's
# figure, which is zonekit bench's own (bw_bytes of its job, without its start-up).
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${RUNS:-5}
zones=${ZONES:-16}
zone_mib=${ZONE_MIB:-64}
cargo build -q --release -p zonekit
# The measured commands' prefix: CPU pinning and real-time priority, when asked for.
pin=()
[[ -n ${CPU:-} ]] && pin+=(taskset -c "$CPU")
[[ -n ${RTPRIO:-} ]] && pin+=(chrt -f "$RTPRIO")
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

# fuse_run: "MB/s CPU-seconds dd's-own-MB/s daemon-CPU-seconds" of one pass of dd over every
# sequential file; the CPU is dd's (with its shell) and the mount daemon's, then the daemon's alone.
fuse_run() {
    "$zk" mkfs --force "$work/dev" >/dev/null
    "${pin[@]}" "$zk" mount "$work/dev" "$mnt"
    local pid t0 t1 c0 c1 ddcpu ddsec
    pid=$(pgrep -f -- "mount $work/dev $mnt" | head -1)
    c0=$(cpu_of "$pid")
    t0=$(now)
    "${pin[@]}" /usr/bin/time -o "$work/ddtime" -f "%U %S" bash -c "for ((i = 0; i < $zones; i++)); do
        LC_ALL=C dd if=/dev/zero of=$mnt/seq/\$i bs=1M count=$zone_mib oflag=direct,append conv=notrunc 2>&1
    done" >"$work/dd.out"
    t1=$(now)
    c1=$(cpu_of "$pid")
    ddcpu=$(awk '{ print $1 + $2 }' "$work/ddtime")
    # dd's summary line: "N bytes (...) copied, S s, R MB/s".
    ddsec=$(awk '/ copied, / { for (i = 1; i < NF; i++) if ($(i + 1) == "s,") s += $i } END { print s }' "$work/dd.out")
    umount "$mnt"
    # The daemon closes the device after the unmount: wait for the directory's lock.
    while ! "$zk" dev info "$work/dev" >/dev/null 2>&1; do sleep 0.05; done
    awk -v b="$bytes" -v t=$((t1 - t0)) -v c="$ddcpu" -v c0="$c0" -v c1="$c1" -v s="$ddsec" \
        'BEGIN { printf "%.0f %.3f %.0f %.3f\n", b / (t / 1e9) / 1e6, c + c1 - c0, b / s / 1e6, c1 - c0 }'
}

# device_run: "MB/s CPU-seconds wall-clock-MB/s" of zonekit bench writing the same zones, 1 MiB
# direct writes; the first figure is bench's own (bw_bytes), the last the whole command's wall
# clock (its start-up and report included, the like of the dd loop's wall clock).
device_run() {
    "$zk" mkfs --force "$work/dev" >/dev/null
    local off=$((zone_mib * 1024 * 1024)) t0 t1
    t0=$(now)
    "${pin[@]}" /usr/bin/time -o "$work/time" -f "%U %S" "$zk" bench --name=dev --filename="$work/dev" --ioengine=psync \
        --direct=1 --rw=write --bs=1M --zonemode=zbd --offset=$off --size=$bytes --output-format=json >"$work/json"
    t1=$(now)
    python3 -c 'import json, sys; print(round(json.load(open(sys.argv[1]))["jobs"][0]["write"]["bw_bytes"] / 1e6), end=" ")' "$work/json"
    awk -v b="$bytes" -v t=$((t1 - t0)) '{ printf "%.3f %.0f\n", $1 + $2, b / (t / 1e9) / 1e6 }' "$work/time"
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# spread: "lowest-highest".
spread() { sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo "-" hi }'; }
ratio() { awk -v f="$1" -v d="$2" 'BEGIN { printf "%.0f %%", 100 * f / d }'; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)${CPU:+, on CPU $CPU}${RTPRIO:+, SCHED_FIFO $RTPRIO}"
fuse=()
own=()
dev=()
devw=()
fcpu=()
dcpu=()
mcpu=()
ddc=()
for ((r = 1; r <= runs; r++)); do
    read -r f fc fo fm < <(fuse_run)
    read -r d dc dw < <(device_run)
    echo "run $r: FUSE $f MB/s (dd's own $fo MB/s, $fc CPU s), device $d MB/s (whole command $dw MB/s, $dc CPU s)"
    fuse+=("$f")
    own+=("$fo")
    dev+=("$d")
    devw+=("$dw")
    fcpu+=("$fc")
    dcpu+=("$dc")
    mcpu+=("$fm")
    ddc+=("$(awk -v c="$fc" -v m="$fm" 'BEGIN { print c - m }')")
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
mf=$(printf '%s\n' "${fuse[@]}" | median)
mo=$(printf '%s\n' "${own[@]}" | median)
md=$(printf '%s\n' "${dev[@]}" | median)
mdw=$(printf '%s\n' "${devw[@]}" | median)
mfc=$(printf '%s\n' "${fcpu[@]}" | median)
mdc=$(printf '%s\n' "${dcpu[@]}" | median)
mmc=$(printf '%s\n' "${mcpu[@]}" | median)
mddc=$(printf '%s\n' "${ddc[@]}" | median)
gib=$(awk -v b="$bytes" 'BEGIN { print b / 2^30 }')
echo "spread: FUSE $(printf '%s\n' "${fuse[@]}" | spread) MB/s (dd's own $(printf '%s\n' "${own[@]}" | spread)), device $(printf '%s\n' "${dev[@]}" | spread) MB/s"
echo "median: FUSE $mf MB/s, device $md MB/s: ratio $(ratio "$mf" "$md"); dd's own $mo MB/s: ratio $(ratio "$mo" "$md")"
echo "like for like: dd's own / bench's own $(ratio "$mo" "$md"); wall clock of the dd loop / of the bench command ($mdw MB/s) $(ratio "$mf" "$mdw")"
mib=$((bytes / 1048576))
echo "CPU per 1 MiB write, median: mount daemon $(awk -v c="$mmc" -v n="$mib" 'BEGIN { printf "%.0f", c * 1e6 / n }') µs, dd and its shell $(awk -v c="$mddc" -v n="$mib" 'BEGIN { printf "%.0f", c * 1e6 / n }') µs; device $(awk -v c="$mdc" -v n="$mib" 'BEGIN { printf "%.0f", c * 1e6 / n }') µs"
echo "CPU per GiB: FUSE $(awk -v c="$mfc" -v g="$gib" 'BEGIN { printf "%.3f", c / g }') s, device $(awk -v c="$mdc" -v g="$gib" 'BEGIN { printf "%.3f", c / g }') s: bandwidth ratio at equal CPU $(awk -v f="$mfc" -v d="$mdc" 'BEGIN { printf "%.0f %%", 100 * d / f }')"
