#!/usr/bin/env bash
# Run a test script inside a QEMU (TCG) VM that boots a Debian 12 kernel (6.1, or 6.12 from
# bookworm-backports), so that the Linux zoned-block backend can be tested against real kernel
# zoned devices (null_blk, scsi_debug ZBC, a QEMU NVMe ZNS namespace) on hosts without zoned support.
#
# Usage: scripts/vm/run.sh [--kernel 6.1|6.12] [--nvme-zns] [--bin PATH]... [--module NAME]... [--log FILE] TEST_SCRIPT
#
#   --kernel SERIES the kernel series to boot: 6.1 (Debian 12's own, the default) or 6.12
#                   (bookworm-backports, fetched through a private apt configuration); the lane
#                   never boots another series than the one asked for
#   --nvme-zns      add a QEMU NVMe controller with one zoned namespace (16 zones of 4 MiB,
#                   max_open 4, max_active 8, zone append limit 128 KiB) and ship the nvme module
#   --bin PATH      copy PATH into the VM as /bin/<basename> (plus the shared
#                   libraries ldd lists for it, at the same paths); repeatable
#   --module NAME   also ship kernel module NAME (and its dependencies) so the
#                   test can `modprobe NAME ...`; repeatable
#   --log FILE      also write the console output (CRs stripped) to FILE
#   TEST_SCRIPT     copied to /test.sh and run with busybox sh as root
#
# The exit status is the test script's exit status, read from the console
# marker line `ZONEKIT-VM-EXIT=<n>`; 124 if the VM timed out, 125 if the
# marker is missing (e.g. kernel panic), 2 on usage/setup errors.
# The script runs under busybox ash, which is built with FEATURE_SH_STANDALONE:
# a command named like a busybox applet (dd, ...) runs the applet even if
# --bin put a binary of that name in /bin; call such binaries as /bin/NAME.
#
# Environment:
#   ZONEKIT_VM_KERNEL   the kernel series when --kernel is not given (default 6.1)
#   ZONEKIT_VM_CACHE    cache dir (default $HOME/.cache/zonekit-vm)
#   ZONEKIT_VM_TIMEOUT  seconds before the VM is killed (default 300)
#   ZONEKIT_VM_MEM      guest memory in MiB (default 1024)
#   ZONEKIT_VM_SMP      guest CPUs (default 2)
#   ZONEKIT_VM_APPEND   extra kernel command-line arguments
#   ZONEKIT_VM_BZIMAGE  1 = boot the compressed vmlinuz instead of the
#                       host-unpacked vmlinux (PVH entry; ~7 s faster)
#
# Inside the VM: /init mounts proc, sys, devtmpfs, configfs and /tmp, and
# insmods the support modules (configfs, scsi_mod, sd_mod, t10-pi and the CRC
# modules). null_blk, scsi_debug (and nvme with --nvme-zns) are shipped but NOT
# loaded, because their zoned parameters can only be given at load time; the
# test script loads them with `modprobe null_blk ...` /
# `modprobe scsi_debug zbc=managed ...` / `modprobe nvme`.
set -euo pipefail

log() { printf 'zonekit-vm: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 2; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

usage() { sed -n '6,/^# Inside the VM/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; }

bins=()
extra_modules=()
log_file=""
series="${ZONEKIT_VM_KERNEL:-6.1}"
nvme_zns=0
while [ $# -gt 0 ]; do
    case "$1" in
        --kernel) [ $# -ge 2 ] || usage; series="$2"; shift 2 ;;
        --kernel=*) series="${1#--kernel=}"; shift ;;
        --nvme-zns) nvme_zns=1; shift ;;
        --bin) [ $# -ge 2 ] || usage; bins+=("$2"); shift 2 ;;
        --bin=*) bins+=("${1#--bin=}"); shift ;;
        --module) [ $# -ge 2 ] || usage; extra_modules+=("$2"); shift 2 ;;
        --module=*) extra_modules+=("${1#--module=}"); shift ;;
        --log) [ $# -ge 2 ] || usage; log_file="$2"; shift 2 ;;
        --log=*) log_file="${1#--log=}"; shift ;;
        -h|--help) usage ;;
        --) shift; break ;;
        -*) die "unknown option $1" ;;
        *) break ;;
    esac
