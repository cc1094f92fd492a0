#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# spdk.sh MQBLK: SPDK (v23.05, built outside the project at $SPDK_DIR,
# default /work/spdk: see bench/vs-spdk's header) and mqblk over NVMe/TCP
# on 127.0.0.1, both ways.
#
# SPDK host -> `mqblk target` (nsid 1 null:memory_backed=1 64 MiB, nsid 2
# a 48 MiB file, any host):
#   spdk-identify  SPDK's identify example reads the controller (model
#                  "mqblk", the serial and MDTS mqblk's own id-ctrl
#                  reads) and both namespaces' sizes (LBAs x LBA size)
#   spdk-perf-*    SPDK's perf, randread and randwrite, 4 KiB, 64 KiB and
#                  256 KiB (above 128 KiB), QD16, PERF_S seconds, without
#                  and with header+data digests (-H -I), on both
#                  namespaces, through a relay that reads each
#                  connection's ICReq/ICResp: exit 0, IOPS > 0, no error
#                  line; the target's I/O queues counted the reads or
#                  writes, with no errors and no data digest errors; every
#                  connection asked for and was granted the digests (or
#                  none)
# mqblk host -> SPDK's nvmf_tgt (set up with scripts/rpc.py: a TCP
# transport with its defaults, so max_io_size 128 KiB; a 64 MiB malloc
# bdev, 512-byte blocks; a subsystem with a known serial and model; a
# listener and a discovery listener on free loopback ports):
#   mqblk-discover the discovery log lists the subsystem at its port
#   mqblk-id-ctrl  model, serial and mdts (5: 128 KiB) as configured
#   mqblk-id-ns    nsze = 64 MiB / 512
#   mqblk-verify-* `mqblk bench` randwrite + crc32c verify, 4 KiB and
#                  128 KiB, 16 MiB, without and with digests; the bdev's
#                  counters (bdev_get_iostat) grew by at least 16 MiB
#                  written and 16 MiB read (the verify pass)
#   mqblk-bsrange  the same with --bsrange=4k-256k: commands above the
#                  target's MDTS must be split by the host
# and both targets must still be up at the end (mqblk's must then stop
# cleanly on SIGTERM: lib.sh's stop_target check).
#
# SPDK needs hugepages: fewer than 1024 are raised to 1024 and hugetlbfs
# is mounted on /dev/hugepages when it is not; both are undone at exit,
# and every process started is stopped, also on failure.
# Exit: 0 all passed, 1 a check failed, 77 SPDK not built here (or not
# root and too few hugepages).
# Knobs: SPDK_DIR, PERF_S (seconds per perf run, default 3).
set -uo pipefail

SPDK_DIR=${SPDK_DIR:-/work/spdk}
# v23.05's names; later releases call them spdk_nvme_identify/_perf
SPDK_IDENTIFY=$SPDK_DIR/build/examples/identify
[[ -x $SPDK_IDENTIFY ]] || SPDK_IDENTIFY=$SPDK_DIR/build/bin/spdk_nvme_identify
SPDK_PERF=$SPDK_DIR/build/examples/perf
[[ -x $SPDK_PERF ]] || SPDK_PERF=$SPDK_DIR/build/bin/spdk_nvme_perf
SPDK_TGT=$SPDK_DIR/build/bin/nvmf_tgt

# pass/fail/check/finish, start_target/stop_target (mqblk's target on a
# free port: PORT, TPID, TLOG, $TMP/stats.sock), TMP
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/../cli/lib.sh"
# spdk_require, spdk_setup (hugepages, the EXIT trap), spdk_stop_pid,
# spdk_forget_pid, spdk_rpc, spdk_start, spdk_run: tests/interop/spdk-lib.sh
# shellcheck source=tests/interop/spdk-lib.sh
. "$(dirname "$0")/spdk-lib.sh"
spdk_require "$SPDK_IDENTIFY" "$SPDK_PERF" "$SPDK_TGT" "$SPDK_RPC"
PERF_S=${PERF_S:-3}
NS1_BYTES=$((64 << 20))
NS2_BYTES=$((48 << 20))
NQN=nqn.2026-12.io.mqblk:spdk-interop
SPDK_NQN=nqn.2016-06.io.spdk:mqblk-interop
SPDK_SN=SPDKMQBLK0000001
SPDK_MN="SPDK mqblk interop"
SPDK_MALLOC_MB=64
SPDK_BS=512

