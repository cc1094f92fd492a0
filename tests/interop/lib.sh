# SPDX-License-Identifier: MIT
# Host-side helpers of the interop tests (sourced by bash): the real Linux
# kernel, booted under QEMU, is the NVMe/TCP host; the target under test
# listens on this machine's 127.0.0.1.
#
# Network: slirp user networking with restrict=on, so the guest reaches
# nothing but two guestfwd rules. Each guest connection to 10.0.2.100:4420
# (I/O) or 10.0.2.100:8009 (discovery) makes slirp run relay.pl, which
# connects to 127.0.0.1:PORT only (the address is fixed in relay.pl).
# Results come back over virtio-9p; the console is a file; the QEMU
# monitor is a unix socket in the run directory.
# shellcheck shell=bash

PATH=$PATH:/usr/sbin:/sbin
IOP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
IOP_CACHE=${INTEROP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mqblk-interop}
IOP_FWD_IP=10.0.2.100   # what the guest dials; slirp hands it to relay.pl
IOP_IO_PORT=4420        # guest-side I/O port
IOP_DISC_PORT=8009      # guest-side discovery port
IOP_IO_PORT2=4421       # guest-side second I/O port (multipath)
IOP_IO_PORT3=4422       # guest-side port of a second target (many namespaces)
IOP_QEMU_EXTRA=()       # more QEMU arguments for the next boot (a -drive)

iop_log() { printf '[interop] %s\n' "$*" >&2; }
iop_die() { iop_log "error: $1"; exit "${2:-2}"; }
iop_now() { date +%s.%N; }
iop_since() { awk -v a="$1" -v b="$(iop_now)" 'BEGIN { printf "%.1f", b - a }'; }

# The Debian packages the tests need on the host (the guest's programs
# and modules are copied from the host). Installed only when missing.
iop_packages() {
	echo qemu-system-x86 busybox-static fio nvme-cli e2fsprogs libaio1 \
		cpio kmod util-linux perl-base iproute2 ibverbs-providers \
		ibverbs-utils rdmacm-utils
}

# Not root: a skip ("SKIP: why", exit 77), except under CI=true, where the
# suite runs as root after scripts/deps and a missing package is a failure.
iop_apt_install() {
	if [ "$(id -u)" != 0 ]; then
		[ "${CI:-}" = true ] &&
			iop_die "missing packages under CI=true, where scripts/deps installs them: $*" 1
		echo "SKIP: missing packages: $* (install them, or run as root)"
		exit 77
	fi
	iop_log "apt-get install -y --no-install-recommends $*"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y --no-install-recommends "$@" >&2 ||
		{ apt-get update >&2 && apt-get install -y --no-install-recommends "$@" >&2; } ||
		iop_die "apt-get install failed"
}

# Install what is missing: a package counts as present when dpkg says so
# (libaio1 has no command to look for).
iop_ensure_packages() {
	local p missing=()
	for p in $(iop_packages); do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] || iop_apt_install "${missing[@]}"
}