done
[ $# -eq 1 ] || usage
test_script="$1"
[ -f "$test_script" ] || die "test script not found: $test_script"
for b in ${bins[@]+"${bins[@]}"}; do [ -f "$b" ] || die "--bin not found: $b"; done
case "$series" in
    6.1) kpkg_re='linux-image-6\.1\.0-[0-9]+-amd64' ;;
    6.12) kpkg_re='linux-image-6\.12\.[0-9]+\+deb12-amd64' ;;
    *) die "--kernel must be 6.1 or 6.12, not '$series'" ;;
esac

cache="${ZONEKIT_VM_CACHE:-$HOME/.cache/zonekit-vm}"
timeout_s="${ZONEKIT_VM_TIMEOUT:-300}"
mem="${ZONEKIT_VM_MEM:-1024}"
smp="${ZONEKIT_VM_SMP:-2}"

# Modules that /init loads (with their dependencies, in dependency order).
# crct10dif_generic / crc64_rocksoft_generic are the crypto back ends that
# crc-t10dif / crc64-rocksoft ask for with request_module (softdeps).
preload_modules=(configfs crct10dif_generic crc64_rocksoft_generic sd_mod)
# Modules that are shipped but left for the test script to load with parameters.
ship_modules=(null_blk scsi_debug ${extra_modules[@]+"${extra_modules[@]}"})
[ "$nvme_zns" -eq 0 ] || ship_modules+=(nvme)

t_start=$(now)
mkdir -p "$cache"

