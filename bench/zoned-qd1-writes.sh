#!/usr/bin/env bash
# Reproduce the two tables of Linux commit 1365b6904f ("block: allow submitting all zone writes
# from a single context") on zonekit's 30 TB SMR profile, in simulated time: zone write plugging
# as Linux 6.10+ does it (baseline, --zoned-qd1-writes=0) against the single-context QD1 worker
# (--zoned-qd1-writes=1). The fio jobs are inferred (the commit does not give them); they are
# written out in docs/models.md, "Zone write plugging and zoned_qd1_writes".
#
#   bench/zoned-qd1-writes.sh            # both tables, about 40 s
#   RUNTIME=10 bench/zoned-qd1-writes.sh # shorter runs
#   bench/zoned-qd1-writes.sh --plot DIR # also DIR/TABLE.png: zonekit's figures beside the commit's
#   TABLES=seq_write PARAMS="cache_bytes=8388608 write_settle_ns=300000" bench/zoned-qd1-writes.sh
#       # one table, on a device made for each cell from the profile with some model parameters
#       # changed (the fit of docs/models.md is made this way)
#   HOST_IO_NS=50000 bench/zoned-qd1-writes.sh
#       # each job spends 50 µs of simulated time per I/O it queues (zonekit bench --host-io-ns)
#
# Prints, per table, our baseline and qd1 figures beside the commit's with the error of each
# cell, then one plain line per cell for scripts: `TABLE X BASELINE_MBPS QD1_MBPS`.
set -euo pipefail
plot_dir=
if [[ ${1:-} == --plot ]]; then
    [[ -n ${2:-} ]] || { echo "--plot needs a directory" >&2; exit 2; }
    plot_dir=$(realpath -m "$2")
    mkdir -p "$plot_dir"
fi
cd "$(dirname "$0")/.."

csv=${CSV:-bench/zoned-qd1-writes.csv}
runtime=${RUNTIME:-30}
ramp=${RAMP:-5}
tables=${TABLES:-seq_write random_zones_16jobs_qd32}
params=${PARAMS:-}
host_io_ns=${HOST_IO_NS:-}
cargo build -q --release -p zonekit
zk=${CARGO_TARGET_DIR:-target}/release/zonekit
profile=smr-hm-30tb
dev=@$profile
work=$(mktemp -d /tmp/zonekit-qd1.XXXXXX)
trap 'rm -rf "$work"' EXIT
# The first sequential zone: 1118 conventional zones of 256 MiB.
first_seq=$((1118 * 256 * 1024 * 1024))

# fresh_device: the device of one cell: the profile itself, or (PARAMS) a device directory made
# from it with those model parameters changed in its metadata.
fresh_device() {
    if [[ -z $params ]]; then
        echo "$dev"
        return
    fi
    rm -rf "$work/dev"
    "$zk" dev create "$work/dev" --profile "$profile" --data none >/dev/null
    python3 - "$work/dev/zonekit.meta" $params <<'PY'
import json, sys
path = sys.argv[1]
meta = json.load(open(path))
for kv in sys.argv[2:]:
    k, v = kv.split("=", 1)
    if k not in meta["model"]["params"]:
        sys.exit("unknown model parameter: " + k)
    meta["model"]["params"][k] = v
json.dump(meta, open(path, "w"), indent=2)
PY
    echo "$work/dev"
}

# mbps ARGS...: the job's (group's) write bandwidth in MB/s (10^6 bytes/s), from fio's JSON.
mbps() {
    "$zk" bench --filename="$(fresh_device)" "$@" --output-format=json 2>/dev/null | python3 -c '
import json, sys
t = sys.stdin.read()
j = json.loads(t[t.index("{"):t.rindex("}") + 1])
print("%.1f" % (j["jobs"][0]["write"]["bw_bytes"] / 1e6))'
}

common=(--zonemode=zbd --direct=1 --ioengine=libaio --bs=1M --offset="$first_seq"
    --time_based --runtime="$runtime" --ramp_time="$ramp")
if [[ -n $host_io_ns ]]; then
    common+=(--host-io-ns="$host_io_ns")
fi

seq_cell() { # QD MODE
    mbps --name=seq "${common[@]}" --rw=write --iodepth="$1" --zoned-qd1-writes="$2"
}
random_cell() { # ZONES MODE
    mbps --name=rz "${common[@]}" --rw=randwrite --iodepth=32 --numjobs=16 --group_reporting \
        --max_open_zones="$1" --zoned-qd1-writes="$2"
}

plain=()
rows=()
table() { # NAME X_NAME CELL_FUNCTION
    local name=$1 xname=$2 fn=$3
    printf '\n%s (%s runs of %s s after a %s s ramp, simulated%s%s)\n' "$name" "$dev" "$runtime" "$ramp" \
        "${params:+; $params}" "${host_io_ns:+; host_io_ns=$host_io_ns}"
    printf '%8s | %9s %9s %7s | %9s %9s %7s\n' "$xname" "base" "commit" "err" "qd1" "commit" "err"
    while IFS=, read -r t _ x base qd1; do
        [[ $t == "$name" ]] || continue
        local b q
        b=$($fn "$x" 0)
        q=$($fn "$x" 1)
        printf '%8s | %9s %9s %6.1f%% | %9s %9s %6.1f%%\n' "$x" "$b" "$base" \
            "$(python3 -c "print(100*($b-$base)/$base)")" "$q" "$qd1" "$(python3 -c "print(100*($q-$qd1)/$qd1)")"
        plain+=("$name $x $b $q")
        rows+=("$name,$xname,$x,$b,$q,$base,$qd1")
    done < <(grep -v '^#' "$csv")
}

for t in $tables; do
    case $t in
    seq_write) table seq_write queue_depth seq_cell ;;
    random_zones_16jobs_qd32) table random_zones_16jobs_qd32 zones random_cell ;;
    *) echo "unknown table: $t" >&2; exit 2 ;;
    esac
done
echo
printf '%s\n' "${plain[@]}"
if [[ -n $plot_dir ]]; then
    for t in $tables; do
        { echo "table,x_name,x,zonekit baseline,zonekit zoned_qd1_writes,commit baseline,commit zoned_qd1_writes"
          printf '%s\n' "${rows[@]}" | grep "^$t,"; } >"$work/$t.csv"
        "$zk" plot --table "$work/$t.csv" --title "zonekit ($dev, simulated) vs Linux commit 1365b6904f" \
            -o "$plot_dir/$t.png"
    done
fi
