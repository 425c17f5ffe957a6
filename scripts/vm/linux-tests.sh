#!/bin/sh
# Runs INSIDE the VM of scripts/vm/run.sh (busybox sh, root): sets up zoned devices and runs the
# real-kernel test binaries passed with --bin (every /bin/linux_vm-*: zonekit-dev's
# crates/zonekit-dev/tests/linux_vm.rs, the Linux backend, and zonekit-blk's
# crates/zonekit-blk/tests/linux_vm.rs, the block layer's differential against the kernel), one
# test per run of a binary (`--ignored --exact --test-threads=1`), timing each.
#
#   scripts/test.sh builds the binaries and boots both kernels; by hand:
#   cargo test -p zonekit-dev --test linux_vm --no-run          # prints the binary's path
#   scripts/vm/run.sh --kernel 6.12 --nvme-zns --bin target/debug/deps/linux_vm-HASH scripts/vm/linux-tests.sh
#
# Devices (all 64 MiB: 16 zones of 4 MiB, at most 4 open zones unless said):
#   /dev/zk0      null_blk (configfs), zone 0 conventional, memory_backed, max_active 8   ZONEKIT_TEST_NULLB
#   /dev/zkcap    the same with a 3 MiB zone capacity                   ZONEKIT_TEST_NULLB_ZCAP
#   /dev/zk4k     null_blk, 4 KiB logical blocks, max_open 6, no active limit   ZONEKIT_TEST_NULLB_4K
#   /dev/sdX      scsi_debug zbc=managed, zone 0 conventional           ZONEKIT_TEST_ZBC
#   /dev/nvmeXnY  QEMU NVMe ZNS (run.sh --nvme-zns), no conventional zone, max_active 8   ZONEKIT_TEST_ZNS
#
# Environment passed on the kernel command line (ZONEKIT_VM_APPEND): zonekit.seed=HEX replays a
# random differential (ZONEKIT_DIFF_SEED), zonekit.steps=N sets its steps per run,
# zonekit.only=LABEL[/memory|/persistent] runs one device's random runs (ZONEKIT_DIFF_ONLY),
# zonekit.verbose=1 logs every step, zonekit.test=NAME runs that test only (and skips the CLI
# comparison), zonekit.trace=1 prints the devices' queue attributes first and the kernel's block-layer
# and NVMe driver's trace events at the end, with each random step marked, zonekit.hog=N runs N
# busy loops beside the tests.
# With `zonekit.record=1` on the kernel command line (ZONEKIT_VM_APPEND=zonekit.record=1), the
# `record` test also saves raw zone reports and sysfs files, printed as a base64 tar.gz between
# ZONEKIT-RECORD-BEGIN / ZONEKIT-RECORD-END lines (see crates/zonekit-dev/testdata/linux/README.md).
# Exit status: 0 if every test passed, else a failing run's status.

set -u
bins=$(ls /bin/linux_vm-* 2>/dev/null)
[ -n "$bins" ] || { echo "linux-tests: no /bin/linux_vm-* (pass the test binaries with --bin)"; exit 2; }

modprobe null_blk nr_devices=0 || { echo "linux-tests: modprobe null_blk failed"; exit 2; }
mk_nullb() {   # mk_nullb NAME BLOCKSIZE ZONE_CAPACITY_MB MAX_OPEN MAX_ACTIVE
    nb=/sys/kernel/config/nullb/$1
    mkdir "$nb" || return 1
    # irqmode=2: completions come from a timer (2 ms after the command ran), as a drive's do, not
    # within the submission (see "What the differential needs of the devices" in README.md).
    for kv in size=64 blocksize=$2 memory_backed=1 zoned=1 zone_size=4 zone_capacity=$3 zone_nr_conv=1 \
              zone_max_open=$4 zone_max_active=$5 irqmode=2 completion_nsec=2000000 power=1; do
        echo "${kv#*=}" > "$nb/${kv%%=*}" || { echo "linux-tests: $1: setting $kv failed"; return 1; }
    done
    [ -b "/dev/$1" ] || { echo "linux-tests: /dev/$1 did not appear"; return 1; }
}
mk_nullb zk0 512 4 4 8 || exit 2
mk_nullb zkcap 512 3 4 8 || exit 2
mk_nullb zk4k 4096 4 6 0 || exit 2