# --- 1. host tools ----------------------------------------------------------
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else "$@"; fi; }
apt_updated=0
apt_update() {
    [ "$apt_updated" -eq 0 ] || return 0
    apt_updated=1
    as_root apt-get update -qq >/dev/null 2>&1 || log "warning: apt-get update failed"
}
apt_install() {
    log "installing $*"
    export DEBIAN_FRONTEND=noninteractive
    if ! as_root apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1; then
        apt_update
        as_root apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1 ||
            die "apt-get install $* failed"
    fi
}
missing=()
command -v qemu-system-x86_64 >/dev/null || missing+=(qemu-system-x86)
# The busybox package also ships /bin/busybox but linked dynamically; we need the static one.
dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q 'ok installed' || missing+=(busybox-static)
command -v cpio >/dev/null || missing+=(cpio)
command -v xz >/dev/null || missing+=(xz-utils)
[ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
busybox=/bin/busybox
blkzone=$(command -v blkzone || echo /usr/sbin/blkzone)
[ -x "$blkzone" ] || die "blkzone not found (package util-linux)"

# --- 2. kernel: resolve via linux-image-amd64, download, extract (cached) ----
# 6.1 comes from the host's own apt sources (bookworm, bookworm-security). 6.12 comes from
# bookworm-backports through a private apt configuration in $cache/apt-backports (its own
# sources.list naming the host's Debian mirror, its own package lists and cache), used for the
# look-up and the download only: /etc/apt and the host's lists are never touched.
apt_cfg=()
if [ "$series" = 6.12 ]; then
    bdir="$cache/apt-backports"
    mkdir -p "$bdir/lists/partial" "$bdir/cache/archives/partial" "$bdir/parts"
    if [ ! -s "$bdir/sources.list" ]; then
        # The mirror the host gets bookworm from (apt-cache policy: " 500 URI bookworm/main amd64 Packages").
        host_mirror() { apt-cache policy 2>/dev/null | awk '$3 == "bookworm/main" && $4 == "amd64" { print $2; exit }'; }
        mirror=${ZONEKIT_VM_DEBIAN_MIRROR:-$(host_mirror)}
        [ -n "$mirror" ] || { apt_update; mirror=$(host_mirror); }
        [ -n "$mirror" ] || die "kernel 6.12: no Debian bookworm mirror in the host's apt sources (set ZONEKIT_VM_DEBIAN_MIRROR)"
        keyring=/usr/share/keyrings/debian-archive-keyring.gpg
        opts=""
        [ ! -f "$keyring" ] || opts="[signed-by=$keyring] "
        echo "deb ${opts}${mirror} bookworm-backports main" > "$bdir/sources.list"
    fi
    apt_cfg=(-o "Dir::Etc::sourcelist=$bdir/sources.list" -o "Dir::Etc::sourceparts=$bdir/parts"
        -o "Dir::Etc::preferences=$bdir/parts/none" -o "Dir::Etc::preferencesparts=$bdir/parts"
        -o "Dir::State::Lists=$bdir/lists" -o "Dir::Cache=$bdir/cache"
        -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=)
fi
lists_updated=0
lists_update() {   # the package lists the kernel's look-up reads: the host's, or the private ones
    if [ "$series" = 6.1 ]; then apt_update; return 0; fi
    [ "$lists_updated" -eq 0 ] || return 0
    lists_updated=1
    log "apt-get update (private bookworm-backports lists in $bdir)"
    apt-get "${apt_cfg[@]}" -o APT::Sandbox::User=root update -qq >/dev/null 2>&1 ||
        log "warning: apt-get update of bookworm-backports failed"
}
resolve_kernel() {
    # Prints "<package> <version>" of the linux-image-X-amd64 that the candidate
    # linux-image-amd64 depends on ("Depends: linux-image-X-amd64 (= V)").
    local line pkg ver
    line=$(apt-cache ${apt_cfg[@]+"${apt_cfg[@]}"} show --no-all-versions linux-image-amd64 2>/dev/null) || return 1
    line=$(grep -m1 '^Depends:' <<< "$line") || return 1
    pkg=$(grep -oE 'linux-image-[0-9][^ ,(]*-amd64' <<< "$line" | head -1)
    [ -n "$pkg" ] || return 1
    ver=$(sed -nE "s/.*${pkg//+/\\+} \(= ([^)]+)\).*/\1/p" <<< "$line")
    [ -n "$ver" ] || ver=$(apt-cache ${apt_cfg[@]+"${apt_cfg[@]}"} policy "$pkg" 2>/dev/null | awk '/Candidate:/ { print $2 }')
    [ -n "$ver" ] && [ "$ver" != "(none)" ] || return 1
    echo "$pkg $ver"
}
resolve_checked() {   # resolve_kernel, refusing a kernel of another series
    local r
    r=$(resolve_kernel) || return 1
    grep -qE "^${kpkg_re} " <<< "$r" ||
        die "kernel $series: linux-image-amd64 resolves to ${r%% *}, not a $series kernel"
    echo "$r"
}

exec 9>"$cache/.lock"
flock 9   # serialise concurrent runs while touching the cache

kpkg="" kver_deb=""
[ "$series" = 6.1 ] || [ -n "$(ls "$bdir/lists" 2>/dev/null | grep -v partial)" ] || lists_update
if ! read -r kpkg kver_deb < <(resolve_checked); then
    lists_update
    read -r kpkg kver_deb < <(resolve_checked) || true
fi
if [ -z "$kpkg" ]; then
    # Offline fallback: the newest complete extraction of the same series in the cache.
    kdir=$(ls -d "$cache"/kernel/linux-image-*/ 2>/dev/null | grep -E "/${kpkg_re}_[^/]*/\$" | sort -V | tail -1 || true)
    [ -n "$kdir" ] && [ -f "$kdir/.complete" ] ||
        die "kernel $series: cannot resolve linux-image-amd64 (apt) and no $series kernel is cached"
    kdir=${kdir%/}
    log "warning: apt-cache cannot resolve linux-image-amd64; using cached $(basename "$kdir")"
else
    kdir="$cache/kernel/${kpkg}_${kver_deb}"
fi

if [ ! -f "$kdir/.complete" ]; then
    t_dl=$(now)
    mkdir -p "$cache/debs"
    apt_opts=(-qq ${apt_cfg[@]+"${apt_cfg[@]}"})
    [ "$(id -u)" -ne 0 ] || apt_opts+=(-o APT::Sandbox::User=root)
    deb=$(ls "$cache/debs/${kpkg}_${kver_deb//:/%3a}_amd64.deb" 2>/dev/null || true)
    if [ -z "$deb" ]; then
        log "downloading $kpkg $kver_deb"
        if ! (cd "$cache/debs" && apt-get download "${apt_opts[@]}" "$kpkg=$kver_deb" >/dev/null 2>&1); then
            # Stale package lists point at a version the archive has dropped.
            lists_update
            read -r kpkg kver_deb < <(resolve_checked) || die "kernel $series: cannot resolve linux-image-amd64"
            kdir="$cache/kernel/${kpkg}_${kver_deb}"
            (cd "$cache/debs" && apt-get download "${apt_opts[@]}" "$kpkg=$kver_deb" >/dev/null 2>&1) ||
                die "kernel $series: apt-get download $kpkg=$kver_deb failed"
        fi
        deb=$(ls "$cache/debs/${kpkg}_"*"_amd64.deb" | sort -V | tail -1)
        log "downloaded in $(elapsed "$t_dl") s"
    fi
    if [ ! -f "$kdir/.complete" ]; then
        t_x=$(now)
        log "extracting $(basename "$deb")"
        rm -rf "$kdir.tmp"
        mkdir -p "$kdir.tmp"
        dpkg-deb -x "$deb" "$kdir.tmp"
        # bookworm packages use /lib/modules, later ones /usr/lib/modules
        [ -d "$kdir.tmp/lib/modules" ] || [ ! -d "$kdir.tmp/usr/lib/modules" ] ||
            ln -s usr/lib "$kdir.tmp/lib"
        kv=$(ls "$kdir.tmp/lib/modules" | head -1)
        # The package ships no modules.dep (its postinst runs depmod); make one.
        if command -v depmod >/dev/null || [ -x /sbin/depmod ]; then
            PATH="$PATH:/sbin" depmod -b "$kdir.tmp" "$kv"
        else
            "$busybox" depmod -b "$kdir.tmp" "$kv"
        fi
        [ -s "$kdir.tmp/lib/modules/$kv/modules.dep" ] || die "depmod produced no modules.dep"
        touch "$kdir.tmp/.complete"
        rm -rf "$kdir"
        mv "$kdir.tmp" "$kdir"
        rm -f "$deb"   # the extraction is the cache
        log "extracted + depmod in $(elapsed "$t_x") s"
    fi
fi
kv=$(ls "$kdir/lib/modules" | head -1)
moddir="$kdir/lib/modules/$kv"
vmlinuz="$kdir/boot/vmlinuz-$kv"
[ -f "$vmlinuz" ] || die "no kernel image in $kdir/boot"

# Decompressing the xz bzImage under TCG costs ~7 s per boot. QEMU can boot
# the uncompressed ELF vmlinux directly through its PVH entry point
# (CONFIG_PVH=y), so unpack it once on the host, like scripts/extract-vmlinux.
extract_vmlinux() {   # extract_vmlinux BZIMAGE OUT
    local magic tool off
    for magic in 'xz:\xfd7zXZ\x00' 'zstd:\x28\xb5\x2f\xfd' 'gzip:\x1f\x8b\x08'; do
        tool=${magic%%:*}
        command -v "$tool" >/dev/null || continue
        for off in $(LC_ALL=C grep -obUaP "${magic#*:}" "$1" | cut -d: -f1 | head -5); do
            case $tool in
                xz) tail -c +$((off + 1)) "$1" | xz -dc --single-stream > "$2" 2>/dev/null ;;
                zstd) tail -c +$((off + 1)) "$1" | zstd -qdc > "$2" 2>/dev/null ;;
                gzip) tail -c +$((off + 1)) "$1" | gzip -dc > "$2" 2>/dev/null ;;
            esac
            [ "$(head -c 4 "$2" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] && return 0
        done
    done
    rm -f "$2"
    return 1
}
vmlinux="$kdir/boot/vmlinux-$kv"
if [ "${ZONEKIT_VM_BZIMAGE:-0}" != 1 ] && [ ! -f "$vmlinux" ] && [ ! -f "$vmlinux.none" ] &&
    grep -q '^CONFIG_PVH=y' "$kdir/boot/config-$kv" 2>/dev/null; then
    if extract_vmlinux "$vmlinuz" "$vmlinux.tmp"; then
        mv "$vmlinux.tmp" "$vmlinux"
    else
        log "warning: could not unpack vmlinux; booting the compressed bzImage"
        touch "$vmlinux.none"
    fi