# ---- clean-up: the relay and the counter sampler, then spdk-lib.sh's
# (SPDK processes, mqblk's target, hugepages) ----
SAMPLER=
RELAY=
# shellcheck disable=SC2317 # run by spdk_cleanup
spdk_cleanup_hook()
{
	[[ -n $SAMPLER ]] && kill "$SAMPLER" 2>/dev/null && wait "$SAMPLER" 2>/dev/null
	[[ -n $RELAY ]] && kill "$RELAY" 2>/dev/null && wait "$RELAY" 2>/dev/null
	return 0
}
spdk_setup

# tail_of NAME: the last lines of NAME's output, on one line, for a FAIL.
tail_of()
{
	tail -n 4 "$TMP/$1.out" | tr '\n' '|' | cut -c1-400
}

# ====================================================================
# SPDK's host against mqblk's target
# ====================================================================
truncate -s "$NS2_BYTES" "$TMP/ns2.img"
: >"$TLOG" # (wait_ready may look before the target's redirection opens it)
start_target --ns "null:size=$NS1_BYTES,memory_backed=1" --ns "$TMP/ns2.img" \
	--allow-any-host --reactors 1 || {
	echo "FAIL setup: mqblk target did not start"
	exit 1
}
# shellcheck disable=SC2153 # PORT and TPID: set by start_target
TRID="trtype:TCP adrfam:IPv4 traddr:127.0.0.1 trsvcid:$PORT subnqn:$NQN"

# perf goes through a relay that records, per connection, the digest
# byte (offset 11) of the host's ICReq and of the target's ICResp: what
# was asked for and what was granted (1 header, 2 data digest).
RELAY_LOG=$TMP/relay.log
: >"$RELAY_LOG"
: >"$TMP/relay.out"
python3 - "$PORT" "$RELAY_LOG" >"$TMP/relay.out" 2>&1 <<'PY' &
import socket, sys, threading
tport, log = int(sys.argv[1]), sys.argv[2]
lock = threading.Lock()
def pump(src, dst, n, tag):
    head = b""
    while True:
        try:
            b = src.recv(65536)
        except OSError:
            b = b""
        if not b:
            break
        if head is not None:
            head += b
            if len(head) >= 12:
                with lock, open(log, "a") as f:
                    f.write("%d %s type %d digest %d\n" % (n, tag, head[0], head[11]))
                head = None
        try:
            dst.sendall(b)
        except OSError:
            break
    for s in (dst, src):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
l = socket.socket()
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("127.0.0.1", 0))
l.listen(64)
print("ready", l.getsockname()[1], flush=True)
n = 0
while True:
    c, _ = l.accept()
    t = socket.create_connection(("127.0.0.1", tport))
    for s in (c, t):
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    n += 1
    threading.Thread(target=pump, args=(c, t, n, "icreq"), daemon=True).start()
    threading.Thread(target=pump, args=(t, c, n, "icresp"), daemon=True).start()
PY
RELAY=$!
RPORT=
for _ in $(seq 100); do
	RPORT=$(awk '$1 == "ready" { print $2 }' "$TMP/relay.out")
	[[ -n $RPORT ]] && break
	sleep 0.1
done
[[ -n $RPORT ]] || {
	echo "FAIL setup: the relay did not start: $(head -n 3 "$TMP/relay.out")"
	exit 1
}
RELAY_TRID="trtype:TCP adrfam:IPv4 traddr:127.0.0.1 trsvcid:$RPORT subnqn:$NQN"

# mqblk's own host reads the serial the target derives from the NQN and
# the MDTS it reports (SPDK's identify prints 4 KiB << mdts, "Unlimited"
# for 0: CAP.MPSMIN is 0)
SN="" MDTS=""
if timeout -k 5 20 "$MQBLK" id-ctrl "nvme-tcp://127.0.0.1:$PORT/$NQN" \
	>"$TMP/mqblk-id-ctrl.out" 2>&1 </dev/null; then
	SN=$(awk -F' *: *' '$1 == "sn" { sub(/ +$/, "", $2); print $2 }' "$TMP/mqblk-id-ctrl.out")
	MDTS=$(awk -F' *: *' '$1 == "mdts" { print $2 + 0 }' "$TMP/mqblk-id-ctrl.out")