modprobe scsi_debug zbc=managed dev_size_mb=64 zone_size_mb=4 zone_nr_conv=1 zone_max_open=4 ||
    { echo "linux-tests: modprobe scsi_debug failed"; exit 2; }
sd=""
i=0
while [ $i -lt 100 ] && [ -z "$sd" ]; do
    for d in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do
        [ -e "$d" ] && sd=$(basename "$d")
    done
    [ -n "$sd" ] || { sleep 0.1; i=$((i + 1)); }
done
[ -n "$sd" ] && [ -b "/dev/$sd" ] || { echo "linux-tests: no scsi_debug disk"; exit 2; }

modprobe nvme || { echo "linux-tests: modprobe nvme failed"; exit 2; }
zns=""
i=0
while [ $i -lt 100 ] && [ -z "$zns" ]; do
    for d in /sys/block/nvme*n*; do
        [ -e "$d/queue/zoned" ] && [ "$(cat "$d/queue/zoned")" = host-managed ] && zns=$(basename "$d")
    done
    [ -n "$zns" ] || { sleep 0.1; i=$((i + 1)); }
done
[ -n "$zns" ] && [ -b "/dev/$zns" ] || { echo "linux-tests: no NVMe ZNS namespace (run.sh --nvme-zns)"; exit 2; }

# Linux 6.10 and later order zone writes with zone write plugs and need no I/O scheduler: the
# lanes use none, which sends requests in the order they are made (mq-deadline may send the
# next zone's piece of a split write before the first zone's, by its position from the last
# dispatch). Earlier kernels order them with mq-deadline's zone write locking, one write at a
# time per zone: 6.1 gives it to null_blk and SCSI disks but leaves an NVMe namespace with none,
# which sends every piece of a split write at once (QEMU then finishes a zone's writes, and
# frees its open and active resources, in an order of its own), so the lanes give it to all.
case $(uname -r) in
    [0-5].* | 6.[0-9].* | 6.[0-9]-*) sched=mq-deadline ;;
    *) sched=none ;;
esac
for d in zk0 zkcap zk4k $sd $zns; do
    echo $sched > "/sys/block/$d/queue/scheduler" || { echo "linux-tests: $d: scheduler $sched failed"; exit 2; }
