#!/usr/bin/env bash
# Reproduce the two tables of Linux commit 1365b6904f ("block: allow submitting all zone writes
# from a single context") on zonekit's 30 TB SMR profile, in simulated time: zone write plugging
# as Linux 6.10+ does it (baseline, --zoned-qd1-writes=0) against the single-context QD1 worker
# (--zoned-qd1-writes=1). The fio jobs are inferred (the commit does not give them); they are
# written out in docs/models.md, "Zone write plugging and zoned_qd1_writes".
#
#   bench/zoned-qd1-writes.sh            # both tables, about a minute
#   RUNTIME=10 bench/zoned-qd1-writes.sh # shorter runs
#
# Prints, per table, our baseline and qd1 figures beside the commit's with the error of each
# cell, then one plain line per cell for scripts: `TABLE X BASELINE_MBPS QD1_MBPS`.
set -euo pipefail
cd "$(dirname "$0")/.."

csv=${CSV:-../shared/calibration/zoned-qd1-writes.csv}
runtime=${RUNTIME:-30}
ramp=${RAMP:-5}
cargo build -q --release -p zonekit
zk=${CARGO_TARGET_DIR:-target}/release/zonekit
dev=@smr-hm-30tb
# The first sequential zone: 1118 conventional zones of 256 MiB.
first_seq=$((1118 * 256 * 1024 * 1024))

# mbps ARGS...: the job's (group's) write bandwidth in MB/s (10^6 bytes/s), from fio's JSON.
mbps() {
    "$zk" bench "$@" --output-format=json 2>/dev/null | python3 -c '
import json, sys
t = sys.stdin.read()
j = json.loads(t[t.index("{"):t.rindex("}") + 1])
print("%.1f" % (j["jobs"][0]["write"]["bw_bytes"] / 1e6))'
}

common=(--filename="$dev" --zonemode=zbd --direct=1 --ioengine=libaio --bs=1M --offset="$first_seq"
    --time_based --runtime="$runtime" --ramp_time="$ramp")

seq_cell() { # QD MODE
    mbps --name=seq "${common[@]}" --rw=write --iodepth="$1" --zoned-qd1-writes="$2"
}
random_cell() { # ZONES MODE
    mbps --name=rz "${common[@]}" --rw=randwrite --iodepth=32 --numjobs=16 --group_reporting \
        --max_open_zones="$1" --zoned-qd1-writes="$2"
}

plain=()
table() { # NAME X_NAME CELL_FUNCTION
    local name=$1 xname=$2 fn=$3
    printf '\n%s (%s runs of %s s after a %s s ramp, simulated)\n' "$name" "$dev" "$runtime" "$ramp"
    printf '%8s | %9s %9s %7s | %9s %9s %7s\n' "$xname" "base" "commit" "err" "qd1" "commit" "err"
    while IFS=, read -r t _ x base qd1; do
        [[ $t == "$name" ]] || continue
        local b q
        b=$($fn "$x" 0)
        q=$($fn "$x" 1)
        printf '%8s | %9s %9s %6.1f%% | %9s %9s %6.1f%%\n' "$x" "$b" "$base" \
            "$(python3 -c "print(100*($b-$base)/$base)")" "$q" "$qd1" "$(python3 -c "print(100*($q-$qd1)/$qd1)")"
        plain+=("$name $x $b $q")
    done < <(grep -v '^#' "$csv")
}

table seq_write queue_depth seq_cell
table random_zones_16jobs_qd32 zones random_cell
echo
printf '%s\n' "${plain[@]}"