fi
if [[ -z $SN || -z $MDTS ]]; then
	fail "mqblk-id-ctrl-target" "mqblk id-ctrl: $(head -n 1 "$TMP/mqblk-id-ctrl.out")"
elif ((MDTS == 0)); then
	MDTS_SPDK=Unlimited
else
	MDTS_SPDK=$((4096 << MDTS))
fi

# identify_field LABEL: the value after "LABEL:" in identify's output
identify_field()
{
	awk -v l="$1:" 'index($0, l) == 1 { v = substr($0, length(l) + 1); sub(/^ +/, "", v); sub(/ +$/, "", v); print v; exit }' \
		"$TMP/identify.out"
}

# identify_ns_bytes NSID: that namespace's Size (in LBAs) x the data size
# of its current LBA format, from identify's output
identify_ns_bytes()
{
	awk -v want="$1" '
		/^Namespace ID:/ { split($0, a, ":"); ns = a[2] + 0 }
		ns != want { next }
		/^Size \(in LBAs\):/ { lbas = $4 }
		/^Current LBA Format:/ { cur = $NF ":" }
		/^LBA Format #[0-9]+: Data Size:/ { if ($3 == cur) bs = $6 }
		END { if (lbas != "" && bs != "") print lbas * bs }' "$TMP/identify.out"
}

spdk_run identify 60 "$SPDK_IDENTIFY" -r "$TRID"
if ((RC != 0)); then
	fail "spdk-identify" "exit status $RC: $(tail_of identify)"
else
	mn=$(identify_field "Model Number")
	sn=$(identify_field "Serial Number")
	mdts=$(identify_field "Max Data Transfer Size")
	b1=$(identify_ns_bytes 1)
	b2=$(identify_ns_bytes 2)
	why=
	[[ $mn == mqblk ]] || why+=" model '$mn', want 'mqblk';"
	[[ -n $SN && $sn == "$SN" ]] || why+=" serial '$sn', mqblk id-ctrl read '$SN';"
	[[ -n ${MDTS_SPDK:-} && $mdts == "$MDTS_SPDK" ]] ||
		why+=" max data transfer size '$mdts', want ${MDTS_SPDK:-?} (mqblk id-ctrl: mdts ${MDTS:-?});"
	[[ $b1 == "$NS1_BYTES" ]] || why+=" nsid 1 '$b1' bytes, want $NS1_BYTES;"
	[[ $b2 == "$NS2_BYTES" ]] || why+=" nsid 2 '$b2' bytes, want $NS2_BYTES;"
	# SPDK's library logs *ERROR* for a refused command. Property Get of
	# CMBSZ and PMRCAP (registers NVMe-oF does not define) is refused by
	# SPDK's own nvmf_tgt too; anything else is a finding.
	err=$(grep -F '*ERROR*' "$TMP/identify.out" | grep -vF 'Property Get failed' | head -n 1)
	[[ -z $err ]] || why+=" $err;"
	# identify's own notes on optional features (get_feature(0x04), the
	# temperature threshold, fails here as on the kernel's nvmet)
	notes=$(grep -E '^get_feature\(0x[0-9A-F]+\) failed' "$TMP/identify.out" |
		sed 's/ failed//' | tr '\n' ' ')
	if [[ -n $why ]]; then
		fail "spdk-identify" "${why% ;}"
	else
		pass "spdk-identify: model $mn, serial $sn, MDTS $mdts, nsid 1 $b1 bytes, nsid 2 $b2 bytes${notes:+ (not supported: ${notes% })}"
	fi
fi

# io_queue_sums: reads writes errors ddgst_errors summed over the I/O
# queues (qid > 0) the running target lists now; nothing if none
io_queue_sums()
{
	"$MQBLK" target --stats --stats-socket "$TMP/stats.sock" 2>/dev/null |
		awk 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["qid"] > 0 { n++; r += $c["reads"]; w += $c["writes"]
				e += $c["errors"]; d += $c["ddgst"] }
			END { if (n) print r, w, e, d }'
}

