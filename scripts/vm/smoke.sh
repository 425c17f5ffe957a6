#!/bin/sh
# Smoke test for the zonekit VM lane; runs INSIDE the VM (busybox sh, root).
#   scripts/vm/run.sh scripts/vm/smoke.sh
# Creates a zoned null_blk device (configfs) and a host-managed scsi_debug
# device, prints their queue limits and zone reports, writes at / off the
# write pointer, and checks the basics. Exit status 0 = all checks passed.

failures=0
check() {   # check DESCRIPTION COMMAND...
    desc=$1; shift
    if "$@"; then echo "CHECK ok: $desc"; else echo "CHECK FAILED: $desc"; failures=$((failures + 1)); fi
}
section() { echo; echo "===== $* ====="; }

show_queue() {
    for f in zoned chunk_sectors nr_zones max_open_zones max_active_zones \
             logical_block_size physical_block_size zone_append_max_bytes; do
        echo "/sys/block/$1/queue/$f = $(cat "/sys/block/$1/queue/$f" 2>/dev/null)"
    done
}

# wptr (absolute, in 512 B sectors) and condition of the zone starting at $2
zone_line() { blkzone report -o "$2" -c 1 "/dev/$1" 2>&1 | head -1; }
zone_wp() {
    zone_line "$1" "$2" | sed -n 's/.*start: \(0x[0-9a-f]*\).*wptr \(0x[0-9a-f]*\).*/\1 \2/p' |
        { read -r s w && echo $((s + w)); }
}
zone_cond() { zone_line "$1" "$2" | sed -n 's/.*zcond: *\([0-9]*\).*/\1/p'; }

# dd_write DEV SECTOR BYTES: O_DIRECT write of BYTES at 512 B sector SECTOR
dd_write() {
    echo "+ dd if=/dev/urandom of=/dev/$1 bs=$3 count=1 seek=$(($2 * 512)) oflag=seek_bytes,direct"
    dd if=/dev/urandom of="/dev/$1" bs="$3" count=1 seek=$(($2 * 512)) oflag=seek_bytes,direct 2>&1
}

# exercise DEV ZONE_SECTORS: common checks on a host-managed device with
# zone 0 conventional and zone 1 sequential-write-required
exercise() {
    dev=$1 zs=$2
    section "$dev: sysfs"
    show_queue "$dev"
    check "$dev is host-managed" [ "$(cat /sys/block/$dev/queue/zoned)" = host-managed ]
    check "$dev has 16 zones" [ "$(cat /sys/block/$dev/queue/nr_zones)" = 16 ]
    check "$dev chunk_sectors = zone size ($zs)" [ "$(cat /sys/block/$dev/queue/chunk_sectors)" = "$zs" ]

    section "$dev: blkzone report"
    blkzone report "/dev/$dev"
    check "$dev reports 16 zones" [ "$(blkzone report /dev/$dev | grep -c 'start:')" = 16 ]

    section "$dev: write 8 KiB at the write pointer of zone 1 (sector $zs)"
    wp0=$(zone_wp "$dev" "$zs")
    dd_write "$dev" "$wp0" 8192; rc=$?
    check "$dev write at wp succeeds" [ "$rc" = 0 ]
    blkzone report -o 0 -c 3 "/dev/$dev"
    check "$dev wp advanced by 16 sectors" [ "$(zone_wp "$dev" "$zs")" = $((wp0 + 16)) ]
    check "$dev zone 1 is implicitly open (cond 2)" [ "$(zone_cond "$dev" "$zs")" = 2 ]

    section "$dev: errno behaviour"
    echo "-- rewrite the start of zone 1 (behind the wp):"
    dd_write "$dev" "$zs" 4096; rc=$?
    check "$dev write behind wp fails" [ "$rc" != 0 ]
    echo "-- write in the middle of empty zone 2 (ahead of the wp):"
    dd_write "$dev" $((2 * zs + 64)) 4096; rc=$?
    check "$dev write ahead of wp fails" [ "$rc" != 0 ]
    echo "-- write at an arbitrary offset in conventional zone 0:"
    dd_write "$dev" 64 4096; rc=$?
    check "$dev random write in conventional zone succeeds" [ "$rc" = 0 ]
    echo "-- blkzone reset of conventional zone 0:"
    echo "+ blkzone reset -o 0 -c 1 /dev/$dev"; blkzone reset -o 0 -c 1 "/dev/$dev"; echo "rc=$?"
    echo "-- blkzone finish / reset of zone 1:"
    blkzone finish -o "$zs" -c 1 "/dev/$dev" && zone_line "$dev" "$zs"
    blkzone reset -o "$zs" -c 1 "/dev/$dev" && zone_line "$dev" "$zs"
    check "$dev zone 1 empty after reset (cond 1)" [ "$(zone_cond "$dev" "$zs")" = 1 ]
}

echo "kernel $(uname -r); modules preloaded:"
lsmod | sed 's/^/  /'

# ---------------------------------------------------------------- null_blk
section "null_blk: create via configfs"
modprobe null_blk nr_devices=0 || insmod "$(find /lib/modules -name null_blk.ko)" nr_devices=0
nb=/sys/kernel/config/nullb/zk0
mkdir "$nb"
# 64 MiB, 4 MiB zones -> 16 zones, zone 0 conventional
for kv in size=64 blocksize=512 memory_backed=1 zoned=1 zone_size=4 zone_nr_conv=1 \
          zone_max_open=4 zone_max_active=8 power=1; do
    echo "${kv#*=}" > "$nb/${kv%%=*}" || echo "setting $kv failed"
done
# 6.1 names the disk after the configfs item (older kernels: nullb<index>)
nbdev=zk0
[ -b /dev/$nbdev ] || nbdev=nullb$(cat "$nb/index")
check "null_blk device /dev/$nbdev exists" [ -b "/dev/$nbdev" ]
[ -b "/dev/$nbdev" ] && exercise "$nbdev" 8192

# ---------------------------------------------------------------- scsi_debug
section "scsi_debug: modprobe zbc=managed"
echo "+ modprobe scsi_debug zbc=managed dev_size_mb=64 zone_size_mb=4 zone_nr_conv=1 zone_max_open=4"
modprobe scsi_debug zbc=managed dev_size_mb=64 zone_size_mb=4 zone_nr_conv=1 zone_max_open=4
sddev=""
i=0
while [ $i -lt 100 ] && [ -z "$sddev" ]; do
    for d in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do
        [ -e "$d" ] && sddev=$(basename "$d")
    done
    [ -n "$sddev" ] || { sleep 0.1; i=$((i + 1)); }
done
check "scsi_debug disk appeared" [ -n "$sddev" ]
if [ -n "$sddev" ]; then
    echo "scsi_debug disk: /dev/$sddev ($(cat /sys/block/$sddev/device/vendor) $(cat /sys/block/$sddev/device/model))"
    exercise "$sddev" 8192
fi

section "kernel messages (dmesg, last 40 lines)"
dmesg | tail -40

section "summary"
echo "smoke: $failures check(s) failed"
[ "$failures" -eq 0 ]
