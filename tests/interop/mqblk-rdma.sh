#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mqblk-rdma.sh MQBLK: mqblk's host against mqblk's target over NVMe/RDMA,
# and a multipath device mixing an RDMA and a TCP path, with a path cut
# mid-verify. One guest (2 vCPUs, soft-RoCE looping back to 10.0.2.15)
# runs guest/mqblk-rdma-job.sh: `mqblk target` with one memory-backed
# null namespace on rdma:IP:4420 (port 1) and tcp IP:4421 (port 2),
# event-driven, with a control socket; then
#  - nvme-rdma:// alone: 4 MiB of 4..64 KiB writes verified (crc32c),
#    exit 0, no verify error, the bench's nvme_rdma counters moved
#    (SENDs, receives, CQEs, memory registrations or in-capsule data);
#  - nvme-rdma://IP:4420,tcp:IP:4421/NQN?iopolicy=round-robin: the same
#    verify, both paths completing I/O, the per-path counts adding up;
#  - that device under a time-based verify with port 1 (RDMA) cut by
#    `mqblk ctl port-down` and brought back by port-up a second later:
#    exit 0, no verify error, the cut path logged going down, the other
#    path carrying I/O, every request sent on the cut path completed or
#    failed over; then the same cutting port 2 (TCP);
#  - the target exits 0 on SIGINT; its log and the benches' stderr
#    without sanitizer reports.
# Exit: 0 all passed, 1 a check failed, 2 setup error, 77 cannot run here.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

MQBLK=${1:-}
[[ -n $MQBLK && -x $MQBLK ]] || iop_die "usage: $0 /path/to/mqblk"
# (not `ldd | grep -q`: under pipefail, grep's early exit fails ldd)
if [[ $(ldd "$MQBLK") != *librdmacm* ]]; then
	[ "${CI:-}" = true ] && iop_die "$MQBLK was built without rdma-core (librdmacm-dev, libibverbs-dev), which scripts/deps installs" 1
	echo "SKIP: $MQBLK was built without rdma-core"
	exit 77
fi

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
# the cut runs' length: a sanitizer build (scripts/test runs this suite
# in its ASan+UBSan build) does I/O and starts `mqblk ctl` several times
# slower under TCG, and the cut must come while the job still writes
if [[ -n ${INTEROP_CUT_RT:-} ]]; then
	CUT_RT=$INTEROP_CUT_RT
elif grep -qaE '__(asan|tsan)_init' "$MQBLK"; then
	CUT_RT=12
else
	CUT_RT=4
fi
iop_env CUT_RT "$CUT_RT"
INTEROP_CPUS=2 iop_guest_job "$IOP_DIR/guest/mqblk-rdma-job.sh" "${INTEROP_RDMA_LIMIT:-300}"

OUT=$RUN/share/out
LOG=$OUT/job.log
grep -a -E '^RDMA-(PASS|FAIL|STEP)' "$LOG" 2>/dev/null | sed 's/^RDMA-//'
nfail=$(grep -a -c '^RDMA-FAIL' "$LOG" 2>/dev/null)
npass=$(grep -a -c '^RDMA-PASS' "$LOG" 2>/dev/null)

# the counters, from the benches' JSON and stderr and the target's log
python3 - "$OUT" <<'PY' || nfail=$((nfail + 1))
import json, os, re, sys

d = sys.argv[1]
bad = 0


def check(ok, name, why):
    global bad
    print("%s %s: %s" % ("PASS" if ok else "FAIL", name, why))
    bad += not ok


def job(name):
    try:
        return json.load(open(os.path.join(d, name + ".json")))["jobs"][0]
    except (OSError, ValueError, KeyError, IndexError) as e:
        check(False, name + "-json", "no JSON report: %s" % e)
        return None


def verified(name, j):
    reads = j["read"]["total_ios"]
    errs = j["mqblk"]["verify_errors"]
    check(reads > 0 and errs == 0 and j["error"] == 0, name + "-verified",
          "%d blocks read back, %d verify errors" % (reads, errs))


def paths(name, j):
    try:
        return j["multipath"]["paths"]
    except KeyError:
        check(False, name + "-paths", "no multipath paths in the JSON")
        return None


def err(name):
    try:
        return open(os.path.join(d, name + ".err"), errors="replace").read()
    except OSError:
        return ""