# perf_run NAME RW BS PERF-ARGS...: SPDK perf against both namespaces,
# through the relay (its log lines for this run in $TMP/NAME.relay); the
# target's I/O-queue counters are sampled while it runs (the queues go
# away with the connection), the last sample kept in $TMP/NAME.stats.
perf_run()
{
	local name=$1 rw=$2 bs=$3 s n0
	shift 3
	: >"$TMP/$name.stats"
	n0=$(wc -l <"$RELAY_LOG")
	(
		while :; do
			s=$(io_queue_sums)
			[[ -n $s ]] && echo "$s" >"$TMP/$name.stats"
			sleep 0.2
		done
	) &
	SAMPLER=$!
	spdk_run "$name" $((PERF_S + 60)) "$SPDK_PERF" -q 16 -o "$bs" -w "$rw" \
		-t "$PERF_S" -c 0x1 -r "$RELAY_TRID" "$@"
	kill "$SAMPLER" 2>/dev/null
	wait "$SAMPLER" 2>/dev/null
	SAMPLER=
	tail -n +$((n0 + 1)) "$RELAY_LOG" >"$TMP/$name.relay"
}

# perf_check NAME RW DIGEST: perf exited 0, printed a Total line with
# IOPS > 0 and no error line; the target counted the I/O, with no
# errors; at least 2 connections (admin + I/O) each asked for and were
# granted digest byte DIGEST (0 none, 3 header and data).
perf_check()
{
	local name=$1 rw=$2 dgst=$3 out=$TMP/$1.out iops why="" r w e d nc bad
	iops=$(awk -F: '/^Total *:/ { split($2, a, " "); print a[1] }' "$out")
	read -r r w e d <"$TMP/$name.stats"
	((RC == 0)) || why="exit status $RC"
	[[ -z $why ]] && ! awk -v v="$iops" 'BEGIN { exit !(v + 0 > 0) }' &&
		why="no Total line with IOPS > 0"
	[[ -z $why ]] && grep -qE 'completed with error|I/O failed|\*ERROR\*|[Ff]ailed|transport error' "$out" &&
		why="error: $(grep -m 1 -E 'completed with error|I/O failed|\*ERROR\*|[Ff]ailed|transport error' "$out")"
	if [[ -z $why ]]; then
		if [[ -z ${r:-} ]]; then
			why="the target never listed an I/O queue"
		elif [[ $rw == randread ]] && ((r == 0 || w != 0)); then
			why="target counted $r reads and $w writes"
		elif [[ $rw == randwrite ]] && ((w == 0 || r != 0)); then
			why="target counted $r reads and $w writes"
		elif ((e != 0 || d != 0)); then
			why="target counted $e errors, $d data digest errors"
		fi
	fi
	nc=$(grep -c ' icresp type 1 ' "$TMP/$name.relay")
	bad=$(awk -v d="$dgst" '$2 ~ /^ic/ && ($4 != ($2 == "icreq" ? 0 : 1) || $6 != d)' "$TMP/$name.relay" | head -n 1)
	[[ -z $why && -n $bad ]] && why="relay saw '$bad', want type 0/1 digest $dgst"
	[[ -z $why ]] && ((nc < 2)) && why="the relay saw $nc connections, want >= 2"
	if [[ -n $why ]]; then
		fail "$name" "$why: $(tail_of "$name")"
	else
		pass "$name: $iops IOPS; target I/O queues: $r reads, $w writes, 0 errors; $nc connections, digest byte $dgst asked and granted"
	fi
}

for dg in none digests; do
	dargs=()
	dbyte=0
	[[ $dg == digests ]] && dargs=(-H -I) dbyte=3
	for rw in randread randwrite; do
		for bs in 4096 65536 262144; do
			n=spdk-perf-$rw-$((bs >> 10))k-$dg
			perf_run "$n" "$rw" "$bs" "${dargs[@]}"
			perf_check "$n" "$rw" "$dbyte"
		done
	done
done
if kill -0 "$TPID" 2>/dev/null; then
	pass "mqblk-target-alive"
else
	fail "mqblk-target-alive" "the target exited: $(tail -n 2 "$TLOG" | tr '\n' '|')"
fi
kill "$RELAY" 2>/dev/null
wait "$RELAY" 2>/dev/null
RELAY=
# shellcheck disable=SC2119 # no arguments: TPID and TLOG
stop_target

