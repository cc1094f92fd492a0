#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ktls.sh MQBLK: kTLS (the kernel's TLS records after OpenSSL's
# handshake) with mqblk's host and target both in one guest (Debian's
# Linux 6.1, whose tls module this machine's kernel lacks; see
# guest/ktls-job.sh): kTLS both ends with 4 KiB and 128 KiB writes
# verified (crc32c), and mixed, a kTLS host against OpenSSL's records on
# the target and the reverse. Each run: exit 0, blocks read back with no
# verify error; /proc/net/tls_stat's TlsTxSw and TlsRxSw rose by one per
# kTLS end of each connection (two per connection both ends, one mixed;
# connections counted by the target's handshakes); the host says it used
# kTLS exactly when asked; the kTLS target logged each queue in the
# kernel, the other none. KTLS_MEASURE=SECONDS adds time-based rows with
# kTLS off and on (bench/ktls-cost runs it so; TCG: relative figures
# only) and prints them.
# Exit: 0 all passed, 1 a check failed, 2 setup error, 77 cannot run here.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

MQBLK=${1:-}
[[ -n $MQBLK && -x $MQBLK ]] || iop_die "usage: $0 /path/to/mqblk"
command -v nvme >/dev/null || iop_die "no nvme-cli (nvme gen-tls-key)"

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
iop_env KEY "$(nvme gen-tls-key -m 1)"
[ -n "${KTLS_MEASURE:-}" ] && iop_env MEASURE "$KTLS_MEASURE"
limit=300
[ -n "${KTLS_MEASURE:-}" ] && limit=$((limit + 12 * KTLS_MEASURE + 60))
INTEROP_CPUS=2 iop_guest_job "$IOP_DIR/guest/ktls-job.sh" "$limit"

OUT=$RUN/share/out
LOG=$OUT/job.log
grep -a -E '^RDMA-(PASS|FAIL|STEP)' "$LOG" 2>/dev/null | sed 's/^RDMA-//'
nfail=$(grep -a -c '^RDMA-FAIL' "$LOG" 2>/dev/null)
npass=$(grep -a -c '^RDMA-PASS' "$LOG" 2>/dev/null)

python3 - "$OUT" <<'PY' || nfail=$((nfail + 1))
import json, os, sys

d = sys.argv[1]
bad = 0


def check(ok, name, why):
    global bad
    print("%s %s: %s" % ("PASS" if ok else "FAIL", name, why))
    bad += not ok


def text(name):
    try:
        return open(os.path.join(d, name), errors="replace").read()
    except OSError:
        return ""


def stat(name):
    v = {}
    for line in text(name).splitlines():
        f = line.split()
        if len(f) == 2 and f[1].isdigit():
            v[f[0]] = int(f[1])
    return v


def job(name):
    try:
        return json.load(open(os.path.join(d, name + ".json")))["jobs"][0]
    except (OSError, ValueError, KeyError, IndexError) as e:
        check(False, name + "-json", "no JSON report: %s" % e)
        return None


KT = "TLS records in the kernel (kTLS)"
# name: (kTLS ends per connection, the host asked for kTLS)
runs = {"both-4k": (2, True), "both-128k": (2, True),
        "mixed-host": (1, True), "mixed-target": (1, False)}
on_hs = 0
for name, (ends, host_on) in runs.items():
    j = job(name)
    if j:
        reads, errs = j["read"]["total_ios"], j["mqblk"]["verify_errors"]
        check(reads > 0 and errs == 0 and j["error"] == 0,
              name + "-verified",
              "%d blocks read back, %d verify errors" % (reads, errs))
    a, b = stat(name + ".tls0"), stat(name + ".tls1")
    hs = int(text(name + ".hs").strip() or 0)
    if name != "mixed-host":
        on_hs += hs
    tx = b.get("TlsTxSw", 0) - a.get("TlsTxSw", 0)
    rx = b.get("TlsRxSw", 0) - a.get("TlsRxSw", 0)
    check(hs > 0 and tx == ends * hs and rx == ends * hs,
          name + "-kernel-tls",
          "%d connections, TlsTxSw +%d, TlsRxSw +%d (want +%d each)"
          % (hs, tx, rx, ends * hs))
    err = text(name + ".err")
    check((KT in err) == host_on, name + "-host-says",
          "host ktls=%s, its stderr: %r" % ("on" if host_on else "off",
                                            err.strip()[:200]))
# the measured rows' connections to the kTLS target count too
for n in os.listdir(d):
    if n.startswith("m-") and n.endswith("-on.hs"):
        on_hs += int(text(n).strip() or 0)
ton, toff = text("t-on.log"), text("t-off.log")
check(ton.count(KT) == on_hs and on_hs > 0, "target-on-queues",
      "%d queues in the kernel, %d handshakes" % (ton.count(KT), on_hs))
check(KT not in toff and "TLS 1.3 (" in toff, "target-off-queues",
      "the --ktls=off target kept OpenSSL's records")

rows = sorted({n[2:].rsplit("-", 1)[0] for n in os.listdir(d)
               if n.startswith("m-") and n.endswith(".json")})
if rows:
    print("kTLS off vs on in the guest (TCG: relative figures only)")
    print("| row | OpenSSL records | kTLS | kTLS/OpenSSL |")
    print("|---|---|---|---|")
for r in rows:
    v = {}
    for m in ("off", "on"):
        j = job("m-%s-%s" % (r, m))
        if not j:
            continue
        side = "read" if j["read"]["io_bytes"] else "write"
        v[m] = (j[side]["iops"], j[side]["bw"] * 1024 / 1e6)
    if len(v) == 2:
        big = "128k" in r
        f = (lambda x: "%.1f MB/s" % x[1]) if big else \
            (lambda x: "%.0f IOPS" % x[0])
        k = 1 if big else 0
        print("| %s | %s | %s | %.2fx |" % (r, f(v["off"]), f(v["on"]),
              v["on"][k] / v["off"][k] if v["off"][k] else 0))
sys.exit(1 if bad else 0)
PY

if [ "$IOP_JOB_RC" != 0 ] && [ "$nfail" = 0 ]; then
	echo "FAIL guest: job exit $IOP_JOB_RC ($(tail -n 3 "$RUN/console.log" | tr -d '\r'))"
	nfail=1
fi
echo "ktls: $npass guest checks passed, $nfail failed"
[ "$nfail" = 0 ]
