#!/usr/bin/env bash
# zonemode=zbd (and strided) side by side with fio 3.33: the same size-bounded jobs, with the same
# seed, on the same regular file with emulated zones. Prints, per job, the I/Os each tool issued
# (read/write/trim) and the zone resets it counted, and whether they agree as the CI test
# (crates/zonekit/tests/zbd_vs_fio.rs, with the jobs of crates/zonekit/testdata/zbd-vs-fio.txt)
# requires: identical I/O counts, zone resets within 10 % (fio's random offsets differ from
# zonekit's until the second fio-compatibility round).
#
# Usage: bench/zbd-vs-fio.sh [FILE]      (default /dev/shm/zonekit-zbd-vs-fio.img, 1 GiB, made here)
# Needs: fio (apt-get install fio), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:-/dev/shm/zonekit-zbd-vs-fio.img}
command -v fio >/dev/null || { echo "needs fio (apt-get install fio)" >&2; exit 2; }
cargo build --release -q -p zonekit
zk=${CARGO_TARGET_DIR:-target}/release/zonekit
[[ -f $file ]] || truncate -s 1G "$file"

# The jobs of the CI test, one per line.
mapfile -t cases < <(grep -v '^[[:space:]]*\(#\|$\)' crates/zonekit/testdata/zbd-vs-fio.txt)

# One run: prints "READS/WRITES/TRIMS RESETS" summed over the job blocks of the normal output. The
# file and the seed come first, as global options, so that they apply to every job of a case.
one() {
    local prog=("$1"); shift
    [[ ${prog[0]} == "$zk" ]] && prog+=(bench)
    "${prog[@]}" --filename="$file" --randseed=42 "$@" | python3 -c '
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
    read -r zi zr < <(one "$zk" $c)
    tol=$(( fr / 10 ))
    diff=$(( fr > zr ? fr - zr : zr - fr ))
    if [[ $fi == "$zi" && $diff -le $tol ]]; then ok=yes; else ok=NO; bad=1; fi
    printf '%14s %14s %7d %7d %5s  %s\n' "$fi" "$zi" "$fr" "$zr" "$ok" "$c"
done
exit $bad