# ====================================================================
# mqblk's host against SPDK's nvmf_tgt
# ====================================================================
SOCK=$TMP/spdk.sock
rpc()
{
	spdk_rpc "$SOCK" "$@"
}

SPORT=$(free_port)
DPORT=$(free_port)
while [[ $DPORT == "$SPORT" ]]; do DPORT=$(free_port); done
# (a set-up that fails here is reported by the first rpc below)
spdk_start nvmf_tgt "$SOCK" "$SPDK_TGT" -m 0x1
TGT_PID=$SPDK_PID
setup_ok=1
for cmd in "nvmf_create_transport -t TCP" \
	"bdev_malloc_create -b Malloc0 $SPDK_MALLOC_MB $SPDK_BS" \
	"nvmf_create_subsystem $SPDK_NQN -a -s $SPDK_SN -d '$SPDK_MN'" \
	"nvmf_subsystem_add_ns $SPDK_NQN Malloc0" \
	"nvmf_subsystem_add_listener $SPDK_NQN -t tcp -f ipv4 -a 127.0.0.1 -s $SPORT" \
	"nvmf_subsystem_add_listener discovery -t tcp -f ipv4 -a 127.0.0.1 -s $DPORT"; do
	eval "args=($cmd)"
	# shellcheck disable=SC2154 # set by the eval
	if ! rpc "${args[@]}" >>"$TMP/rpc.out" 2>&1; then
		fail "spdk-nvmf_tgt-setup" "rpc.py $cmd: $(tail -n 2 "$TMP/rpc.out" | tr '\n' '|') nvmf_tgt: $(tail -n 3 "$TMP/nvmf_tgt.out" | tr '\n' '|')"
		setup_ok=0
		break
	fi
done

if ((setup_ok)); then
	pass "spdk-nvmf_tgt-setup: $SPDK_NQN on 127.0.0.1:$SPORT, discovery on :$DPORT"
	URI="nvme-tcp://127.0.0.1:$SPORT/$SPDK_NQN"

	# mqblk NAME ARGS...: mqblk ARGS, at most 120 s, output in
	# $TMP/NAME.out; sets RC.
	mqblk()
	{
		local name=$1
		shift
		echo "$MQBLK $*" >"$TMP/$name.cmd"
		RC=0
		timeout -k 5 120 "$MQBLK" "$@" >"$TMP/$name.out" 2>&1 </dev/null || RC=$?
	}

	mqblk discover discover -t tcp -a 127.0.0.1 -s "$DPORT" -o json
	if ((RC != 0)); then
		fail "mqblk-discover" "exit status $RC: $(tail_of discover)"
	elif python3 - "$TMP/discover.out" "$SPDK_NQN" "$SPORT" <<'PY'; then
import json, sys
d = json.load(open(sys.argv[1]))
ok = any(r.get("subnqn") == sys.argv[2] and str(r.get("trsvcid")).strip() == sys.argv[3]
         and r.get("traddr", "").strip() == "127.0.0.1" for r in d.get("records", []))
