#!/usr/bin/env bash
# Make the example pictures of docs/plots.md from real simulated runs:
#   docs/img/plot-qd1-vs-baseline.png  sequential 1 MiB writes at QD32 on the 15 TB SMR model,
#                                      zone write plugging (baseline) vs --zoned-qd1-writes=1
#   docs/img/plot-no-logs.png          a result without logs nor json+ (the notes)
#   docs/img/map-smr-hm-15tb.png       the drive's 55,880 zones after both runs
#   docs/img/map-zbc-small.png         16 zones in every condition a few commands give
# Usage: scripts/plots-examples.sh   (about 10 s after the build; runs in simulated time)
set -euo pipefail
cd "$(dirname "$0")/.."
out=$PWD/docs/img
cargo build -q --release -p zonekit
zk=$(realpath "${CARGO_TARGET_DIR:-target}")/release/zonekit
work=$(mktemp -d /tmp/zonekit-plots.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$zk" dev create smr --profile smr-hm-15tb --data none >/dev/null
off=$((524 * 256 * 1024 * 1024)) # the first sequential zone
for mode in 0 1; do
    name=$([[ $mode == 0 ]] && echo baseline || echo zoned_qd1_writes)
    "$zk" bench --name=seq --filename=smr --zonemode=zbd --direct=1 --ioengine=libaio --rw=write \
        --bs=1M --iodepth=32 --offset=$off --time_based --runtime=5 --zoned-qd1-writes=$mode \
        --write_bw_log=$name --write_iops_log=$name --write_lat_log=$name --log_avg_msec=0 \
        --output-format=json+ >$name.json
    off=$((off + 64 * 256 * 1024 * 1024))
done
"$zk" plot baseline.json baseline_{bw,iops,lat}.1.log zoned_qd1_writes.json zoned_qd1_writes_{bw,iops,lat}.1.log \
    -o "$out/plot-qd1-vs-baseline.png"
"$zk" bench --name=plain --filename=@zbc-small --zonemode=zbd --direct=1 --rw=write --bs=64k --size=8M \
    --output-format=json >plain.json
"$zk" plot plain.json -o "$out/plot-no-logs.png" 2>notes.txt || true
cat notes.txt
"$zk" map smr -o "$out/map-smr-hm-15tb.png"
# 16 zones: 1 conventional, then open, written, finished, closed, read-only, offline zones.
"$zk" dev create small --profile zbc-small >/dev/null
z=8192 # sectors per 4 MiB zone
"$zk" zone open small -o $((1 * z)) -c 1
"$zk" zone write small -o $((2 * z)) -l $((z / 4))
"$zk" zone write small -o $((3 * z)) -l $((z * 3 / 4))
"$zk" zone finish small -o $((4 * z)) -c 1
"$zk" zone write small -o $((5 * z)) -l $((z / 2))
"$zk" zone close small -o $((5 * z)) -c 1
"$zk" zone write small -o $((6 * z)) -l $z
"$zk" zone inject small read-only -o $((7 * z)) -c 1
"$zk" zone inject small offline -o $((8 * z)) -c 1
"$zk" map small -o "$out/map-zbc-small.png"