done
export ZONEKIT_TEST_NULLB=/dev/zk0 ZONEKIT_TEST_NULLB_ZCAP=/dev/zkcap ZONEKIT_TEST_NULLB_4K=/dev/zk4k
export ZONEKIT_TEST_ZBC=/dev/$sd ZONEKIT_TEST_ZNS=/dev/$zns
only_test="" trace=0 hog=0
for arg in $(cat /proc/cmdline); do
    case $arg in
        zonekit.seed=*) export ZONEKIT_DIFF_SEED=${arg#zonekit.seed=} ;;
        zonekit.steps=*) export ZONEKIT_DIFF_STEPS=${arg#zonekit.steps=} ;;
        zonekit.only=*) export ZONEKIT_DIFF_ONLY=${arg#zonekit.only=} ;;
        zonekit.verbose=1) export ZONEKIT_DIFF_VERBOSE=1 ;;
        zonekit.test=*) only_test=${arg#zonekit.test=} ;;
        zonekit.trace=1) trace=1 ;;
        zonekit.hog=*) hog=${arg#zonekit.hog=} ;;
    esac
done
if [ $trace = 1 ]; then
    # The block layer's events (requests issued and completed, splits, zone write plugs), with
    # the random differential's steps as markers; printed at the end.
    mount -t tracefs nodev /sys/kernel/tracing || { echo "linux-tests: mounting tracefs failed"; exit 2; }
    echo 16384 > /sys/kernel/tracing/buffer_size_kb
    for e in block_rq_issue block_rq_complete block_split block_bio_queue blk_zone_wplug_bio \
             disk_zone_wplug_add_bio blk_zone_append_update_request_bio; do
        [ -e "/sys/kernel/tracing/events/block/$e/enable" ] && echo 1 > "/sys/kernel/tracing/events/block/$e/enable"
    done
    # The commands the NVMe driver builds (with their submission queue) and completes, and the
    # requests' insertion into the I/O scheduler: in which order, from which CPU.
    for e in block/block_rq_insert nvme/nvme_setup_cmd nvme/nvme_complete_rq nvme/nvme_sq; do
        [ -e "/sys/kernel/tracing/events/$e/enable" ] && echo 1 > "/sys/kernel/tracing/events/$e/enable"
    done
    # The queue attributes that decide how a write is split and ordered.
    for d in zk0 zkcap zk4k $sd $zns; do
        q=/sys/block/$d/queue
        echo "linux-tests: queue $d: rotational=$(cat $q/rotational) max_sectors_kb=$(cat $q/max_sectors_kb)" \
            "max_hw_sectors_kb=$(cat $q/max_hw_sectors_kb) chunk_sectors=$(cat $q/chunk_sectors)" \
            "nr_requests=$(cat $q/nr_requests) scheduler=\"$(cat $q/scheduler)\" hw_queues=$(ls /sys/block/$d/mq | wc -l)"
    done
    export ZONEKIT_TRACE=1
fi
export ZONEKIT_TEST_REQUIRE=1 RUST_BACKTRACE=1
record=0
grep -q 'zonekit.record=1' /proc/cmdline && record=1
if [ $record = 1 ]; then
    export ZONEKIT_RECORD_DIR=/tmp/zonekit-record
    mkdir -p "$ZONEKIT_RECORD_DIR"
    {
        echo "kernel: $(uname -r) ($(cat /proc/version))"
        echo "null_blk: configfs, size=64 memory_backed=1 zoned=1 zone_size=4 zone_nr_conv=1, and"
        echo "  zk0:   blocksize=512  zone_capacity=4 zone_max_open=4 zone_max_active=8"
        echo "  zkcap: blocksize=512  zone_capacity=3 zone_max_open=4 zone_max_active=8"
        echo "  zk4k:  blocksize=4096 zone_capacity=4 zone_max_open=6 zone_max_active=0"
        echo "scsi_debug: zbc=managed dev_size_mb=64 zone_size_mb=4 zone_nr_conv=1 zone_max_open=4 (/dev/$sd)"
        echo "nvme: QEMU nvme-ns zoned=true zone_size=4M max_open=4 max_active=8, zasl=5 (/dev/$zns)"
    } > "$ZONEKIT_RECORD_DIR/PROVENANCE"
fi

echo "linux-tests: $(echo $bins) on zk0, zkcap, zk4k, $sd, $zns (kernel $(uname -r))"
# zonekit.hog=N: N busy loops compete with the tests for the CPUs, so that the writer is often
# preempted while it splits a write (6.1 then sends the next zone's piece later; docs/blk.md).
hogs=""
i=0
while [ $i -lt $hog ]; do
    sh -c 'while :; do :; done' &
    hogs="$hogs $!"
    i=$((i + 1))
done
[ -z "$hogs" ] || echo "linux-tests: $hog busy loops running"
uptime_s() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }'; }
start=$(uptime_s)
rc=0 summary="" passed=0 failed=0
for bin in $bins; do
    # One test per run of the binary (in the order the harness lists them), to time each.
    tests=$("$bin" --list --ignored 2>/dev/null | sed -n 's/: test$//p')
    [ -n "$tests" ] || { echo "linux-tests: $bin lists no tests"; exit 2; }
    for t in $tests; do
        [ -z "$only_test" ] || [ "$t" = "$only_test" ] || continue
        t0=$(uptime_s)
        "$bin" --ignored --exact --test-threads=1 --nocapture "$t"
        r=$?
        if [ $r = 0 ]; then passed=$((passed + 1)); res=PASS; else failed=$((failed + 1)); res=FAIL; rc=$r; fi
        summary="$summary