sys.exit(0 if ok else 1)
PY
		pass "mqblk-discover: $SPDK_NQN at 127.0.0.1:$SPORT in SPDK's discovery log"
	else
		fail "mqblk-discover" "no record for $SPDK_NQN at 127.0.0.1:$SPORT: $(tail_of discover)"
	fi

	mqblk id-ctrl id-ctrl "$URI" -o json
	if ((RC != 0)); then
		fail "mqblk-id-ctrl" "exit status $RC: $(tail_of id-ctrl)"
	elif why=$(python3 - "$TMP/id-ctrl.out" "$SPDK_SN" "$SPDK_MN" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
why = []
if d["sn"].rstrip() != sys.argv[2]: why.append("sn %r, want %r" % (d["sn"], sys.argv[2]))
if d["mn"].rstrip() != sys.argv[3]: why.append("mn %r, want %r" % (d["mn"], sys.argv[3]))
# SPDK's TCP transport: max_io_size 128 KiB = 2^5 pages of 4 KiB
if d["mdts"] != 5: why.append("mdts %r, want 5" % d["mdts"])
print("; ".join(why))
PY
	) && [[ -z $why ]]; then
		pass "mqblk-id-ctrl: sn $SPDK_SN, mn '$SPDK_MN', mdts 5 (128 KiB)"
	else
		fail "mqblk-id-ctrl" "${why:-unreadable JSON}: $(tail_of id-ctrl)"
	fi

	mqblk id-ns id-ns "$URI" -n 1 -o json
	want=$((SPDK_MALLOC_MB * 1048576 / SPDK_BS))
	if ((RC != 0)); then
		fail "mqblk-id-ns" "exit status $RC: $(tail_of id-ns)"
	elif nsze=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["nsze"])' \
		"$TMP/id-ns.out") && [[ $nsze == "$want" ]]; then
		pass "mqblk-id-ns: nsze $nsze ($SPDK_MALLOC_MB MiB in $SPDK_BS-byte blocks)"
	else
		fail "mqblk-id-ns" "nsze '${nsze:-}', want $want: $(tail_of id-ns)"
	fi

	# bdev_bytes: "BYTES_READ BYTES_WRITTEN", the malloc bdev's counters
	bdev_bytes()
	{
		rpc bdev_get_iostat -b Malloc0 2>/dev/null |
			python3 -c 'import json, sys; b = json.load(sys.stdin)["bdevs"][0]; print(b["bytes_read"], b["bytes_written"])'
	}

	# verify_run NAME QUERY BENCH-ARGS...: randwrite 16 MiB + crc32c
	# verify through URI?QUERY; exit 0, err=0, no I/O or verify errors
	# in the report, and the bdev took at least 16 MiB of writes and
	# gave at least 16 MiB of reads (the verify pass).
	verify_run()
	{
		local name=$1 q=$2 r0 w0 r1 w1 why="" want=$((16 << 20))
		shift 2
		read -r r0 w0 < <(bdev_bytes)
		mqblk "$name" bench --name="$name" --filename="$URI${q:+?$q}" --eta=never \
			--rw=randwrite --size=16m --iodepth=8 --verify=crc32c --do_verify=1 \
			--verify_fatal=1 "$@"
		read -r r1 w1 < <(bdev_bytes)
		((RC == 124 || RC == 137)) && why="timed out after 120 s"
		[[ -z $why ]] && ((RC != 0)) && why="exit status $RC"
		[[ -z $why ]] && grep -qE 'err= *[1-9]' "$TMP/$name.out" && why="a job has err != 0"
		[[ -z $why ]] && ! grep -q 'err= *0' "$TMP/$name.out" && why="no job report"
		[[ -z $why ]] && grep -qE '(errors|timeouts|verify_errors)=[1-9]' "$TMP/$name.out" &&
			why=$(grep -oE '(errors|timeouts|verify_errors)=[1-9][0-9]*' "$TMP/$name.out" | sort -u | tr '\n' ' ')
		[[ -z $why ]] && ! [[ ${r0:-} =~ ^[0-9]+$ && ${w0:-} =~ ^[0-9]+$ &&
			${r1:-} =~ ^[0-9]+$ && ${w1:-} =~ ^[0-9]+$ ]] &&
			why="bdev_get_iostat unreadable"
		[[ -z $why ]] && ((w1 - w0 < want || r1 - r0 < want)) &&
			why="the bdev took $((w1 - w0)) bytes of writes and gave $((r1 - r0)) of reads, want >= $want each"
		if [[ -n $why ]]; then
			fail "$name" "$why: $(grep -m 3 -iE 'mqblk|error|verify' "$TMP/$name.out" | tr '\n' '|' | cut -c1-400)"
		else
			pass "$name: 16 MiB written and crc32c-verified; the bdev took $((w1 - w0)) bytes, gave $((r1 - r0))"
		fi
	}

	for dg in none digests; do
		q=
		[[ $dg == digests ]] && q="hdr_digest=1&data_digest=1"
		verify_run "mqblk-verify-4k-$dg" "$q" --bs=4k
		verify_run "mqblk-verify-128k-$dg" "$q" --bs=128k
	done
	# Above SPDK's MDTS: the host must split what the target cannot
	# take in one command.
	verify_run "mqblk-bsrange-4k-256k" "" --bsrange=4k-256k

	if kill -0 "$TGT_PID" 2>/dev/null; then
		pass "spdk-nvmf_tgt-alive"
	else
		fail "spdk-nvmf_tgt-alive" "nvmf_tgt exited: $(tail -n 3 "$TMP/nvmf_tgt.out" | tr '\n' '|')"
	fi
fi

finish