# A kernel for the guest: $INTEROP_KERNEL (its version from the file name
# or $INTEROP_KVER), else the newest /boot/vmlinuz-* whose modules have
# nvme-tcp; installs linux-image-amd64 when there is none. Sets IOP_KERNEL
# and IOP_KVER.
iop_find_kernel() {
	local k v
	if [ -n "${INTEROP_KERNEL:-}" ]; then
		IOP_KERNEL=$INTEROP_KERNEL
		IOP_KVER=${INTEROP_KVER:-$(basename "$IOP_KERNEL" | sed 's/^vmlinuz-//')}
		return 0
	fi
	for k in $(printf '%s\n' /boot/vmlinuz-* | sort -rV); do
		v=${k#/boot/vmlinuz-}
		if ls /lib/modules/"$v"/kernel/drivers/nvme/host/nvme-tcp.ko* >/dev/null 2>&1; then
			IOP_KERNEL=$k IOP_KVER=$v
			return 0
		fi
	done
	return 1
}

iop_pick_kernel() {
	iop_find_kernel || { iop_apt_install linux-image-amd64 && iop_find_kernel; } ||
		iop_die "no kernel with nvme-tcp in /boot"
	[ -r "$IOP_KERNEL" ] || iop_die "kernel $IOP_KERNEL not readable"
	[ -d "/lib/modules/$IOP_KVER" ] || iop_die "no /lib/modules/$IOP_KVER"
}

# Modules the guest loads (their dependencies are added by the build).
# nvmet, nvmet-tcp, null_blk and brd (configfs comes with them) are for
# kernel-target.sh, where the guest is the target.
IOP_MODULES="virtio_pci virtio_net 9pnet_virtio 9p nvme-tcp ext4 crc32c_generic crc32c-intel"
IOP_MODULES+=" nvmet nvmet-tcp null_blk brd"
# virtio_blk: bench/crash-power's guest disk
IOP_MODULES+=" virtio_blk"
# tls: the kernel's TLS records for ktls.sh (this machine's kernel lacks
# it), and the AES-GCM it asks the crypto API for ("gcm(aes)": aesni's,
# or the gcm template over ctr(aes) and ghash), all modules in Debian's
# kernel: request_module cannot load what the initramfs lacks
IOP_MODULES+=" tls aesni_intel ghash-clmulni-intel gcm ctr ghash_generic"
# NVMe/RDMA over soft-RoCE (the host kernel loads no modules, the guest
# does): rxe, the user-space verbs and CM devices, the kernel's nvme-rdma
# host and nvmet-rdma target; rxe computes its ICRC with the kernel's
# crc32 (without a crc32 module `rdma link add` fails with ENOENT).
IOP_MODULES+=" rdma_rxe rdma_ucm ib_uverbs ib_umad nvme-rdma nvmet-rdma crc32_generic crc32-pclmul"
# Programs copied in with the libraries ldd lists (rdma: iproute2's, to
# add the rxe link; ibv_devinfo and rping: rdma-core's, for a look at the
# device and a plain RDMA CM exchange when a test fails).
IOP_PROGRAMS="nvme fio mkfs.ext4 e2fsck rdma ibv_devinfo rping"
# rdma-core's provider for rxe, which libibverbs dlopen()s by its
# /etc/libibverbs.d entry (ldd cannot see it).
IOP_RDMA_FILES="/etc/libibverbs.d/rxe.driver /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so"

# The initramfs: busybox-static, IOP_PROGRAMS with their libraries,
# IOP_MODULES with their dependencies, guest/init. Cached, keyed by the
# kernel, the versions of the packages copied in and this file plus
# guest/init. Prints its path.
iop_initramfs() {
	local key out stage m f p lib
	key=$( {
		echo "$IOP_KVER $IOP_MODULES $IOP_PROGRAMS"
		dpkg-query -W busybox-static nvme-cli fio e2fsprogs libaio1 \
			iproute2 ibverbs-providers ibverbs-utils rdmacm-utils 2>/dev/null
		echo "$IOP_RDMA_FILES"
		cat "$IOP_DIR/lib.sh" "$IOP_DIR/guest/init"
	} | sha256sum | cut -c1-16)
	out=$IOP_CACHE/initramfs-$IOP_KVER-$key.cpio
	[ -s "$out" ] && { echo "$out"; return 0; }
	iop_log "building $out"
	mkdir -p "$IOP_CACHE"
	rm -f "$IOP_CACHE"/initramfs-*.cpio # older builds
	stage=$(mktemp -d "$IOP_CACHE/stage.XXXXXX") || return 1
	# shellcheck disable=SC2064 # expand now: $stage is local
	trap "rm -rf '$stage'" RETURN
	mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,dev,proc,sys,tmp,run,mnt,job,etc,root}
	cp /bin/busybox "$stage/bin/busybox"
	for f in $("$stage/bin/busybox" --list); do
		[ -e "$stage/bin/$f" ] || ln -s busybox "$stage/bin/$f"
	done
	for p in $IOP_PROGRAMS; do
		f=$(command -v "$p") || { iop_log "no $p on the host"; return 1; }
		f=$(readlink -f "$f")
		cp "$f" "$stage/usr/sbin/$p"
		for lib in $(ldd "$f" | awk '/=> \// { print $3 } /^\t\// { print $1 }'); do
			[ -e "$stage$lib" ] && continue
			mkdir -p "$stage$(dirname "$lib")"
			cp -L "$lib" "$stage$lib"
		done
	done
	for f in $IOP_RDMA_FILES; do
		[ -e "$f" ] || { iop_log "no $f on the host (ibverbs-providers)"; return 1; }
		mkdir -p "$stage$(dirname "$f")"
		cp -L "$f" "$stage$f"
		case $f in *.so)
			for lib in $(ldd "$f" | awk '/=> \// { print $3 } /^\t\// { print $1 }'); do
				[ -e "$stage$lib" ] && continue
				mkdir -p "$stage$(dirname "$lib")"
				cp -L "$lib" "$stage$lib"
			done ;;
		esac
	done
	# libaio is linked by fio directly; ldd found it. Modules:
	local moddir=/lib/modules/$IOP_KVER
	for m in $IOP_MODULES; do
		modprobe -S "$IOP_KVER" -D "$m" 2>/dev/null | awk '$1 == "insmod" { print $2 }'
	done | sort -u | while read -r f; do
		mkdir -p "$stage$(dirname "$f")"
		case $f in
		*.ko) cp "$f" "$stage$f" ;;
		*.ko.xz) xz -dc "$f" >"$stage${f%.xz}" ;;
		*.ko.zst) zstd -qdc "$f" >"$stage${f%.zst}" ;;
		*.ko.gz) gzip -dc "$f" >"$stage${f%.gz}" ;;
		esac
	done
	for f in host/nvme-tcp host/nvme-rdma target/nvmet-rdma; do
		[ -e "$stage$moddir/kernel/drivers/nvme/$f.ko" ] ||
			{ iop_log "$f.ko missing from the initramfs"; return 1; }
	done
	for f in modules.order modules.builtin modules.builtin.modinfo; do
		[ -e "$moddir/$f" ] && cp "$moddir/$f" "$stage$moddir/"
	done
	depmod -b "$stage" "$IOP_KVER" || return 1
	install -m 755 "$IOP_DIR/guest/init" "$stage/init"
	echo 'root:x:0:0:root:/root:/bin/sh' >"$stage/etc/passwd"
	echo 'root:x:0:' >"$stage/etc/group"
	# Uncompressed: the kernel unpacks it faster than it would gunzip it
	# under TCG.
	(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet) >"$out.tmp" &&
		mv "$out.tmp" "$out" || return 1
	iop_log "initramfs: $(du -h "$out" | cut -f1)"
	echo "$out"
}

