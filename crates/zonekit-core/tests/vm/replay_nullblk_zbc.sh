#!/bin/sh
# Replays the scenarios of ../../testdata/{nullblk,zbc}_*.txt on the kernel's own null_blk and
# scsi_debug, inside the project's VM (Debian 12, Linux 6.1):
#
#   scripts/vm/run.sh --log /tmp/replay.log crates/zonekit-core/tests/vm/replay_nullblk_zbc.sh
#
# It prints each operation's result (ok or the errno's text) and, after `rep`, every zone not
# empty as zN:COND+WP (WP relative to the zone start), to be compared by hand with the tables:
# zone N here is zone N there, 8 sectors there are 8 sectors here, and the capacity of 48 there is
# 2048 here. Not run by cargo.
ZS=4096
DEV=
w() { # w ZONE OFFSET [SECTORS]
    n=${3:-8}
    out=$(dd if=/dev/zero of=/dev/$DEV bs=$((n * 512)) count=1 seek=$(( ($1 * ZS + $2) * 512 )) oflag=seek_bytes,direct 2>&1)
    rc=$?
    if [ $rc = 0 ]; then r=ok; else r=$(echo "$out" | sed -n "s/.*error writing[^:]*: \(.*\)/\1/p" | head -1); fi
    echo "write z$1 +$2 n=$n: $r"
}
zop() { # zop OP ZONE
    out=$(blkzone "$1" -o $(( $2 * ZS )) -c 1 /dev/$DEV 2>&1); rc=$?
    if [ $rc = 0 ]; then r=ok; else r=$(echo "$out" | sed -n 's/.*ioctl failed: \(.*\)/\1/p'); fi
    echo "$1 z$2: $r"
}
rep() {
    line=""
    for t in $(blkzone report /dev/$DEV | sed -n 's/.*start: \(0x[0-9a-f]*\).*wptr \(0x[0-9a-f]*\).*zcond: *[0-9]*(\([a-z]*\)).*/\1:\2:\3/p'); do
        st=${t%%:*}; rest=${t#*:}; wp=${rest%%:*}; c=${rest#*:}
        case $c in em|nw) ;; *) line="$line z$((st / ZS)):$c+$((wp))" ;; esac
    done
    echo "report:$line"
}
section() { echo; echo "===== $* ====="; }

mk_nullb() { # mk_nullb NAME key=val...
    nb=/sys/kernel/config/nullb/$1; shift
    mkdir "$nb"
    for kv in size=32 blocksize=512 memory_backed=1 zoned=1 zone_size=2 zone_nr_conv=1 "$@" power=1; do
        echo "${kv#*=}" > "$nb/${kv%%=*}" || echo "setting $kv failed"
    done
}
rm_nullb() { echo 0 > /sys/kernel/config/nullb/$1/power; rmdir /sys/kernel/config/nullb/$1; }

modprobe null_blk nr_devices=0
echo "configfs features: $(cat /sys/kernel/config/nullb/features)"

section "N1 null_blk max_open=2 max_active=3 cap=1M (2048 sectors) of 2M zones"
mk_nullb n1 zone_capacity=1 zone_max_open=2 zone_max_active=3
DEV=n1; ls /dev/n1 >/dev/null 2>&1 || DEV=nullb$(cat /sys/kernel/config/nullb/n1/index)
w 1 0; w 2 0; w 3 0; rep
w 4 0; zop open 4; zop finish 4
w 1 8; zop open 1; zop finish 1; rep
zop close 2; w 1 8; w 4 0; zop finish 2; zop reset 2; zop finish 4; rep
w 2 0; rep
if [ -e /sys/kernel/config/nullb/n1/zone_readonly ]; then
    echo $((3 * ZS)) > /sys/kernel/config/nullb/n1/zone_readonly; echo "set-cond z3 ro: rc=$?"; rep
    zop reset 1; w 1 0; w 6 0; rep
    echo $((3 * ZS)) > /sys/kernel/config/nullb/n1/zone_readonly; echo "set-cond z3 ro again: rc=$?"; rep
    w 6 0
else echo "no zone_readonly attribute"; fi
rm_nullb n1

section "N2 null_blk max_open=2 round robin"
mk_nullb n2 zone_capacity=1 zone_max_open=2
DEV=n2; ls /dev/n2 >/dev/null 2>&1 || DEV=nullb$(cat /sys/kernel/config/nullb/n2/index)
w 1 0; w 2 0; w 3 0; rep; w 4 0; rep; w 1 8; rep; w 7 0; rep; w 6 0; rep; w 5 0; rep
w 2 8; rep; zop close 6; zop reset 3; w 3 0; w 4 8; rep
zop open 7; zop open 6; rep; w 1 16; zop open 1; zop finish 1; zop reset 1; zop finish 1; rep
zop close 7; zop finish 1; w 2 16; zop finish 5; rep
echo "-- finish of a FULL zone written to capacity (cap 2048 < len 4096):"
zop reset 3; w 3 0 2048; rep; zop finish 3; rep
echo "-- close EMPTY, open FULL:"; zop close 4; zop reset 4; zop close 4; zop open 3
rm_nullb n2

section "N3 null_blk no limits: finish of FULL-by-write zone"
mk_nullb n3 zone_capacity=1
DEV=n3; ls /dev/n3 >/dev/null 2>&1 || DEV=nullb$(cat /sys/kernel/config/nullb/n3/index)
w 3 0 2048; rep; zop finish 3; rep
zop open 4; zop close 4; rep
rm_nullb n3

section "S1 scsi_debug zbc=managed 2M zones, cap 1M, max_open=2"
modprobe scsi_debug zbc=managed dev_size_mb=16 zone_size_mb=2 zone_cap_mb=1 zone_nr_conv=1 zone_max_open=2
DEV=""; i=0
while [ $i -lt 100 ] && [ -z "$DEV" ]; do
    for d in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do [ -e "$d" ] && DEV=$(basename "$d"); done
    [ -n "$DEV" ] || { sleep 0.1; i=$((i + 1)); }
done
echo "dev=$DEV max_open=$(cat /sys/block/$DEV/queue/max_open_zones) max_active=$(cat /sys/block/$DEV/queue/max_active_zones) nr_zones=$(cat /sys/block/$DEV/queue/nr_zones)"
blkzone report -c 3 /dev/$DEV
w 1 0; w 2 0; w 3 0; rep; w 4 0; rep; w 1 8; rep; w 7 0; rep; zop close 4; w 1 16; w 5 0; rep
zop open 6; rep; zop open 7; rep; w 1 24; zop open 1; zop finish 1; zop reset 2; zop finish 2; zop open 2; zop close 2; rep
zop close 6; rep; w 6 0; rep
echo "-- transitions:"; zop close 3; zop reset 3; zop close 3; rep; zop finish 3; rep; zop open 3; zop close 3; w 3 0
echo "-- past capacity / into the gap / full:"; zop reset 3; w 3 0 2048; rep; w 3 2048; w 3 0; w 5 2040 16; w 5 2048; w 5 16; w 5 4088 16
echo "-- conventional:"; zop open 0; zop reset 0; w 0 4088 16
echo "-- open empty, close -> empty:"; zop reset 4; zop open 4; rep; zop close 4; rep

section "dmesg tail"
dmesg | grep -v "I/O error\|critical target\|FAILED Result\|Sense Key\|Add. Sense\|CDB:" | tail -15
