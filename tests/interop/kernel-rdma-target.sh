#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kernel-rdma-target.sh MQBLK: mqblk's NVMe/RDMA host driver (nvme-rdma://
# URIs) against the Linux kernel's nvmet-rdma target, both in one QEMU
# guest over soft-RoCE (rxe looped back to the guest's own 10.0.2.15).
# The guest job is guest/kernel-rdma-target-job.sh (what it checks is said there):
# for nvmet_rdma use_srq=0 with 4 KiB in-capsule data and use_srq=1 with
# 16 KiB (the host asking for remote invalidation), discover/id-ctrl/id-ns, a crc32c verify of mixed 4k..128k
# writes with the host's verbs counters asserted, a randread, and the
# port losing the subsystem mid-verify and getting it back (the host
# reconnects, the verify is clean). MQBLK is copied into the guest with
# the libraries the initramfs lacks.
# Exit: 0 all passed, 1 a check failed, 2 setup error, 77 cannot run here.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

MQBLK=${1:-}
[[ -n $MQBLK && -x $MQBLK ]] || iop_die "usage: $0 /path/to/mqblk"
MQBLK=$(readlink -f "$MQBLK")
# (not `ldd | grep -q`: under pipefail, grep's early exit fails ldd)
if [[ $(ldd "$MQBLK") != *librdmacm* ]]; then
	# scripts/deps installs rdma-core's headers: under CI a build without
	# them is a broken set-up, not this machine's limit
	[ "${CI:-}" = true ] && iop_die "$MQBLK was built without rdma-core (librdmacm-dev, libibverbs-dev), which scripts/deps installs" 1
	echo "SKIP: $MQBLK was built without rdma-core"
	exit 77
fi
LIMIT=${INTEROP_TIMEOUT:-400}

T0=$(iop_now)
iop_setup
iop_new_run
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	iop_stop_vm
	if [ "${INTEROP_KEEP:-0}" = 1 ]; then
		iop_log "run directory kept: $IOP_RUN"
	else
		rm -rf "$IOP_RUN"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

iop_share_mqblk "$MQBLK" || iop_die "cannot put mqblk in the share"
iop_env NQN "nqn.2026-12.io.mqblk:rdma-target"
[ -n "${INTEROP_RDMA_CONFIGS:-}" ] && iop_env CONFIGS "$INTEROP_RDMA_CONFIGS"
iop_guest_job "$IOP_DIR/guest/kernel-rdma-target-job.sh" "$LIMIT"
LOG=$IOP_RUN/share/out/job.log

npass=$(grep -c '^RDMA-PASS ' "$LOG" 2>/dev/null)
nfail=$(grep -c '^RDMA-FAIL ' "$LOG" 2>/dev/null)
grep -E '^RDMA-(PASS|FAIL) ' "$LOG" 2>/dev/null | sed 's/^RDMA-//' >&2
iop_log "$npass passed, $nfail failed, guest job rc $IOP_JOB_RC, $(iop_since "$T0") s in all"
# six checks per configuration: fewer is a job cut short
want=$((6 * $(echo ${INTEROP_RDMA_CONFIGS:-0:4096 1:16384:1} | wc -w)))
if [ "$IOP_JOB_RC" = 0 ] && [ "$nfail" = 0 ] && [ "$npass" -ge "$want" ]; then
	exit 0
fi
iop_log "--- the job's last lines (all: $LOG, kept with INTEROP_KEEP=1):"
tail -n 30 "$LOG" >&2 2>/dev/null || tail -n 60 "$IOP_RUN/console.log" >&2
INTEROP_KEEP=1
exit 1
