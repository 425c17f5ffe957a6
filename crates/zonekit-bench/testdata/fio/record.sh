#!/bin/sh
# Records real fio 3.33 outputs for zonekit-bench's statistics and output tests.
# Each case runs fio once with --output-format=json+,normal,terse (fio prints the terse
# lines first, then the JSON document, then the normal report) and stores stdout as
# <case>.out, plus the command as <case>.cmd. Run from this directory:
#   sh record.sh            # all cases
#   sh record.sh <case>...  # some
# Data files go to /dev/shm (tmpfs: no disk stats) and $DISKDIR (a block-device file
# system, default /var/tmp/zk-fio: disk stats present).
set -eu
SHM=/dev/shm/zk-fio
DISKDIR=${DISKDIR:-/var/tmp/zk-fio}
mkdir -p "$SHM" "$DISKDIR"
F="--output-format=json+,normal,terse"

run() {
    name=$1; shift
    echo "fio $*" > "$name.cmd"
    rc=0; fio "$@" > "$name.out" || rc=$?
    echo "rc=$rc" >> "$name.cmd"
    echo "recorded $name"
}

want() {
    [ -z "$CASES" ] && return 0
    for c in $CASES; do [ "$c" = "$1" ] && return 0; done
    return 1
}
CASES="$*"

want psync-randwrite && run psync-randwrite --name=pw --filename=$SHM/a.img --size=256M \
    --rw=randwrite --bs=4k --ioengine=psync --time_based --runtime=2 $F
want iouring-randread && run iouring-randread --name=ur --filename=$SHM/a.img --size=256M \
    --rw=randread --bs=4k --ioengine=io_uring --iodepth=16 --direct=1 --time_based --runtime=2 $F
want null-tiny && run null-tiny --name=nul --ioengine=null --size=2G --rw=randread --bs=4k $F
want large-lat && run large-lat --name=big --filename=$DISKDIR/big.img --size=512M --rw=write \
    --bs=8M --direct=1 --ioengine=psync --lat_percentiles=1 $F
want huge-lat && run huge-lat --name=huge --filename=$DISKDIR/big.img --size=1G --rw=write \
    --bs=8M --direct=1 --ioengine=io_uring --iodepth=64 $F
want custom-plist && run custom-plist --name=pl --filename=$SHM/a.img --size=128M --rw=randread \
    --bs=4k --ioengine=psync --percentile_list=1:25:50:75:90:99:99.5:99.9:99.99:99.999:100 $F
want randrw-group && run randrw-group --name=mix --filename=$SHM/a.img --size=64M --rw=randrw \
    --rwmixread=70 --bs=4k --ioengine=io_uring --iodepth=4 --numjobs=2 --group_reporting \
    --time_based --runtime=2 $F
want numjobs-separate && run numjobs-separate --name=sep --filename=$SHM/a.img --size=32M \
    --rw=read --bsrange=4k-64k --ioengine=psync --numjobs=2 $F
want fsync && run fsync --name=fs --filename=$DISKDIR/fs.img --size=8M --rw=write --bs=4k \
    --ioengine=psync --fsync=32 $F
want slat-pct && run slat-pct --name=sp --filename=$SHM/a.img --size=128M --rw=randwrite --bs=16k \
    --ioengine=io_uring --iodepth=8 --slat_percentiles=1 --clat_percentiles=0 --lat_percentiles=1 $F
want jobfile && ZK_FILE=$SHM/a.img run jobfile jobfile.fio $F
want trim && run trim --name=tr --filename=$SHM/t.img --size=32M --rw=randtrim --bs=64k \
    --ioengine=psync --percentile_list=50:99 $F
want errors && run errors --name=ce --filename=$SHM/t.img --size=1M --rw=randtrim --bs=64k \
    --ioengine=psync --continue_on_error=all $F
want bits && run bits --name=bits --filename=$SHM/a.img --size=64M --rw=write --bs=128k \
    --ioengine=psync --unit_base=1 --kb_base=1000 $F
