#!/usr/bin/env bash
# zonemode=zbd (and strided) side by side with fio 3.33: the same size-bounded jobs, with the same
# seed, on the same regular file with emulated zones. Prints, per job, the I/Os each tool issued
# (read/write/trim) and the zone resets it counted, and whether they agree as the CI test
# (crates/zonekit/tests/zbd_vs_fio.rs) requires: identical I/O counts, zone resets within 10 %
# (fio's random offsets differ from zonekit's until the second fio-compatibility round).
#
# Usage: bench/zbd-vs-fio.sh [FILE]      (default /dev/shm/zonekit-zbd-vs-fio.img, 1 GiB, made here)
# Needs: fio (apt-get install fio), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:-/dev/shm/zonekit-zbd-vs-fio.img}
command -v fio >/dev/null || { echo "needs fio (apt-get install fio)" >&2; exit 2; }
cargo build --release -q -p zonekit
zk=target/release/zonekit
[[ -f $file ]] || truncate -s 1G "$file"

z="--name=z --zonemode=zbd --zonesize=64M"
cases=(
    "$z --size=512M --rw=write --bs=128k --io_size=1G"
    "$z --size=512M --rw=randwrite --bs=4k --max_open_zones=8 --io_size=1G"
    "$z --size=512M --rw=randwrite --bs=16k --numjobs=4 --io_size=512M --group_reporting --max_open_zones=4 --ioengine=libaio --iodepth=8"
    "$z --size=256M --rw=randwrite --bs=64k --io_size=2G --zone_reset_frequency=0.25 --zone_reset_threshold=0.5"
    "$z --size=256M --rw=randread --bs=64k --read_beyond_wp=1"
    "$z --size=256M --rw=randread --bs=64k"
    "$z --zonecapacity=48M --size=512M --rw=write --bs=64k --io_size=1G"
    "$z --size=256M --rw=randwrite --bs=48k --io_size=512M"
    "$z --offset=1M --size=200M --rw=write --bs=1M"
    "--name=s --zonemode=strided --zonesize=1M --zonerange=8M --zoneskip=2M --size=256M --rw=read --bs=64k"
    "--name=s --zonemode=strided --zonesize=2M --zonerange=4M --size=64M --rw=randread --bs=4k"
)

# One run: prints "READS,WRITES,TRIMS RESETS" summed over the job blocks of the normal output.
one() {
    "$@" --filename="$file" --randseed=42 | python3 -c '
import re, sys
ios, resets = [0, 0, 0], 0
for line in sys.stdin:
    m = re.search(r"issued rwts: total=(\d+),(\d+),(\d+)", line)
    if m:
        ios = [a + int(b) for a, b in zip(ios, m.groups())]
    m = re.search(r"; (\d+) zone resets", line)
    if m:
        resets += int(m.group(1))
print("%d/%d/%d" % tuple(ios), resets)'
}

printf '%14s %14s %7s %7s %5s  %s\n' "fio r/w/t" "zonekit r/w/t" "fio zr" "zk zr" agree job
bad=0
for c in "${cases[@]}"; do
    # shellcheck disable=SC2086
    read -r fi fr < <(one fio $c)
    # shellcheck disable=SC2086
    read -r zi zr < <(one "$zk" bench $c)
    tol=$(( fr / 10 ))
    diff=$(( fr > zr ? fr - zr : zr - fr ))
    if [[ $fi == "$zi" && $diff -le $tol ]]; then ok=yes; else ok=NO; bad=1; fi
    printf '%14s %14s %7d %7d %5s  %s\n' "$fi" "$zi" "$fr" "$zr" "$ok" "$c"
done
exit $bad