linux-tests: $res $(basename "$bin") $t ($(since "$t0") s)"
    done
done
echo "$summary"
echo "linux-tests: $passed passed, $failed failed in $(since "$start") s"
# shellcheck disable=SC2086
[ -z "$hogs" ] || kill $hogs

# The zonekit command against blkzone on the same devices: reports of the same state must be
# byte-identical, and management commands must leave the same state (with /bin/zonekit, passed
# with --bin target/debug/zonekit).
if [ -n "$only_test" ]; then
    echo "linux-tests: zonekit.test=$only_test: CLI comparison skipped"
elif [ -x /bin/zonekit ]; then
    zs=8192   # 4 MiB zones, in sectors
    cli_fail=0
    same() {  # same DEV LABEL: /tmp/a (blkzone) and /tmp/b (zonekit) must be identical
        if cmp -s /tmp/a /tmp/b; then
            echo "linux-tests: cli $1: $2: identical to blkzone ($(wc -l < /tmp/a) lines)"
        else
            echo "linux-tests: cli $1: $2: DIFFERS from blkzone"; diff /tmp/a /tmp/b | head -20; cli_fail=1
        fi
    }
    scenario() {  # scenario DEV TOOL...: the same zone commands through blkzone or zonekit
        d=$1; shift
        "$@" reset "$d" || return 1
        for z in 1 2 3; do
            dd if=/dev/zero of="$d" bs=4096 count=2 seek=$((z * zs / 8)) oflag=direct 2>/dev/null || return 1
        done
        "$@" open -o $((4 * zs)) -c 1 "$d" &&
        "$@" close -o $((1 * zs)) -c 1 "$d" &&
        "$@" finish -o $((2 * zs)) -c 2 "$d" &&
        "$@" reset -o $((3 * zs)) -c 1 "$d" &&
        "$@" finish -o $((5 * zs)) -l $((2 * zs)) "$d" &&
        "$@" open -o $((15 * zs)) "$d" || return 1
        # A reset of the conventional zone fails with both tools.
        if "$@" reset -o 0 -c 1 "$d" 2>/dev/null; then echo "linux-tests: cli $d: reset of zone 0 succeeded"; return 1; fi
        return 0
    }
    for d in /dev/zk0 /dev/zkcap /dev/zk4k /dev/$sd; do
        blkzone reset "$d"
        blkzone report "$d" > /tmp/a; /bin/zonekit zone report "$d" > /tmp/b; same "$d" "report (reset)"
        scenario "$d" blkzone || { echo "linux-tests: cli $d: blkzone scenario failed"; cli_fail=1; }
        blkzone report "$d" > /tmp/a; /bin/zonekit zone report "$d" > /tmp/b; same "$d" "report (after the blkzone scenario)"
        for r in "-c 3" "-o 16384 -c 2" "-o 20000 -l 8193" "-o 8192" "-o 122880"; do
            # shellcheck disable=SC2086
            blkzone report $r "$d" > /tmp/a; /bin/zonekit zone report $r "$d" > /tmp/b; same "$d" "report $r"
        done
        blkzone report "$d" > /tmp/by-blkzone
        scenario "$d" /bin/zonekit zone || { echo "linux-tests: cli $d: zonekit scenario failed"; cli_fail=1; }
        cp /tmp/by-blkzone /tmp/a; blkzone report "$d" > /tmp/b; same "$d" "state after the zonekit scenario"
        blkzone reset "$d"
    done
    if [ $cli_fail = 0 ]; then echo "linux-tests: PASS zonekit CLI vs blkzone"; else echo "linux-tests: FAIL zonekit CLI vs blkzone"; rc=1; fi