# Does KVM work? /dev/kvm may open and still be useless (for example a
# kvm_pvm host module runs only PVM guest kernels; a stock kernel hangs).
# One probe boot, verdict cached per host kernel and guest kernel.
iop_kvm_works() {
	local f log pid i=0
	f=$IOP_CACHE/kvm-probe.$(uname -r).$IOP_KVER
	if [ ! -s "$f" ]; then
		log=$(mktemp "${TMPDIR:-/tmp}/mqblk-kvm-probe.XXXXXX")
		qemu-system-x86_64 -machine pc,accel=kvm -cpu host -m 256 -nodefaults \
			-no-user-config -display none -no-reboot -serial "file:$log" \
			-kernel "$IOP_KERNEL" -initrd "$IOP_INITRD" \
			-append "console=ttyS0 loglevel=1 panic=-1 interop.probe=1" \
			</dev/null >/dev/null 2>&1 &
		pid=$!
		while [ $i -lt 200 ] && kill -0 $pid 2>/dev/null && ! grep -q INTEROP:BOOTED "$log"; do
			sleep 0.1
			i=$((i + 1))
		done
		kill $pid 2>/dev/null
		wait $pid 2>/dev/null
		if grep -q INTEROP:BOOTED "$log"; then echo ok >"$f"; else echo fail >"$f"; fi
		rm -f "$log"
	fi
	[ "$(cat "$f")" = ok ]
}

# Sets IOP_ACCEL (kvm or tcg). INTEROP_KVM=0 never tries KVM, =1 insists.
iop_pick_accel() {
	IOP_ACCEL=tcg
	case ${INTEROP_KVM:-auto} in
	0) ;;
	1) IOP_ACCEL=kvm ;;
	*) if [ -c /dev/kvm ] && { : <>/dev/kvm; } 2>/dev/null && iop_kvm_works; then
		IOP_ACCEL=kvm
	else
		iop_log "KVM not usable here, using TCG (slow)"
	fi ;;
	esac
}