# (2) nvme-rdma alone
j = job("rdma")
if j:
    verified("rdma", j)
    r = j.get("nvme_rdma")
    if r is None:
        check(False, "rdma-counters", "no nvme_rdma object in the JSON")
    else:
        moved = r["sends"] > 0 and r["recv_done"] > 0 and r["cqes"] > 0 and \
            r["keyed"] + r["incapsule"] > 0
        check(moved, "rdma-counters",
              "sends %d, recv_done %d, cqes %d, events %d, regs %d, keyed %d, in-capsule %d"
              % (r["sends"], r["recv_done"], r["cqes"], r["events"],
                 r["regs"], r["keyed"], r["incapsule"]))
        total = sum(j[k]["total_ios"] for k in ("read", "write", "trim"))
        check(r["sends"] >= total, "rdma-sends-cover-ios",
              "%d SENDs for %d I/Os" % (r["sends"], total))

# (3a) both paths carry I/O
j = job("mp")
if j:
    verified("mp", j)
    p = paths("mp", j)
    if p:
        total = sum(j[k]["total_ios"] for k in ("read", "write", "trim"))
        c = [x["completed"] for x in p]
        desc = ", ".join("%s %s completed %d" % (x["name"], x["state"], x["completed"]) for x in p)
        check(len(p) == 2 and all(v > 0 for v in c), "mp-both-paths", desc)
        check(sum(c) == total, "mp-paths-add-up", "%d completed over the paths, %d I/Os" % (sum(c), total))
        check(all(x["failovers"] == 0 for x in p), "mp-no-failover",
              "failovers %s" % [x["failovers"] for x in p])

# (3b, 3c) one path cut mid-verify: index 0 is the RDMA path, 1 the TCP one
for name, cutp in (("cut-rdma", 0), ("cut-tcp", 1)):
    j = job(name)
    if not j:
        continue
    verified(name, j)
    p = paths(name, j)
    if not p or len(p) != 2:
        check(False, name + "-paths", "expected two paths, got %s" % p)
        continue
    cutx, other = p[cutp], p[1 - cutp]
    desc = "; ".join("%s %s sent %d completed %d failovers %d reconnects %d"
                     % (x["name"], x["state"], x["sent"], x["completed"],
                        x["failovers"], x["reconnects"]) for x in p)
    e = err(name)
    down = re.search(r"path %s: live -> (resetting|connecting)" % re.escape(cutx["name"]), e)
    check(bool(down), name + "-path-went-down",
          "the bench's log %s the cut path leaving live" % ("shows" if down else "does not show"))
    # reconnects: the resets of the path's controller during the job, so
    # the cut came while the job was running, not before it opened
    check(cutx["reconnects"] >= 1, name + "-cut-during-job", desc)
    check(other["completed"] > 0 and other["state"] == "live" and other["reconnects"] == 0,
          name + "-other-path-carried", "%s completed %d, %s, %d resets"
          % (other["name"], other["completed"], other["state"], other["reconnects"]))
    check(cutx["sent"] == cutx["completed"] + cutx["failovers"], name + "-cut-path-accounted",
          "sent %d = completed %d + failed over %d" % (cutx["sent"], cutx["completed"], cutx["failovers"]))
    total = sum(j[k]["total_ios"] for k in ("read", "write", "trim"))
    check(cutx["completed"] + other["completed"] == total, name + "-adds-up",
          "%d + %d completed over the paths, %d I/Os" % (cutx["completed"], other["completed"], total))

# (4) the target's log and the benches' stderr: no sanitizer report
SAN = r"(ERROR: (Address|Leak|Thread)Sanitizer|runtime error:).*"
for log in ("target.log", "rdma.err", "mp.err", "cut-rdma.err", "cut-tcp.err"):
    try:
        t = open(os.path.join(d, log), errors="replace").read()
    except OSError:
        t = ""
    san = re.search(SAN, t)
    check(not san, log + "-clean", san.group(0) if san else "no sanitizer report")
sys.exit(1 if bad else 0)
PY

if [[ $nfail != 0 || ${INTEROP_VERBOSE:-0} = 1 ]] && [[ -s $OUT/target.log ]]; then
	echo "--- the target's log"
	tail -n 40 "$OUT/target.log"
fi
iop_log "$npass passed in the guest, $nfail failed, guest rc $IOP_JOB_RC, $(iop_since "$T_START") s"
if [[ $IOP_JOB_RC != 0 || $nfail != 0 || $npass -lt 11 ]]; then
	INTEROP_KEEP=1
	tail -n 30 "$RUN/console.log" >&2
	exit 1
fi
exit 0
