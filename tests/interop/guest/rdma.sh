# SPDX-License-Identifier: MIT
# Guest-side helpers for NVMe/RDMA jobs (sourced by a job's busybox sh from
# /job/rdma.sh): soft-RoCE up on eth0, mqblk from the share, the kernel's
# nvmet-rdma target through configfs, and the checks' output format.
# The guest's address is 10.0.2.15 (guest/init); rxe loops back to it.

IP=10.0.2.15
export LD_LIBRARY_PATH=/job/lib
RDMA_T0=$(cut -d' ' -f1 /proc/uptime)

# step NAME: a progress line (with the guest's uptime) on the console.
step() { echo "RDMA-STEP $(cut -d' ' -f1 /proc/uptime) $*"; }
# pass/fail NAME [WHY]: the host-side script counts these lines.
pass() { echo "RDMA-PASS $1${2:+: $2}"; }
fail() { echo "RDMA-FAIL $1${2:+: $2}"; FAILED=1; }
FAILED=0

mqblk() { /job/bin/mqblk "$@"; }

# rxe_up: load soft-RoCE and the user-space verbs/CM devices, add rxe0 on
# eth0 and wait until its port is ACTIVE (at most 10 s). 0 on success.
rxe_up() {
	local i=0
	modprobe crc32_generic 2>/dev/null
	modprobe crc32-pclmul 2>/dev/null
	modprobe rdma_rxe && modprobe ib_uverbs && modprobe rdma_ucm || return 1
	rdma link add rxe0 type rxe netdev eth0 || return 1
	while [ $i -lt 100 ]; do
		rdma link show rxe0/1 2>/dev/null | grep -q 'state ACTIVE' && return 0
		sleep 0.1
		i=$((i + 1))
	done
	rdma link show >&2
	return 1
}

# nvmet_rdma_up NQN SIZE_MB [PORT] [INLINE]: the kernel's nvmet-rdma on
# $IP:PORT (default 4420) with one memory-backed null_blk namespace of
# SIZE_MB (4 KiB blocks), any host allowed; INLINE sets the port's
# param_inline_data_size. nvmet_rdma's module parameters (use_srq=1) come
# from $NVMET_RDMA_OPTS. Sets NVMET_NULLB (the backing device).
nvmet_rdma_up() {
	local nqn=$1 mb=$2 port=${3:-4420} inline=${4:-} cfg=/sys/kernel/config
	local nb=$cfg/nullb/nullb0 s p
	modprobe configfs 2>/dev/null
	grep -q " $cfg configfs" /proc/mounts || mount -t configfs none $cfg || return 1
	modprobe null_blk nr_devices=0 || return 1
	# shellcheck disable=SC2086 # module parameters, word-split on purpose
	modprobe nvmet-rdma ${NVMET_RDMA_OPTS:-} || return 1
	# the first configfs null_blk device is /dev/nullb0 (nr_devices=0)
	mkdir -p $nb || return 1
	echo "$mb" >$nb/size && echo 4096 >$nb/blocksize &&
		echo 1 >$nb/memory_backed && echo 1 >$nb/power || return 1
	NVMET_NULLB=/dev/nullb0
	[ -b $NVMET_NULLB ] || { echo "nvmet_rdma_up: no $NVMET_NULLB" >&2; return 1; }
	s=$cfg/nvmet/subsystems/$nqn
	mkdir -p $s/namespaces/1 || return 1
	echo 1 >$s/attr_allow_any_host &&
		echo -n "$NVMET_NULLB" >$s/namespaces/1/device_path &&
		echo 1 >$s/namespaces/1/enable || return 1
	p=$cfg/nvmet/ports/1
	mkdir -p $p || return 1
	echo rdma >$p/addr_trtype && echo ipv4 >$p/addr_adrfam &&
		echo "$IP" >$p/addr_traddr && echo "$port" >$p/addr_trsvcid || return 1
	[ -n "$inline" ] && { echo "$inline" >$p/param_inline_data_size || return 1; }
	ln -s $s $p/subsystems/$nqn || return 1
}

# nvmet_rdma_unlink NQN / nvmet_rdma_link NQN: the subsystem off / back on
# port 1 (nvmet deletes the controllers of an unlinked subsystem).
nvmet_rdma_unlink() { rm /sys/kernel/config/nvmet/ports/1/subsystems/"$1"; }
nvmet_rdma_link() {
	ln -s /sys/kernel/config/nvmet/subsystems/"$1" \
		/sys/kernel/config/nvmet/ports/1/subsystems/"$1"
}

# finish: the job's exit status from the pass/fail lines (a job ends with
# `finish`).
finish() {
	step "done after $(awk -v a="$RDMA_T0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }') s"
	dmesg | grep -iE 'nvme|rdma|rxe|warn|bug' | tail -n 40 >/job/out/dmesg.txt
	dmesg | grep -qE 'WARNING:|BUG:|Oops' && fail kernel-warnings "$(dmesg | grep -m1 -E 'WARNING:|BUG:|Oops')"
	return $FAILED
}
