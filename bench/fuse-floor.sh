#!/usr/bin/env bash
# What a FUSE daemon must spend per 1 MiB O_DIRECT write on this kernel, against what zonekit's
# mount daemon spends: the same dd writes (16 dd processes, 64 MiB each, 1 MiB O_DIRECT writes,
# the writes of bench/zonefs-fuse.sh without O_APPEND) through
#   - bench/fuse-floor.c, a FUSE daemon with nothing but the protocol's minimum (one file, one
#     pwrite to a tmpfs file per write), in each of its modes (read, readv, splice);
#   - `zonekit mount` of a directory device on tmpfs (16 sequential zones of 64 MiB).
# Each figure is the daemon's CPU time (user + system, /proc/PID/stat) per 1 MiB write, the
# figure a loaded machine disturbs least; the runs alternate between the daemons, and the script
# prints each run and the medians. Needs root, /dev/fuse and a C compiler.
#
#   bench/fuse-floor.sh                       # 5 runs of each: read readv zonekit
#   RUNS=9 CPU=1 RTPRIO=10 bench/fuse-floor.sh read zonekit splice
#
# CPU=N and RTPRIO=P pin every measured command to CPU N at SCHED_FIFO priority P, as in
# bench/zonefs-fuse.sh. The splice mode needs fs.pipe-max-size >= 2 MiB (a 1 MiB write is 257 pipe
# pages; without CAP_SYS_RESOURCE a pipe cannot grow past it): it is skipped otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${RUNS:-5}
modes=("$@")
[[ ${#modes[@]} -eq 0 ]] && modes=(read readv zonekit)
cargo build -q --release -p zonekit
zk=$(realpath "${CARGO_TARGET_DIR:-target}/release/zonekit")
pin=()
[[ -n ${CPU:-} ]] && pin+=(taskset -c "$CPU")
[[ -n ${RTPRIO:-} ]] && pin+=(chrt -f "$RTPRIO")
work=$(mktemp -d /dev/shm/zonekit-floor.XXXXXX)
mnt=$work/mnt
export ZONEKIT_RUNTIME_DIR=$work/run
cleanup() {
    umount "$mnt" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$mnt"
cc -O2 -Wall -o "$work/fuse-floor" bench/fuse-floor.c
"$zk" dev create "$work/dev" --zone-size 64M --zones 17 --conv-zones 1 >/dev/null
if [[ " ${modes[*]} " == *" splice "* ]] && (($(cat /proc/sys/fs/pipe-max-size) < 2097152)); then
    echo "splice skipped: fs.pipe-max-size is $(cat /proc/sys/fs/pipe-max-size), below 2 MiB"
    modes=("${modes[@]/splice/}")
fi
tck=$(getconf CLK_TCK)
cpu_of() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# one MODE: the daemon's CPU µs per 1 MiB write over one pass of dd.
one() {
    local mode=$1 pid c0 c1 i
    if [[ $mode == zonekit ]]; then
        "$zk" mkfs --force "$work/dev" >/dev/null
        "${pin[@]}" "$zk" mount "$work/dev" "$mnt"
        pid=$(pgrep -f -- "mount $work/dev $mnt" | head -1)
    else
        rm -f "$work/backing"
        "${pin[@]}" "$work/fuse-floor" "$mode" "$mnt" "$work/backing"
        pid=$(pgrep -f -- "fuse-floor $mode $mnt" | head -1)
    fi
    c0=$(cpu_of "$pid")
    "${pin[@]}" bash -c "for ((i = 0; i < 16; i++)); do
        if [[ $mode == zonekit ]]; then f=$mnt/seq/\$i; s=0; else f=$mnt/f; s=\$((i * 64)); fi
        dd if=/dev/zero of=\$f bs=1M count=64 seek=\$s oflag=direct conv=notrunc 2>/dev/null
    done"
    c1=$(cpu_of "$pid")
    umount "$mnt"
    if [[ $mode == zonekit ]]; then
        while ! "$zk" dev info "$work/dev" >/dev/null 2>&1; do sleep 0.05; done
    else
        while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
    fi
    awk -v c=$((c1 - c0)) -v t="$tck" 'BEGIN { printf "%.0f\n", c / t * 1e6 / 1024 }'
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)${CPU:+, on CPU $CPU}${RTPRIO:+, SCHED_FIFO $RTPRIO}"
declare -A all
for ((r = 1; r <= runs; r++)); do
    line="run $r:"
    for m in "${modes[@]}"; do
        [[ -z $m ]] && continue
        v=$(one "$m")
        all[$m]+="$v "
        line+=" $m $v µs"
    done
    echo "$line"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
for m in "${modes[@]}"; do
    [[ -z $m ]] && continue
    # shellcheck disable=SC2086
    echo "$m: median $(printf '%s\n' ${all[$m]} | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }') µs of daemon CPU per 1 MiB write"
done
