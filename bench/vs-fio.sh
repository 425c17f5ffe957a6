#!/usr/bin/env bash
# zonekit bench against fio 3.33, side by side: the same command line given to `fio --thread` and to
# `zonekit bench`, alternately, RUNS times each, on a 4 GiB file in /dev/shm written once beforehand.
# Prints, per row, the median IOPS of each, and the median whole-process CPU-seconds per I/O (user +
# system, as /usr/bin/time reports them), with the ratios zonekit/fio. Not part of CI.
#
# Usage: bench/vs-fio.sh [RUNS] [SECONDS] [ROW]  (defaults: 5 runs of 10 s; ROW: only the rows whose
#        name contains it, e.g. `verify`, and not the in-process section)
# Needs: fio, /usr/bin/time (apt-get install fio time), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
secs=${2:-10}
only=${3:-}
file=${ZONEKIT_VS_FIO_FILE:-/dev/shm/zonekit-vs-fio.img}
command -v fio >/dev/null || { echo "needs fio (apt-get install fio)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
cargo build --release -q -p zonekit
zk=${CARGO_TARGET_DIR:-target}/release/zonekit
if [[ ! -f $file || $(stat -c %s "$file") -lt $((4 << 30)) ]]; then
    echo "writing $file (4 GiB) once"
    fio --name=fill --filename="$file" --rw=write --bs=1M --size=4G --output=/dev/null
fi

rows=(
    "psync 4k randwrite qd1|--name=b --filename=$file --direct=1 --rw=randwrite --bs=4k --ioengine=psync --iodepth=1 --size=2G --time_based --runtime=$secs --randrepeat=0"
    "io_uring 4k randwrite qd32|--name=b --filename=$file --direct=1 --rw=randwrite --bs=4k --ioengine=io_uring --iodepth=32 --size=2G --time_based --runtime=$secs --randrepeat=0"
    "psync 256k write (kernel-bound)|--name=b --filename=$file --direct=1 --rw=write --bs=256k --ioengine=psync --iodepth=1 --size=2G --time_based --runtime=$secs --randrepeat=0"
    "null 4k randread qd1 (tool only)|--name=b --ioengine=null --rw=randread --bs=4k --size=2G --time_based --runtime=$secs --randrepeat=0"
    "psync 4k write+verify crc32c|--name=b --filename=$file --direct=1 --rw=write --bs=4k --ioengine=psync --iodepth=1 --size=256M --verify=crc32c --verify_state_save=0"
    "zbd psync 4k randwrite qd1|--name=b --filename=$file --direct=1 --rw=randwrite --bs=4k --ioengine=psync --iodepth=1 --size=2G --time_based --runtime=$secs --randrepeat=0 --zonemode=zbd --zonesize=64M --max_open_zones=8"
)

# One run: prints "IOPS CPU_SECONDS TOTAL_IOS".
one() {
    local out; out=$(mktemp)
    /usr/bin/time -f "%U %S" -o "$out.time" "$@" --output-format=json --output="$out" >/dev/null 2>&1 || true
    python3 - "$out" "$out.time" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
j = doc["jobs"][0]
iops = sum(j[d]["iops"] for d in ("read", "write", "trim"))
ios = sum(j[d]["total_ios"] for d in ("read", "write", "trim"))
u, s = open(sys.argv[2]).read().split()[-2:]
print(iops, float(u) + float(s), ios)
PY
    rm -f "$out" "$out.time"
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

printf '%-32s %12s %12s %7s %14s %14s %7s\n' row "fio IOPS" "zonekit IOPS" ratio "fio CPU/IO" "zonekit CPU/IO" ratio
for row in "${rows[@]}"; do
    name=${row%%|*}; args=${row#*|}
    [[ -z $only || $name == *"$only"* ]] || continue
    fi=(); fc=(); zi=(); zc=()
    for _ in $(seq "$runs"); do
        # shellcheck disable=SC2086
        read -r i c n < <(one fio --thread $args); fi+=("$i"); fc+=("$(python3 -c "print($c/$n*1e6)")")
        # shellcheck disable=SC2086
        read -r i c n < <(one "$zk" bench $args); zi+=("$i"); zc+=("$(python3 -c "print($c/$n*1e6)")")
    done
    f_i=$(printf '%s\n' "${fi[@]}" | median); z_i=$(printf '%s\n' "${zi[@]}" | median)
    f_c=$(printf '%s\n' "${fc[@]}" | median); z_c=$(printf '%s\n' "${zc[@]}" | median)
    printf '%-32s %12.0f %12.0f %6.2fx %11.2f us %11.2f us %6.2fx\n' "$name" "$f_i" "$z_i" \
        "$(python3 -c "print($z_i/$f_i)")" "$f_c" "$z_c" "$(python3 -c "print($z_c/$f_c)")"
done

[[ -z $only ]] || exit 0
# zonekit alone: zonemode=zbd random writes to the 1 TiB null_blk profile, in process (no kernel).
printf '\n%-40s %12s\n' "zonekit in process (@nullb-1t)" "IOPS"
for eng in "psync|--ioengine=psync" "libaio qd32|--ioengine=libaio --iodepth=32"; do
    name=${eng%%|*}; e=${eng#*|}
    zi=()
    for _ in $(seq "$runs"); do
        # shellcheck disable=SC2086
        read -r i _ _ < <(one "$zk" bench --name=n --filename=@nullb-1t --direct=1 --zonemode=zbd --rw=randwrite --bs=4k --size=100% --time_based --runtime=$secs --randrepeat=0 $e)
        zi+=("$i")
    done
    printf '%-40s %12.0f\n' "zbd 4k randwrite, $name" "$(printf '%s\n' "${zi[@]}" | median)"
done
