#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# uring-iopoll.sh MQBLK: the uring driver's IORING_SETUP_IOPOLL path
# (issue 22 §5), which no device on the build machine can take: in the
# QEMU guest a configfs null_blk with a poll queue is one
# (guest/uring-iopoll-job.sh). mqblk bench --hipri on it: 8 MiB of 4 KiB
# random writes, crc32c verified. Checks: exit 0, no verify error, no
# "IOPOLL not supported" fallback nor sanitizer report in its stderr, and
# every completion of the run reaped by polling (the JSON's completions:
# polled equals all of them, none by an interrupt or locally).
# Exit: 0 all passed, 1 a check failed, 2 setup error, 77 cannot run here.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

MQBLK=${1:-}
[[ -n $MQBLK && -x $MQBLK ]] || iop_die "usage: $0 /path/to/mqblk"
iop_setup
iop_new_run
RUN=$IOP_RUN
trap 'iop_stop_vm; [ "${INTEROP_KEEP:-0}" = 1 ] && iop_log "kept $RUN" || rm -rf "$RUN"' EXIT
trap 'exit 130' INT TERM
iop_share_mqblk "$MQBLK" || iop_die "cannot put mqblk in the share"
INTEROP_CPUS=2 iop_guest_job "$here/guest/uring-iopoll-job.sh" "${INTEROP_IOPOLL_LIMIT:-240}"

out=$RUN/share/out
grep -a -E '^RDMA-(PASS|FAIL)' "$out/job.log" 2>/dev/null | sed 's/^RDMA-//'
fails=$(grep -a -c '^RDMA-FAIL' "$out/job.log" 2>/dev/null)
[[ $IOP_JOB_RC == 0 ]] || fails=$((fails + 1))
python3 - "$out" <<'PY' || fails=$((fails + 1))
import json, sys

d = sys.argv[1]
bad = 0


def check(ok, name, why):
    global bad
    print("%s %s: %s" % ("PASS" if ok else "FAIL", name, why))
    bad += not ok


try:
    j = json.load(open(d + "/iopoll.json"))["jobs"][0]
    err = open(d + "/iopoll.err").read()
except (OSError, ValueError, KeyError, IndexError) as e:
    print("FAIL iopoll-json: %s" % e)
    sys.exit(1)
m = j["mqblk"]
c = m["completions"]
total = sum(c.values())
ios = j["write"]["total_ios"] + j["read"]["total_ios"]
check(m["verify_errors"] == 0 and m["errors"] == 0, "iopoll-verify",
      "verify_errors=%d errors=%d" % (m["verify_errors"], m["errors"]))
check("IOPOLL not supported" not in err, "iopoll-ring",
      "no fallback to a plain ring" if "IOPOLL not supported" not in err
      else err.strip().splitlines()[0])
san = [l for l in err.splitlines()
       if "runtime error:" in l or "Sanitizer" in l]
check(not san, "iopoll-sanitizers", san[0] if san else "no report")
check(total > 0 and c["polled"] == total, "iopoll-all-polled",
      "completions %s (%d I/Os)" % (c, ios))
sys.exit(1 if bad else 0)
PY
if ((fails)); then
	echo "uring-iopoll: $fails failed (log: $out/job.log)"
	exit 1
fi
echo "uring-iopoll: passed"