# Everything before a boot: packages, kernel, initramfs, accelerator.
iop_setup() {
	iop_ensure_packages
	iop_pick_kernel
	mkdir -p "$IOP_CACHE" || iop_die "cannot create $IOP_CACHE"
	IOP_INITRD=$(exec 9>>"$IOP_CACHE/.lock" && flock 9 && iop_initramfs) ||
		iop_die "initramfs build failed"
	iop_pick_accel
}

# A TCP port nobody listens on or uses on 127.0.0.1 (from /proc/net/tcp).
iop_free_port() {
	local p hex
	while :; do
		p=$((20000 + RANDOM % 40000))
		hex=$(printf '%04X' "$p")
		grep -q ":$hex " /proc/net/tcp /proc/net/tcp6 2>/dev/null || { echo "$p"; return; }
	done
}

# iop_listening PORT: is there a listener on PORT (state 0A)?
iop_listening() {
	local hex
	hex=$(printf '%04X' "$1")
	awk -v h=":$hex" '$2 ~ h"$" && $4 == "0A" { f = 1 } END { exit !f }' \
		/proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# iop_new_run: a run directory with share/ (the 9p share, /job in the
# guest) and share/out/ (results). Sets IOP_RUN.
iop_new_run() {
	IOP_RUN=$(mktemp -d "${TMPDIR:-/tmp}/mqblk-interop.XXXXXX")
	case $IOP_RUN$IOP_DIR in *[,[:space:]]*)
		iop_die "paths must not contain commas or spaces: $IOP_RUN $IOP_DIR" ;;
	esac
	mkdir -p "$IOP_RUN/share/out"
	: >"$IOP_RUN/share/env"
}

# iop_env NAME VALUE: a variable for the guest job (single-quoted).
iop_env() {
	printf "%s='%s'\n" "$1" "$(printf %s "$2" | sed "s/'/'\\\\''/g")" >>"$IOP_RUN/share/env"
}

# iop_boot IO_PORT DISC_PORT [IO_PORT2 [IO_PORT3]]: start QEMU in the
# background; the guest's 10.0.2.100:4420 and :8009 reach 127.0.0.1:IO_PORT
# and :DISC_PORT, with IO_PORT2 its 10.0.2.100:4421 reaches
# 127.0.0.1:IO_PORT2 (a second path), with IO_PORT3 its :4422 reaches
# 127.0.0.1:IO_PORT3 (a second target). Sets IOP_QEMU_PID and IOP_T0.
iop_boot() {
	local relay="perl $IOP_DIR/relay.pl"
	local net="user,id=n0,restrict=on,net=10.0.2.0/24"
	net+=",guestfwd=tcp:$IOP_FWD_IP:$IOP_IO_PORT-cmd:$relay $1"
	net+=",guestfwd=tcp:$IOP_FWD_IP:$IOP_DISC_PORT-cmd:$relay $2"
	[ -n "${3:-}" ] && net+=",guestfwd=tcp:$IOP_FWD_IP:$IOP_IO_PORT2-cmd:$relay $3"
	[ -n "${4:-}" ] && net+=",guestfwd=tcp:$IOP_FWD_IP:$IOP_IO_PORT3-cmd:$relay $4"
	iop_boot_net "$net"
}

# iop_boot_hostfwd HOST_PORT [HOST_PORT2]: start QEMU in the background
# (as iop_boot) with the guest as a server: the host's 127.0.0.1:HOST_PORT
# (slirp binds the loopback address only) reaches the guest's
# 10.0.2.15:4420, and HOST_PORT2 if given its 10.0.2.15:4421 (a second
# path). No guestfwd: the guest reaches nothing.
iop_boot_hostfwd() {
	local net="user,id=n0,restrict=on,net=10.0.2.0/24,hostfwd=tcp:127.0.0.1:$1-10.0.2.15:$IOP_IO_PORT"
	[ -n "${2:-}" ] && net+=",hostfwd=tcp:127.0.0.1:$2-10.0.2.15:$IOP_IO_PORT2"
	iop_boot_net "$net"
}

