#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kernel-rdma-host.sh MQBLK [RDMA_BAD]: the acceptance test of `mqblk
# target`'s NVMe/RDMA transport against the Linux kernel's nvme-rdma host.
# One guest (Debian's kernel under QEMU, 2 vCPUs) runs both over soft-RoCE
# (rxe looping back to the guest's own 10.0.2.15): the target on
# rdma:10.0.2.15:4420 with two memory-backed null namespaces, event-driven;
# then nvme discover -t rdma, nvme connect -t rdma with 1 and 2 I/O
# queues, id-ctrl/id-ns, fio crc32c verify of 4..128 KiB writes then
# reads, ext4 (mkfs, mount, write, unmount, fsck clean), the target's RDMA
# counters (they must move), clean disconnects; then RDMA_BAD (the raw
# bad-input client, tests/target/rdma_bad.c): rejects, bad Connects, MDTS,
# a bad key, a flood of connects, and a silent host whose controller the
# target drops after KATO; the target must exit 0. Then the same target
# with --rdma-signal-every 8 --rdma-cq-moderation 16,200 --rdma-srq
# (fewer signalled SENDs and completion events, moderation timers
# firing), and with --busy-poll (CQEs, no events) after `mqblk ctl`
# port-down and port-up of its RDMA listener. About 2 minutes of guest
# under TCG. The guest half is guest/rdma-host-job.sh.
# Exit: 0 all passed, 1 a check failed, 2 setup error, 77 cannot run here.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

MQBLK=${1:-}
RDMA_BAD=${2:-}
[[ -n $MQBLK && -x $MQBLK ]] || iop_die "usage: $0 /path/to/mqblk [/path/to/rdma-bad]"
# (not `ldd | grep -q`: under pipefail, grep's early exit fails ldd)
if [[ $(ldd "$MQBLK") != *librdmacm* ]]; then
	[ "${CI:-}" = true ] && iop_die "$MQBLK was built without rdma-core (librdmacm-dev, libibverbs-dev), which scripts/deps installs" 1
	echo "SKIP: $MQBLK was built without rdma-core"
	exit 77
fi
LIMIT=${INTEROP_RDMA_LIMIT:-300}

T_START=$(iop_now)
iop_setup
iop_new_run
RUN=$IOP_RUN
cleanup() {
	iop_stop_vm
	if [ "${INTEROP_KEEP:-0}" = 1 ]; then
		iop_log "run directory kept: $RUN"
	else
		rm -rf "$RUN"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

iop_share_mqblk "$MQBLK" || iop_die "cannot put mqblk in the share"
if [[ -n $RDMA_BAD ]]; then
	[[ -x $RDMA_BAD ]] || iop_die "$RDMA_BAD is not executable"
	cp "$RDMA_BAD" "$RUN/share/bin/rdma-bad" || iop_die "cannot copy $RDMA_BAD"
fi
[[ -n ${INTEROP_RDMA_VERIFY_SIZE:-} ]] && iop_env RDMA_VERIFY_SIZE "$INTEROP_RDMA_VERIFY_SIZE"
INTEROP_CPUS=${INTEROP_CPUS:-2} # two I/O queues need two CPUs
export INTEROP_CPUS
iop_guest_job "$IOP_DIR/guest/rdma-host-job.sh" "$LIMIT"

LOG=$RUN/share/out/job.log
npass=$(grep -c '^RDMA-PASS' "$LOG" 2>/dev/null)
nfail=$(grep -c '^RDMA-FAIL' "$LOG" 2>/dev/null)
grep -E '^(RDMA-(PASS|FAIL|STEP)|# rdma-bad)' "$LOG" 2>/dev/null | sed 's/^RDMA-//'
if [[ -s $RUN/share/out/target-all.log && ($nfail != 0 || ${INTEROP_VERBOSE:-0} = 1) ]]; then
	echo "--- the target's log"
	tail -n 60 "$RUN/share/out/target-all.log"
fi
iop_log "$npass passed, $nfail failed, guest rc $IOP_JOB_RC, $(iop_since "$T_START") s"
if [[ $IOP_JOB_RC != 0 || $nfail != 0 || $npass -lt 10 ]]; then
	INTEROP_KEEP=1
	tail -n 30 "$RUN/console.log" >&2
	exit 1
fi
exit 0