fi
flock -u 9
boot_kernel=$vmlinuz
[ "${ZONEKIT_VM_BZIMAGE:-0}" = 1 ] || [ ! -f "$vmlinux" ] || boot_kernel=$vmlinux

# --- 3. initramfs -----------------------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/zonekit-vm.XXXXXX")
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
root="$work/root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,mnt,root,etc/zonekit-vm}

# busybox + applet symlinks
cp "$busybox" "$root/bin/busybox"
"$busybox" --list-full | while read -r applet; do
    [ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
done
ln -sf busybox "$root/bin/sh"

# copy a binary and the libraries ldd lists for it (same paths in the VM)
copy_libs() {
    local f=$1 lib
    # ldd fails on static binaries ("not a dynamic executable"): nothing to copy.
    { ldd "$f" 2>/dev/null || true; } | awk '
        $2 == "=>" && $3 ~ /^\// { print $3; next }
        $1 ~ /^\// { print $1 }' | while read -r lib; do
        [ -e "$root$lib" ] && continue
        mkdir -p "$root$(dirname "$lib")"
        cp -L "$lib" "$root$lib"
    done
}
mkdir -p "$root$(dirname "$blkzone")"
cp -L "$blkzone" "$root$blkzone"
copy_libs "$blkzone"
for b in ${bins[@]+"${bins[@]}"}; do
    rm -f "$root/bin/$(basename "$b")"
    cp -L "$b" "$root/bin/$(basename "$b")"
    chmod +x "$root/bin/$(basename "$b")"
    copy_libs "$b"
done

# kernel modules: resolve dependencies from modules.dep, decompress on the host
declare -A dep_of=() path_of=() seen=()
while IFS=: read -r mpath mdeps; do
    dep_of[$mpath]=$mdeps
    n=${mpath##*/}; n=${n%%.ko*}; n=${n//-/_}
    path_of[$n]=$mpath
done < "$moddir/modules.dep"
strip_ext() { local p=$1; p=${p%.xz}; p=${p%.zst}; p=${p%.gz}; echo "$p"; }
load_order=()
visit() {   # depth-first: dependencies first
    local p=$1 d
    [ -z "${seen[$p]:-}" ] || return 0
    seen[$p]=1
    for d in ${dep_of[$p]}; do visit "$d"; done
    load_order+=("$p")
}
mod_path() {
    local n=${1//-/_}
    [ -n "${path_of[$n]:-}" ] && { echo "${path_of[$n]}"; return; }
    if grep -qE "/${1}\.ko|/${n}\.ko" "$moddir/modules.builtin" 2>/dev/null; then echo builtin; return; fi
    die "kernel module $1 not found in $kv"
}
for m in "${preload_modules[@]}"; do
    p=$(mod_path "$m"); [ "$p" = builtin ] || visit "$p"
done
preload_order=("${load_order[@]}")
for m in "${ship_modules[@]}"; do
    p=$(mod_path "$m"); [ "$p" = builtin ] || visit "$p"
done
vm_moddir="$root/lib/modules/$kv"
mkdir -p "$vm_moddir"
cp "$moddir/modules.builtin" "$vm_moddir/" 2>/dev/null || true
: > "$vm_moddir/modules.dep"
for p in "${load_order[@]}"; do
    q=$(strip_ext "$p")
    mkdir -p "$vm_moddir/$(dirname "$q")"
    case "$p" in
        *.ko.xz) xz -dc "$moddir/$p" > "$vm_moddir/$q" ;;
        *.ko.zst) zstd -qdc "$moddir/$p" > "$vm_moddir/$q" ;;
        *.ko.gz) gzip -dc "$moddir/$p" > "$vm_moddir/$q" ;;
        *) cp "$moddir/$p" "$vm_moddir/$q" ;;
    esac
    # modules.dep for busybox modprobe, kmod style (deps in reverse load order)
    deps=()
    load_order_saved=("${load_order[@]}"); load_order=(); seen=()
    visit "$p"
    for ((i = ${#load_order[@]} - 2; i >= 0; i--)); do deps+=("$(strip_ext "${load_order[i]}")"); done
    load_order=("${load_order_saved[@]}")
    echo "$q:${deps[*]+ ${deps[*]}}" >> "$vm_moddir/modules.dep"
done
for p in "${preload_order[@]}"; do strip_ext "$p"; done > "$root/etc/zonekit-vm/modules.load"

cp "$test_script" "$root/test.sh"
chmod +x "$root/test.sh"

cat > "$root/init" <<'EOF'
#!/bin/sh
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root ZONEKIT_VM=1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
kv=$(uname -r)
while read -r m; do
    insmod "/lib/modules/$kv/$m" || echo "zonekit-vm: insmod $m failed"
done < /etc/zonekit-vm/modules.load
mount -t configfs configfs /sys/kernel/config || echo "zonekit-vm: mounting configfs failed"
echo "ZONEKIT-VM-START kernel=$kv uptime=$(cut -d' ' -f1 /proc/uptime)"
cd /
/bin/sh /test.sh
rc=$?
echo "ZONEKIT-VM-EXIT=$rc uptime=$(cut -d' ' -f1 /proc/uptime)"
sync
poweroff -f
EOF
chmod +x "$root/init"
[ "$(id -u)" -ne 0 ] || mknod -m 600 "$root/dev/console" c 5 1 2>/dev/null || true

initrd="$work/initrd.gz"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 | gzip -1) > "$initrd"
log "kernel $kv (${kpkg:+$kpkg $kver_deb, }booting $(basename "$boot_kernel")), initramfs $(du -k "$initrd" | cut -f1) KiB," \
    "$(wc -l < "$vm_moddir/modules.dep") modules, prepared in $(elapsed "$t_start") s"

# --- 4. boot ----------------------------------------------------------------
# NVMe ZNS (QEMU 7.2's nvme-ns zoned=true): 16 zones of 4 MiB on a sparse 64 MiB file made anew
# for each boot (QEMU keeps no zone state: every zone starts empty). ZNS has no conventional
# zones. max_open 4 and max_active 8 as the null_blk device; zoned.zasl=5 limits zone append to
# 2^5 pages of 4 KiB (128 KiB); 512 B logical blocks.
nvme_args=()
if [ "$nvme_zns" -eq 1 ]; then
    truncate -s 64M "$work/zns.img"
    nvme_args=(-drive "file=$work/zns.img,id=zns0,format=raw,if=none,cache=unsafe"
        -device "nvme,id=nvme0,serial=zonekit-zns,zoned.zasl=5"
        -device "nvme-ns,drive=zns0,bus=nvme0,nsid=1,logical_block_size=512,physical_block_size=512,zoned=true,zoned.zone_size=4M,zoned.zone_capacity=4M,zoned.max_open=4,zoned.max_active=8")
fi
# no_timer_check: at boot the kernel checks that the IO-APIC timer interrupt ticks within a few
# milliseconds (check_timer(), timer_irq_works()) and panics with "IO-APIC + timer doesn't work"
# when it did not; under TCG on a loaded host the vCPU thread can be descheduled for longer than
# that, so a healthy VM would panic. The option skips that check (the timer works: it is QEMU's).
console="$work/console.log"
t_boot=$(now)
set +e
timeout -k 10 "$timeout_s" qemu-system-x86_64 \
    -accel tcg -cpu max -m "$mem" -smp "$smp" \
    -kernel "$boot_kernel" -initrd "$initrd" \
    -append "console=ttyS0 quiet panic=-1 no_timer_check ${ZONEKIT_VM_APPEND:-}" \
    -nographic -no-reboot -nic none ${nvme_args[@]+"${nvme_args[@]}"} \
    < /dev/null 2>&1 | sed -u 's/\r$//; s/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g' | tee "$console"
qemu_status=${PIPESTATUS[0]}
set -e
[ -z "$log_file" ] || cp "$console" "$log_file"

if [ "$qemu_status" -eq 124 ] || [ "$qemu_status" -eq 137 ]; then
    log "error: VM timed out after $timeout_s s"
    exit 124
fi
rc=$(grep -aoE 'ZONEKIT-VM-EXIT=[0-9]+' "$console" | tail -1 | cut -d= -f2 || true)
if [ -z "$rc" ]; then
    log "error: no ZONEKIT-VM-EXIT marker (qemu exit status $qemu_status)"
    exit 125
fi
log "test exit status $rc; boot+test $(elapsed "$t_boot") s, total $(elapsed "$t_start") s"
exit "$rc"