# iop_boot_net NETDEV: QEMU with -netdev NETDEV (the user network of
# iop_boot or iop_boot_hostfwd), and the caller's IOP_QEMU_EXTRA array of
# arguments (a -drive, say) if set. Returns once the guest's /init runs
# (iop_booted), with QEMU still running in the background.
iop_boot_net() {
	local net=$1
	local cpu=max
	[ "$IOP_ACCEL" = kvm ] && cpu=host
	# shellcheck disable=SC2054 # the commas are QEMU's
	IOP_QEMU=(qemu-system-x86_64 -name mqblk-interop -machine "pc,accel=$IOP_ACCEL"
		-cpu "$cpu" -smp "${INTEROP_CPUS:-2}" -m "${INTEROP_MEM:-1024}"
		-nodefaults -no-user-config -nographic -no-reboot
		-serial "file:$IOP_RUN/console.log"
		-monitor "unix:$IOP_RUN/monitor.sock,server=on,wait=off"
		-kernel "$IOP_KERNEL" -initrd "$IOP_INITRD"
		-append "console=ttyS0 loglevel=4 panic=-1 mitigations=off ${INTEROP_APPEND:-}"
		-netdev "$net" -device virtio-net-pci,netdev=n0,romfile=
		-fsdev "local,id=fs0,path=$IOP_RUN/share,security_model=none"
		-device virtio-9p-pci,fsdev=fs0,mount_tag=interop
		"${IOP_QEMU_EXTRA[@]}")
	printf '%q ' "${IOP_QEMU[@]}" >"$IOP_RUN/qemu.cmd"
	iop_start_vm
	iop_booted && return 0
	# The guest kernel never reached /init: nothing of the test has run
	# yet. Seen once in ~30 CI runs (TCG, ASan, two guests and two
	# fuzzers on 2 CPUs: SeaBIOS's "Probing EDD", then silence for 300 s;
	# 60 boots beside the fuzzers did not repeat it). The vCPUs' state is kept
	# for a diagnosis, and the guest is booted once more.
	iop_log "the guest kernel did not reach /init in ${IOP_BOOT_S} s (no INTEROP:BOOTED): vCPU state in $IOP_RUN/boot-hang.txt; booting it once more"
	{ iop_monitor "info cpus"; iop_monitor "info registers -a"; } >"$IOP_RUN/boot-hang.txt" 2>&1
	iop_log "boot hang: $(grep -oE 'thread_id=[0-9]+|RIP=[0-9a-f]+' "$IOP_RUN/boot-hang.txt" | tr '\n' ' ')"
	cp "$IOP_RUN/console.log" "$IOP_RUN/console-hang.log"
	iop_stop_vm
	iop_start_vm
	iop_booted || iop_die "the guest kernel did not reach /init in ${IOP_BOOT_S} s, twice (vCPU state of the first: $IOP_RUN/boot-hang.txt)"
}

# iop_start_vm: QEMU as IOP_QEMU says, in the background; sets
# IOP_QEMU_PID and IOP_T0.
# shellcheck disable=SC2034 # IOP_T0 is for the caller
iop_start_vm() {
	: >"$IOP_RUN/console.log"
	IOP_T0=$(iop_now)
	"${IOP_QEMU[@]}" </dev/null >"$IOP_RUN/qemu.log" 2>&1 &
	IOP_QEMU_PID=$!
	iop_log "VM pid $IOP_QEMU_PID ($IOP_ACCEL, ${INTEROP_CPUS:-2} vCPUs), run dir $IOP_RUN"
}

# iop_booted: wait until the guest's /init prints INTEROP:BOOTED (about
# 5 s under TCG, 10-30 s on a loaded machine), at most IOP_BOOT_S seconds
# (INTEROP_BOOT_S, default 60 under KVM, 150 under TCG); 0 once it has, 0
# too if QEMU has exited (the caller sees that as before), 1 on a timeout.
iop_booted() {
	local i
	IOP_BOOT_S=${INTEROP_BOOT_S:-150}
	[ "$IOP_ACCEL" = kvm ] && IOP_BOOT_S=${INTEROP_BOOT_S:-60}
	for ((i = 0; i < IOP_BOOT_S * 5; i++)); do
		grep -q 'INTEROP:BOOTED' "$IOP_RUN/console.log" 2>/dev/null && return 0
		kill -0 "$IOP_QEMU_PID" 2>/dev/null || return 0
		sleep 0.2
	done
	return 1
}

