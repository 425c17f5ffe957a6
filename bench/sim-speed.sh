#!/usr/bin/env bash
# Speed of simulated time: wall time and peak memory of simulated runs, against the targets of the
# timing-model issue (docs/performance.md records the figures):
# - 30 simulated seconds of 4 jobs x QD4 256 KiB random writes, zonemode=zbd (the guide's
#   scenario 7) on @smr-hm-15tb and @smr-hm-30tb: under 1 s of wall time and 64 MiB;
# - 4 KiB random reads, zonemode=none, norandommap on @zns-zn540: at least 1 M simulated I/Os per
#   wall second (a fresh device: its zones are empty, so reads take no flash time; and a device
#   directory whose zones are all FULL, so that every read goes to a die).
# Each figure is the median of N runs (default 5).
#
# Usage: bench/sim-speed.sh [N]       Needs: python3, GNU time (apt-get install time).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-5}
cargo build --release -q -p zonekit
zk=${CARGO_TARGET_DIR:-$PWD/target}/release/zonekit
[[ -x /usr/bin/time ]] || { echo "needs GNU time (apt-get install time)" >&2; exit 2; }
work=$(mktemp -d /tmp/zonekit-sim-speed.XXXXXX)
trap 'rm -rf "$work"' EXIT

# One run: "WALL_S MAXRSS_KIB IOS" (IOS: I/Os the JSON report counts, reads and writes).
one() {
    /usr/bin/time -f "%e %M" -o "$work/time" "$zk" bench --output-format=json "$@" >"$work/out.json"
    ios=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(sum(j[k]["total_ios"] for j in d["jobs"] for k in ("read", "write")))' "$work/out.json")
    echo "$(cat "$work/time") $ios"
}

median() { # label target args...
    local label=$1 target=$2
    shift 2
    for _ in $(seq "$n"); do one "$@"; done | python3 -c '
import statistics, sys
rows = [tuple(float(x) for x in l.split()) for l in sys.stdin if l.strip()]
wall = statistics.median(r[0] for r in rows)
rss = statistics.median(r[1] for r in rows) / 1024
ios = statistics.median(r[2] for r in rows)
rate = ios / wall if wall > 0 else float("inf")
print("%-44s wall %6.3f s  max RSS %6.1f MiB  %10.0f I/Os  %6.2f M I/O per wall s   target: %s"
      % (sys.argv[1], wall, rss, ios, rate / 1e6, sys.argv[2]))' "$label" "$target"
}

s7=(--name=zbc --direct=1 --zonemode=zbd --numjobs=4 --group_reporting=1 --runtime=30 --ioengine=libaio --iodepth=4 --rw=randwrite --bs=256K)
median "scenario 7, 30 s, @smr-hm-15tb" "< 1 s, < 64 MiB" --filename=@smr-hm-15tb --offset=140660178944 "${s7[@]}"
median "scenario 7, 30 s, @smr-hm-30tb" "< 1 s, < 64 MiB" --filename=@smr-hm-30tb --offset=300110839808 "${s7[@]}"

rr=(--name=rr --rw=randread --bs=4k --norandommap=1 --zonemode=none --runtime=30)
median "4k randread QD1, 30 s, @zns-zn540 (empty)" ">= 1 M I/O per wall s" --filename=@zns-zn540 "${rr[@]}"
"$zk" dev create "$work/zns" --profile zns-zn540 --data none >/dev/null
"$zk" zone finish "$work/zns" >/dev/null
median "4k randread QD1, 30 s, ZN540 dir (all full)" ">= 1 M I/O per wall s" --filename="$work/zns" "${rr[@]}"
median "4k randread QD32 libaio, 30 s, (all full)" ">= 1 M I/O per wall s" --filename="$work/zns" "${rr[@]}" --ioengine=libaio --iodepth=32

# Real-time pacing against simulated time: the same 5-second job (4 KiB random reads of the 15 TB
# disk's conventional zones, QD1) on each clock; the mean latencies should agree within 5 %.
pace() {
    "$zk" bench --name=p --filename=@smr-hm-15tb --rw=randread --bs=4k --size=100G --runtime=5 \
        --time_based=1 --clock="$1" --output-format=json | python3 -c '
import json, sys
r = json.load(sys.stdin)["jobs"][0]["read"]
print(r["total_ios"], r["lat_ns"]["mean"] / 1000)'
}
read -r sim_n sim_lat <<<"$(pace sim)"
read -r real_n real_lat <<<"$(pace real)"
python3 -c '
import sys
sn, sl, rn, rl = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
print("pacing: sim %d reads, mean lat %.1f us; real %d reads, mean lat %.1f us; ratio %.3f   target: within 5 %%"
      % (sn, sl, rn, rl, rl / sl))' "$sim_n" "$sim_lat" "$real_n" "$real_lat"