# unified_rw_reporting: mixed (one "mixed" direction, with group_reporting) and both (the
# directions, then "mixed"; two jobs so the group's MIXED line spans them), with bw samples.
want unified-mixed && run unified-mixed --name=um --filename=$SHM/a.img --size=64M --rw=randrw \
    --bs=4k --ioengine=psync --time_based --runtime=1 --rate_iops=2000 --numjobs=2 \
    --group_reporting --unified_rw_reporting=mixed $F
want unified-both && run unified-both --name=ub --filename=$SHM/a.img --size=64M --rw=randrw \
    --bs=4k --ioengine=psync --time_based --runtime=1 --rate_iops=2000,1000 --numjobs=2 \
    --unified_rw_reporting=both $F
# Small and round sample counts, where p/100*N is an integer in decimal but not in binary
# (fio compares in long double): 20 and 1000 I/Os.
want small-n && run small-n --name=sn --filename=$SHM/a.img --size=80k --rw=randread --bs=4k \
    --ioengine=psync --percentile_list=5:10:15:20:25:30:35:40:45:50:55:60:65:70:75:80:85:90:95:100 $F
# cmdprio: per-priority latencies (two priorities, clat; three with cmdprio_bssplit, lat, libaio).
want cmdprio && run cmdprio --name=cp --filename=$SHM/c.img --size=16M --rw=randrw --bs=4k \
    --ioengine=io_uring --iodepth=4 --cmdprio_percentage=30 $F
want cmdprio-bssplit && run cmdprio-bssplit --name=cb --filename=$SHM/c.img --size=16M --rw=randread \
    --bssplit=4k/50:8k/50 --ioengine=libaio --iodepth=4 --lat_percentiles=1 \
    --cmdprio_bssplit=4k/50/1/3:8k/20/2/5:8k/30 $F
want n1000 && run n1000 --name=k --filename=$SHM/a.img --size=4000k --rw=randwrite --bs=4k \
    --ioengine=io_uring --iodepth=2 --lat_percentiles=1 --slat_percentiles=1 \
    --percentile_list=0.1:1:10:30:60:70:90:99:99.8:99.9:99.99:100 $F
# --idle-prof: the CPU idleness block after the report (percpu on tmpfs; system after disk stats).
want idle-percpu && run idle-percpu --name=ip --filename=$SHM/a.img --size=16M --rw=randread --bs=4k \
    --ioengine=psync --idle-prof=percpu $F
want idle-system && run idle-system --name=is --filename=$DISKDIR/i.img --size=16M --rw=write --bs=64k \
    --ioengine=psync --idle-prof=system $F
# Log files: per-I/O logs (log_avg_msec=0) and averaged ones, written into logs-<case>/.
if want logs-unit; then
    mkdir -p logs-unit && (cd logs-unit && rm -f ./*.log && run ../logs-unit --name=lu \
        --filename=$SHM/a.img --size=4M --rw=randrw --bs=4k --ioengine=psync \
        --write_bw_log=lu --write_lat_log=lu --write_iops_log=lu --log_offset=1 $F)
fi
if want logs-uring; then
    mkdir -p logs-uring && (cd logs-uring && rm -f ./*.log && run ../logs-uring --name=lq \
        --filename=$SHM/a.img --size=2M --rw=randwrite --bs=4k --ioengine=io_uring --iodepth=4 \
        --write_bw_log=lq --write_lat_log=lq --write_iops_log=lq $F)
fi
if want logs-avg; then
    mkdir -p logs-avg && (cd logs-avg && rm -f ./*.log && run ../logs-avg --name=la \
        --filename=$SHM/a.img --size=256M --rw=randrw --bs=4k --ioengine=psync --time_based \
        --runtime=1 --rate_iops=2000 --write_bw_log=la --write_lat_log=la --write_iops_log=la \
        --log_avg_msec=100 $F)
fi
# The live status line: fio prints it with --eta=always, one line per update with --eta-newline.
if want eta; then
    echo "fio --name=eta ... --eta=always --eta-newline=1" > eta.cmd
    fio --name=eta --filename=$SHM/a.img --size=256M --rw=randrw --bs=4k --ioengine=psync \
        --time_based --runtime=3 --rate_iops=3000,1000 --eta=always --eta-newline=1 \
        --output-format=normal > eta.out || true
fi