else
    echo "linux-tests: no /bin/zonekit, CLI comparison skipped"
fi

# zonefs both ways (with /bin/zonekit and run.sh --module zonefs): `zonekit mkfs` on a fresh
# null_blk device and `zonekit zone write` into one sequential file; the kernel's zonefs mounts
# it, reads zonekit's data, appends to and truncates files (sequential files with O_DIRECT,
# busybox dd with bs=4096: smaller blocks fall back to buffered I/O, which zonefs refuses on a
# sequential file); after the unmount, `zonekit fs ls|cat` must show what the kernel showed
# (`ls -lin`'s columns but the date, and every non-empty file's bytes) and what was written.
# Then a superblock with one byte changed: both the kernel's mount and zonekit refuse it, with
# the same two CRC values; the byte restored, both accept it again.
zonefs_check() {
    zk=/bin/zonekit dev=/dev/zkfs m=/mnt/zonefs t=/tmp/zonefs
    zf_fail=0
    bad() { echo "linux-tests: zonefs: FAIL: $*"; zf_fail=1; }
    ok() { echo "linux-tests: zonefs: ok: $*"; }
    modprobe zonefs || { bad "modprobe zonefs"; return 1; }
    # 16 zones of 1 MiB (small files to read back): zone 0 (the superblock) and zone 1 (cnv/0)
    # conventional, seq/0..13.
    nb=/sys/kernel/config/nullb/zkfs
    mkdir "$nb" || { bad "mkdir $nb"; return 1; }
    for kv in size=16 blocksize=512 memory_backed=1 zoned=1 zone_size=1 zone_nr_conv=2 \
              zone_max_open=4 zone_max_active=8 power=1; do
        echo "${kv#*=}" > "$nb/${kv%%=*}" || { bad "zkfs: setting $kv"; return 1; }
    done
    [ -b $dev ] || { bad "$dev did not appear"; return 1; }
    mkdir -p $m $t
    zs=2048
    dd if=/dev/urandom of=$t/data bs=4096 count=6 2>/dev/null
    $zk mkfs $dev --label zonekit-vm --uid 1000 --gid 100 --perm 600 > $t/mkfs.out ||
        { cat $t/mkfs.out; bad "zonekit mkfs $dev"; return 1; }
    # seq/4 (zone 6): 16 KiB written by zonekit, before the kernel's mount.
    dd if=$t/data of=$t/seq.4.want bs=4096 count=4 2>/dev/null
    $zk zone write $dev -o $((6 * zs)) -i $t/seq.4.want || { bad "zonekit zone write (seq/4)"; return 1; }
    mount -t zonefs $dev $m || { bad "mount -t zonefs of zonekit's volume"; return 1; }
    ok "the kernel mounts zonekit's volume ($(ls $m/seq | wc -l) sequential, $(ls $m/cnv | wc -l) conventional files)"
    # Linux 6.1's zonefs (Debian's 6.1.192) fails its own check on its first zone append: it
    # reports "Corrupted write pointer" with the append's position right (the zone start, where the
    # data lands) and goes read-only. Not the device: null_blk (request- and bio-based), scsi_debug
    # ZBC and QEMU's NVMe ZNS all show it (scripts/vm/README.md). So 6.1 checks all but the writes.
    kwrites=1 files="seq/4"
    case $(uname -r) in [0-5].* | 6.[0-9].* | 6.[0-9]-*) kwrites=0 ;; esac
    if [ $kwrites = 1 ]; then
        w() { /bin/dd "$@" bs=4096 conv=notrunc 2>$t/dd.err || { echo "linux-tests: zonefs: dd $*: $(tail -1 $t/dd.err)"; return 1; }; }
        # seq/0: two writes at the end of the file, then one O_APPEND write.
        w if=$t/data of=$m/seq/0 count=2 oflag=direct &&
            w if=$t/data of=$m/seq/0 skip=2 seek=2 count=3 oflag=direct &&
            w if=$t/data of=$m/seq/0 skip=5 count=1 oflag=direct,append || bad "kernel: appends to seq/0"
        cp $t/data $t/seq.0.want
        # seq/1: 16 KiB, truncated to 0 (a zone reset), then 4 KiB.
        w if=$t/data of=$m/seq/1 count=4 oflag=direct && truncate -s 0 $m/seq/1 &&
            w if=$t/data of=$m/seq/1 skip=5 count=1 oflag=direct || bad "kernel: write, truncate 0, write seq/1"
        dd if=$t/data of=$t/seq.1.want bs=4096 skip=5 count=1 2>/dev/null
        # seq/2: 8 KiB, truncated to the capacity (a zone finish): the rest reads as zeros.
        w if=$t/data of=$m/seq/2 count=2 oflag=direct && truncate -s 1048576 $m/seq/2 ||
            bad "kernel: write, truncate to the capacity seq/2"
        { dd if=$t/data bs=4096 count=2; dd if=/dev/zero bs=4096 count=254; } > $t/seq.2.want 2>/dev/null
        # seq/3: a write that breaks the rules (not at the end of the file) changes nothing.
        /bin/dd if=$t/data of=$m/seq/3 bs=4096 seek=1 count=1 oflag=direct conv=notrunc 2>/dev/null &&
            bad "kernel: a write ahead of seq/3's end succeeded"
        # cnv/0: a buffered 4 KiB write at 8 KiB.
        w if=$t/data of=$m/cnv/0 skip=3 seek=2 count=1 || bad "kernel: write to cnv/0"
        { dd if=/dev/zero bs=4096 count=2; dd if=$t/data bs=4096 skip=3 count=1; dd if=/dev/zero bs=4096 count=253; } \
            > $t/cnv.0.want 2>/dev/null
        files="cnv/0 seq/0 seq/1 seq/2 seq/4"
        [ $zf_fail = 1 ] || ok "the kernel appended to seq/0, truncated seq/1 to 0 and seq/2 to 1 MiB, refused a write ahead of seq/3's end, wrote cnv/0"
    else
        echo "linux-tests: zonefs: kernel $(uname -r): no writes through the kernel (its zonefs refuses its own zone appends)"
    fi
    # What the kernel shows: listings (inode, mode, links, uid, gid, size, name) and file bytes.
    lsk() { ls -lin "$1" | awk 'NF >= 7 { print $1, $2, $3, $4, $5, $6, $NF }' | sort; }
    lsz() { $zk fs ls $dev ${1:-} | awk '{ print $1, $2, $3, $4, $5, $6, $NF }' | sort; }
    lsk $m > $t/k.root; lsk $m/cnv > $t/k.cnv; lsk $m/seq > $t/k.seq
    for f in $files; do cat $m/$f > $t/k.$(echo $f | tr / .); done
    umount $m || { bad "umount"; return 1; }
    for d in root cnv seq; do
        p=$d; [ $d = root ] && p=
        lsz $p > $t/z.$d || bad "zonekit fs ls $dev $p"
        if cmp -s $t/k.$d $t/z.$d; then ok "zonekit fs ls ${p:-/}: as the kernel's ls -lin ($(wc -l < $t/z.$d) entries)"
        else bad "zonekit fs ls ${p:-/} differs from the kernel's ls -lin (< kernel, > zonekit)"; diff $t/k.$d $t/z.$d; fi
    done
    grep -q '^6 -rw------- 1 1000 100 16384 4$' $t/z.seq || bad "seq/4 is not 16384 bytes, mode 0600, owner 1000:100"
    if [ $kwrites = 1 ]; then
        grep -q '^2 -rw------- 1 1000 100 24576 0$' $t/z.seq || bad "seq/0 is not 24576 bytes"
        grep -q '^5 -rw------- 1 1000 100 0 3$' $t/z.seq || bad "seq/3 is not empty after a write ahead of its end"
    fi
    for f in $files; do
        n=$(echo $f | tr / .)
        $zk fs cat $dev $f > $t/z.$n || bad "zonekit fs cat $dev $f"
        if ! cmp -s $t/k.$n $t/z.$n; then bad "zonekit fs cat $f: not the bytes the kernel read"
        elif ! cmp -s $t/$n.want $t/z.$n; then bad "$f: not the bytes written"
        else ok "zonekit fs cat $f: the kernel's bytes, as written ($(wc -c < $t/z.$n) bytes)"; fi
    done
    # A broken checksum: the label's first byte changed ('z' -> 'Z').
    printf Z | dd of=$dev bs=1 seek=8 conv=notrunc,fsync 2>/dev/null
    kmounted=""
    if mount -t zonefs $dev $m 2>/dev/null; then umount $m; kmounted=1; bad "the kernel mounted a volume with a bad CRC"; fi
    # The kernel's reason ("Invalid checksum (Expected 0xCOMPUTED, got 0xSTORED)") reaches the
    # console but, in both kernels, not always `dmesg` by the time the mount has failed: its two
    # values are compared with zonekit's when it is there.
    kmsg=$(dmesg | grep 'zkfs.*checksum' | tail -1)
    zmsg=$($zk fs ls $dev 2>&1); zrc=$?
    # zonekit: "the block's CRC32 is 0xCOMPUTED, the superblock says 0xSTORED".
    kcrc=$(echo "$kmsg" | grep -o '0x[0-9a-f]*' | tr '\n' ' ')
    zcrc=$(echo "$zmsg" | grep -o '0x[0-9a-f]*' | tr '\n' ' ')
    if [ -n "$kmounted" ]; then
        :
    elif [ $zrc != 1 ] || ! echo "$zmsg" | grep -q 'bad superblock checksum'; then
        bad "bad CRC: the kernel refused it, zonekit (exit $zrc): \"$zmsg\""
    elif [ -n "$kcrc" ] && [ "$kcrc" != "$zcrc" ]; then
        bad "bad CRC: kernel \"$kmsg\", zonekit \"$zmsg\": not the same values"
    else
        ok "bad CRC: the kernel's mount fails${kcrc:+ (CRC values $kcrc as zonekit's)}; zonekit (exit 1): \"$zmsg\""
    fi
    printf z | dd of=$dev bs=1 seek=8 conv=notrunc,fsync 2>/dev/null
    if mount -t zonefs $dev $m && umount $m && $zk fs ls $dev > /dev/null; then ok "the byte restored, both accept the volume"
    else bad "the byte restored, the volume is still refused"; fi
    rm -rf $t
    return $zf_fail
}
if [ -n "$only_test" ] && [ "$only_test" != zonefs ]; then
    echo "linux-tests: zonekit.test=$only_test: zonefs check skipped"
elif [ -x /bin/zonekit ]; then
    t0=$(uptime_s)
    if zonefs_check; then echo "linux-tests: PASS zonefs: kernel and zonekit read each other's volume ($(since "$t0") s)"
    else echo "linux-tests: FAIL zonefs: kernel and zonekit read each other's volume ($(since "$t0") s)"; rc=1; fi
else
    echo "linux-tests: no /bin/zonekit, zonefs check skipped"
fi

if [ $trace = 1 ]; then
    echo "ZONEKIT-TRACE-BEGIN"
    cat /sys/kernel/tracing/trace
    echo "ZONEKIT-TRACE-END"
fi
if [ $record = 1 ]; then
    echo "ZONEKIT-RECORD-BEGIN"
    tar -C "$ZONEKIT_RECORD_DIR" -czf - . | base64
    echo "ZONEKIT-RECORD-END"
fi
exit $rc
