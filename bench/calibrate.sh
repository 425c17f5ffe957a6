#!/usr/bin/env bash
# Calibration of the drive models: sequential writes and reads at QD1 and QD8 (256 KiB and 1 MiB)
# and 4 KiB random reads at QD1…32 on each profile with a timing model, in simulated time, each
# printed beside the published figure (a datasheet or Linux commit 1365b6904f; docs/models.md gives
# each source) or the figure the drive's mechanics give (docs/models.md shows the arithmetic). Each
# run is 10 simulated seconds after a 5-second ramp (steady state: the drive's write cache is full,
# as in a long run).
#
# - Sequential writes: a fresh @PROFILE, zonemode=zbd, from the first sequential zone (the outer
#   diameter of a disk).
# - Sequential reads: the same range of a device directory whose sequential zones are all FULL
#   (`zonekit zone finish`), so that every read needs the media.
# - Random reads: the whole capacity of that device (zonemode=none, norandommap); not on the 30 TB
#   disk, whose 111,760 zones take minutes to finish (its mechanics are the 15 TB disk's).
#
# Usage: bench/calibrate.sh [PROFILE...]     (default: smr-hm-15tb smr-hm-30tb zns-zn540)
# Needs: python3. Output: one table per profile; the figure the issue checks is marked "<- check".
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p zonekit
zk=${CARGO_TARGET_DIR:-$PWD/target}/release/zonekit
profiles=("$@")
[[ ${#profiles[@]} -gt 0 ]] || profiles=(smr-hm-15tb smr-hm-30tb zns-zn540)
work=$(mktemp -d /tmp/zonekit-calibrate.XXXXXX)
trap 'rm -rf "$work"' EXIT

# bw (MB/s, 10^6 B) and IOPS of a run, from its JSON: "MBPS IOPS MEANLAT_US".
figures() {
    python3 -c '
import json, sys
d = json.load(sys.stdin)
bw = iops = lat = 0.0
for j in d["jobs"]:
    for k in ("read", "write"):
        x = j[k]
        bw += x["io_bytes"] / max(x["runtime"], 1) * 1000 / 1e6 if x["runtime"] else 0
        iops += x["iops"]
        if x["lat_ns"]["N"]:
            lat = x["lat_ns"]["mean"] / 1000
assert d.get("zonekit", {}).get("clock") == "sim", "not a simulated run"
print("%.1f %.0f %.0f" % (bw, iops, lat))'
}

run() { "$zk" bench --output-format=json --ramp_time=5 --runtime=10 --time_based=1 --direct=1 --ioengine=libaio "$@" | figures; }

row() { # name figures expected source
    read -r mbps iops lat <<<"$2"
    printf '  %-34s %9s MB/s %8s IOPS %9s us   %s\n' "$1" "$mbps" "$iops" "$lat" "$3"
}

for p in "${profiles[@]}"; do
    dir=$work/$p
    "$zk" dev create "$dir" --profile "$p" --data none >/dev/null
    first_seq=$(python3 -c '
import json, subprocess, sys
d = json.loads(subprocess.check_output([sys.argv[1], "dev", "info", sys.argv[2], "--json"]))["device"]
print(d["nr_conv_zones"] * d["zone_size"])' "$zk" "$dir")
    nr=$("$zk" dev info "$dir" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["device"]["nr_zones"])')
    # Finishing a zone rewrites the device's zones.state (see docs/performance.md): the whole device
    # only up to 60,000 zones; the 30 TB disk's random reads are those of the 15 TB one (the same
    # mechanics), its sequential reads need only its first zones.
    whole=1
    if ((nr > 60000)); then whole=0; fi
    if ((whole)); then
        "$zk" zone finish "$dir" -o "$first_seq" >/dev/null
    else
        "$zk" zone finish "$dir" -o "$first_seq" -c 16 >/dev/null
    fi
    off=$((first_seq * 512))
    echo "== $p (first sequential zone at byte $off)"
    case $p in
        smr-hm-30tb) seqref="published: 245 MB/s sequential write (Linux commit 1365b6904f)" ;;
        smr-hm-15tb) seqref="datasheet class: ~255 MB/s max sustained (HC620)" ;;
        *) seqref="model: min(dies x program rate, channels, PCIe); see docs/models.md" ;;
    esac
    for bs in 256k 1m; do
        for qd in 1 8; do
            mark=""
            [[ $p == smr-hm-30tb && $bs == 1m && $qd == 1 ]] && mark="  <- check: 245 MB/s +-5 %"
            row "seq write bs=$bs qd=$qd" "$(run --name=w --filename=@"$p" --zonemode=zbd --offset="$off" --rw=write --bs=$bs --iodepth=$qd)" "$seqref$mark"
        done
    done
    for bs in 256k 1m; do
        for qd in 1 8; do
            row "seq read bs=$bs qd=$qd" "$(run --name=r --filename="$dir" --offset="$off" --rw=read --bs=$bs --iodepth=$qd)" "$seqref"
        done
    done
    if ((!whole)); then
        echo "  rand read 4k: not run ($nr zones; the same mechanics as smr-hm-15tb)"
        continue
    fi
    for qd in 1 2 4 8 16 32; do
        case $p in
            smr-*) ref="mechanics (docs/models.md): k=$qd SATF" ;;
            *) ref="model: dies in parallel, docs/models.md" ;;
        esac
        row "rand read 4k qd=$qd" "$(run --name=rr --filename="$dir" --rw=randread --bs=4k --iodepth=$qd --norandommap=1)" "$ref"
    done
done
