#!/bin/sh
# Replays the scenarios of ../../testdata/zns_*.txt on QEMU's NVMe ZNS emulation, inside the
# project's VM. scripts/vm/run.sh does not attach NVMe devices; run it from a copy whose
# qemu-system-x86_64 command line also has (one namespace per limit set, 16 MiB raw images):
#
#   -device nvme,serial=zonekit,id=nvme0
#   -drive file=zns1.img,id=zns1,format=raw,if=none
#   -device nvme-ns,drive=zns1,bus=nvme0,nsid=1,zoned=true,zoned.zone_size=2M,zoned.zone_capacity=1M,zoned.max_open=2,logical_block_size=512,physical_block_size=512
#   (nsid=2: zoned.max_open=2,zoned.max_active=3; nsid=3: zoned.max_open=2,zoned.max_active=2)
#
# and pass `--module nvme`. Output as in replay_nullblk_zbc.sh. Not run by cargo.
ZS=4096
DEV=
w() { n=${3:-8}
    out=$(dd if=/dev/zero of=/dev/$DEV bs=$((n * 512)) count=1 seek=$(( ($1 * ZS + $2) * 512 )) oflag=seek_bytes,direct 2>&1)
    if [ $? = 0 ]; then r=ok; else r=$(echo "$out" | sed -n "s/.*error writing[^:]*: \(.*\)/\1/p" | head -1); fi
    echo "write z$1 +$2 n=$n: $r"; }
zop() { out=$(blkzone "$1" -o $(( $2 * ZS )) -c 1 /dev/$DEV 2>&1)
    if [ $? = 0 ]; then r=ok; else r=$(echo "$out" | sed -n 's/.*ioctl failed: \(.*\)/\1/p'); fi
    echo "$1 z$2: $r"; }
rep() { line=""
    for t in $(blkzone report /dev/$DEV | sed -n 's/.*start: \(0x[0-9a-f]*\).*wptr \(0x[0-9a-f]*\).*zcond: *[0-9]*(\([a-z]*\)).*/\1:\2:\3/p'); do
        st=${t%%:*}; rest=${t#*:}; wp=${rest%%:*}; c=${rest#*:}
        case $c in em|nw) ;; *) line="$line z$((st / ZS)):$c+$((wp))" ;; esac
    done; echo "report:$line"; }
section() { echo; echo "===== $* ====="; }
modprobe nvme; i=0; while [ ! -b /dev/nvme0n3 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
for n in 1 2 3; do echo "nvme0n$n: zoned=$(cat /sys/block/nvme0n$n/queue/zoned) nr_zones=$(cat /sys/block/nvme0n$n/queue/nr_zones) max_open=$(cat /sys/block/nvme0n$n/queue/max_open_zones) max_active=$(cat /sys/block/nvme0n$n/queue/max_active_zones)"; done

section "Z1 max_open=2"; DEV=nvme0n1
w 1 0; w 2 0; w 3 0; rep; w 4 0; rep; w 1 8; rep; w 7 0; rep; w 6 0; rep; w 5 0; rep
zop open 1; rep; zop open 7; rep; w 2 8; zop open 2; zop finish 2; zop reset 4; zop finish 4; zop close 1; w 1 16; rep
echo "-- transitions"; zop reset 3; zop close 3; zop open 3; zop close 3; rep; zop close 3; zop reset 3; rep
zop finish 3; rep; zop open 3; zop close 3; w 3 0; zop finish 3
zop reset 3; w 3 0 2048; rep; w 3 2048; w 3 0
echo "-- not at wp / past capacity"; zop reset 6; w 6 0; w 6 0; w 6 16; w 6 8 2048; w 6 2040 16

section "Z2 max_open=2 max_active=3"; DEV=nvme0n2
w 1 0; w 2 0; w 3 0; rep; w 4 0; rep; w 4 0; rep; w 1 8; w 2 8; rep; zop open 4; rep
zop finish 4; zop finish 1; w 5 0; rep

section "Z3 max_open=2 max_active=2"; DEV=nvme0n3
zop open 1; zop close 1; rep; zop open 2; w 3 0; zop open 1; w 3 0; rep; zop reset 1; w 3 0; rep
