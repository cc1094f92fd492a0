#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# seed001-rdma.sh MQBLK: seed 001's modes over NVMe/RDMA, asserted on
# counters (never timings): in one guest over soft-RoCE
# (bench/seeds/001-rdma-guest.sh, the job `bench/seeds/run 001
# --transport=rdma` runs, here cut to one short run per mode), `mqblk
# target` with its response SENDs signalled every one or one in 32 x CQ
# moderation on or off, mqblk's nvme-rdma host against it. Checks, per
# mode: 16 MiB of 4..64 KiB writes verified (crc32c) on a memory-backed
# namespace — a slot or buffer reused before its SEND or RDMA WRITE
# completed would corrupt it; a 4 KiB read run at QD4 completes; the
# target's signalled SENDs are all its SENDs with every one signalled and
# under 1 in 10 with one in 32 (selective signalling gives fewer send
# CQEs); CQEs per command drop with selective signalling; moderation
# gives fewer completion-channel events per CQE than the same signalling
# without it. The moderation window is 32 completions or 2 ms, not the
# thread's 16 us: one I/O takes longer than 16 us in this emulated guest,
# so a 16 us window would hold nothing back (bench/seeds/run keeps the
# thread's values and prints what they do); and the queue depth is 4,
# not 128: a reactor busy with 128 commands sleeps so rarely that it
# takes few events either way. The counters are a snapshot taken while
# commands are in flight, so the SEND ratios allow for those.
# Exit: 0 all passed, 1 a check failed, 2 setup error, 77 cannot run here.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

MQBLK=${1:-}
[[ -n $MQBLK && -x $MQBLK ]] || iop_die "usage: $0 /path/to/mqblk"
# (not `ldd | grep -q`: under pipefail, grep's early exit fails ldd)
if [[ $(ldd "$MQBLK") != *librdmacm* ]]; then
	# scripts/deps installs rdma-core's headers: under CI, a build without
	# them is a broken set-up, not this machine's limit
	[ "${CI:-}" = true ] && iop_die "$MQBLK was built without rdma-core (librdmacm-dev, libibverbs-dev), which scripts/deps installs" 1
	echo "SKIP: $MQBLK was built without rdma-core"
	exit 77
fi
T_START=$(iop_now)
iop_setup
iop_new_run
RUN=$IOP_RUN
trap 'iop_stop_vm; [ "${INTEROP_KEEP:-0}" = 1 ] && iop_log "kept $RUN" || rm -rf "$RUN"' EXIT
trap 'exit 130' INT TERM
iop_share_mqblk "$MQBLK" || iop_die "cannot put mqblk in the share"
cp "$here/../../bench/seeds/001-moderation.fio" "$RUN/share/" || iop_die "no 001-moderation.fio"
iop_env RT 4
iop_env SIZES 4k
iop_env JOBS 1
iop_env RWS read
iop_env VERIFY 1
iop_env MOD 32,2000
iop_env QD 4
INTEROP_CPUS=2 iop_guest_job "$here/../../bench/seeds/001-rdma-guest.sh" "${INTEROP_RDMA_LIMIT:-300}"

out=$RUN/share/out
fails=0
grep -a -E '^RDMA-(PASS|FAIL)' "$out/job.log" | sed 's/^RDMA-//'
fails=$(grep -a -c '^RDMA-FAIL' "$out/job.log")
python3 - "$out" <<'PY' || fails=$((fails + 1))
import os, sys
d = sys.argv[1]
cols = ("cmds", "rdma_sends", "rdma_signalled", "rdma_cqes", "rdma_events")
m = {}
for mode in ("sig-nomod", "sig-mod", "nosig-nomod", "nosig-mod"):
    s = dict.fromkeys(cols, 0)
    names = None
    try:
        lines = open(os.path.join(d, "%s-read-4k-1.stats" % mode)).read().splitlines()
    except OSError:
        lines = []
    for line in lines:
        f = line.split()
        if f and f[0] == "ctrl":
            names = f
        elif names and len(f) == len(names) and int(f[names.index("qid")]) > 0:
            for k in cols:
                s[k] += int(f[names.index(k)])
    m[mode] = s
bad = 0
def check(ok, name, why):
    global bad
    print("%s %s: %s" % ("PASS" if ok else "FAIL", name, why))
    bad += not ok
for mode, s in m.items():
    check(s["cmds"] >= 150, "counters-" + mode, "%d commands, %d CQEs, %d events, %d signalled"
          % (s["cmds"], s["rdma_cqes"], s["rdma_events"], s["rdma_signalled"]))
if all(s["cmds"] for s in m.values()):
    r = {k: {c: v[c] / v["cmds"] for c in cols} for k, v in m.items()}
    # per SEND posted, not per command: the stats are a snapshot taken
    # while commands are in flight (received, not yet answered)
    sig = {k: v["rdma_signalled"] / max(v["rdma_sends"], 1) for k, v in m.items()}
    for k in ("sig-nomod", "sig-mod"):
        check(sig[k] >= 0.95, "signal-every-" + k, "%d of %d SENDs signalled" % (m[k]["rdma_signalled"], m[k]["rdma_sends"]))
    for k in ("nosig-nomod", "nosig-mod"):
        check(sig[k] < 0.1, "signal-selective-" + k, "%d of %d SENDs signalled" % (m[k]["rdma_signalled"], m[k]["rdma_sends"]))
    check(r["nosig-nomod"]["rdma_cqes"] < r["sig-nomod"]["rdma_cqes"], "fewer-cqes",
          "CQEs per command %.3f with one SEND in 32 signalled, %.3f with every one"
          % (r["nosig-nomod"]["rdma_cqes"], r["sig-nomod"]["rdma_cqes"]))
    for a, b in (("sig-mod", "sig-nomod"), ("nosig-mod", "nosig-nomod")):
        ea = m[a]["rdma_events"] / max(m[a]["rdma_cqes"], 1)
        eb = m[b]["rdma_events"] / max(m[b]["rdma_cqes"], 1)
        check(ea < 0.8 * eb, "moderation-" + a, "%.4f completion events per CQE with moderation, %.4f without" % (ea, eb))
sys.exit(1 if bad else 0)
PY
rc=0
if [[ $IOP_JOB_RC != 0 || $fails != 0 ]]; then rc=1; fi
iop_log "seed 001 over RDMA: guest rc $IOP_JOB_RC, $fails failed, $(iop_since "$T_START") s"
exit $rc