# iop_monitor COMMAND: one HMP command on the monitor socket; prints the
# reply.
iop_monitor() {
	perl -MIO::Socket::UNIX -e '
		my $s = IO::Socket::UNIX->new(Peer => $ARGV[0]) or die "monitor: $!\n";
		my $buf = "";
		my $read = sub { while ($buf !~ /\(qemu\) $/) { sysread($s, $buf, 4096, length $buf) or last } };
		$read->();
		$buf = "";
		print $s "$ARGV[1]\n";
		$read->();
		$buf =~ s/\e\[[0-9;]*[A-Za-z]//g;
		print $buf, "\n";' "$IOP_RUN/monitor.sock" "$1"
}

iop_stop_vm() {
	if [ -n "${IOP_QEMU_PID:-}" ] && kill -0 "$IOP_QEMU_PID" 2>/dev/null; then
		kill "$IOP_QEMU_PID" 2>/dev/null
		wait "$IOP_QEMU_PID" 2>/dev/null
	fi
	IOP_QEMU_PID=
}

# ---- Everything in one guest (NVMe/RDMA over soft-RoCE) ----------------

# iop_share_mqblk BIN: BIN into the run's share as bin/mqblk and, in lib/,
# the libraries ldd lists that the initramfs lacks (liburing, ISA-L,
# json-c, ...). In the guest, guest/rdma.sh's `mqblk` runs it.
iop_share_mqblk() {
	local bin=$1 lib
	mkdir -p "$IOP_RUN/share/bin" "$IOP_RUN/share/lib"
	cp "$bin" "$IOP_RUN/share/bin/mqblk" || return 1
	for lib in $(ldd "$bin" | awk '/=> \// { print $3 }'); do
		case $(basename "$lib") in
		libc.so.* | libm.so.* | ld-linux*) ;; # the initramfs has the same glibc
		*) cp -L "$lib" "$IOP_RUN/share/lib/" || return 1 ;;
		esac
	done
}

# iop_boot_local: QEMU (as iop_boot) with no forwards: the guest talks
# only to itself (rxe loops back to its own 10.0.2.15).
iop_boot_local() {
	iop_boot_net "user,id=n0,restrict=on,net=10.0.2.0/24"
}

# iop_guest_job SCRIPT LIMIT_S [NETDEV]: run SCRIPT (a guest job, sourcing
# /job/rdma.sh for the helpers) in one guest and wait for it, at most
# LIMIT_S seconds (then the VM is killed). NETDEV replaces iop_boot_local's
# network (forwards of the caller's own). Sets IOP_JOB_RC: the job's exit
# status, or 124 for a timeout and 125 for a guest that gave none. The
# console is in $IOP_RUN/console.log, the job's output in
# $IOP_RUN/share/out/job.log.
iop_guest_job() {
	local script=$1 limit=$2 t0
	cp "$script" "$IOP_RUN/share/job.sh" || return 1
	cp "$IOP_DIR/guest/rdma.sh" "$IOP_RUN/share/rdma.sh" || return 1
	if [ -n "${3:-}" ]; then iop_boot_net "$3"; else iop_boot_local; fi
	if [ "${INTEROP_VERBOSE:-0}" = 1 ]; then
		tail -s 0.2 -n +1 -F --pid="$IOP_QEMU_PID" "$IOP_RUN/console.log" 2>/dev/null |
			sed -u 's/\r$//' >&2 &
	fi
	t0=$(date +%s)
	while kill -0 "$IOP_QEMU_PID" 2>/dev/null; do
		if (($(date +%s) - t0 > limit)); then
			iop_log "the guest job ran past ${limit} s: killing the VM"
			iop_stop_vm
			IOP_JOB_RC=124
			return 0
		fi
		sleep 0.5
	done
	wait "$IOP_QEMU_PID" 2>/dev/null
	IOP_QEMU_PID=
	IOP_JOB_RC=$(cat "$IOP_RUN/share/out/rc" 2>/dev/null || echo 125)
	iop_log "guest job $(basename "$script"): rc $IOP_JOB_RC in $(($(date +%s) - t0)) s ($IOP_ACCEL)"
}
