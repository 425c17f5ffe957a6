#!/usr/bin/env bash
# Zone tools on the biggest profiles: wall time of a full report to /dev/null, and the peak memory
# (max RSS) of `dev info`. Targets (issue "Foundation"): full 15 TB report < 0.2 s, dev info < 16 MiB.
# Not part of CI. Usage: bench/zone-report.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
cargo build --release -q -p zonekit
Z=${CARGO_TARGET_DIR:-target}/release/zonekit
[[ -x /usr/bin/time ]] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 2; }

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

report_time() { # $1 = profile, $2 = format
    for _ in $(seq "$runs"); do
        /usr/bin/time -f "%e" "$Z" zone report "@$1" --format "$2" 2>&1 >/dev/null | tail -1
    done | median
}

rss_kib() { /usr/bin/time -f "%M" "$Z" "$@" 2>&1 >/dev/null | tail -1; }

printf '%-40s %10s %10s\n' "measurement" "median" "target"
for p in smr-hm-15tb smr-hm-30tb; do
    for f in blkzone zbc json; do
        printf '%-40s %9ss %10s\n' "report @$p --format $f" "$(report_time "$p" "$f")" \
            "$([[ $p == smr-hm-15tb && $f == blkzone ]] && echo '< 0.2 s' || echo '-')"
    done
done
for p in smr-hm-15tb smr-hm-30tb zns-zn540; do
    printf '%-40s %7s KiB %10s\n' "dev info @$p (max RSS)" "$(rss_kib dev info "@$p")" \
        "$([[ $p == smr-hm-15tb ]] && echo '< 16 MiB' || echo '-')"
done
