#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# DH-HMAC-CHAP between mqblk's host and mqblk's target on 127.0.0.1, with
# secrets made by nvme-cli's gen-dhchap-key: the right secret works on
# every queue (writes verified), bidirectional too; a wrong secret, no
# secret, or a wrong controller secret is refused with its reason; every
# hash x null/ffdhe2048/ffdhe4096 as the target's choice (its -v log says
# what was used); a host with no key is not asked; discover takes -S/-C.
# Usage: bash tests/cli/auth.sh build/mqblk
source "$(dirname "$0")/lib.sh"

NQN=nqn.2026-12.io.mqblk:auth
HOST=nqn.2026-12.io.mqblk:host-auth
PLAIN=nqn.2026-12.io.mqblk:host-plain

if ! command -v nvme >/dev/null; then
	skip_setup "auth" "nvme-cli (nvme gen-dhchap-key) is not installed"
	finish
fi
# the host's secret transformed with SHA-256 for its NQN, the
# controller's untransformed, 64 bytes; a valid secret that is not it
KEY=$(nvme gen-dhchap-key -m 1 -n "$HOST")
CKEY=$(nvme gen-dhchap-key -m 0 -l 64)
BAD=$(nvme gen-dhchap-key -m 1 -n "$HOST")

# target HASHES GROUPS: the subsystem with HOST keyed, PLAIN not
target()
{
	start_target -v --ns null:size=64m,memory_backed=1 \
		--allow-host "$PLAIN" --allow-host "$HOST" \
		--dhchap-key "$KEY" --dhchap-ctrl-key "$CKEY" \
		--dhchap-hash "$1" --dhchap-dhgroup "$2"
}

# all_authenticated: every queue the keyed host connected (admin: a
# controller created; I/O: "I/O queue N") authenticated, and some did
all_authenticated()
{
	local ctrls ioqs auths
	ctrls=$(grep -c "I/O controller for $NQN (host $HOST," "$TLOG")
	ioqs=$(grep -cE "ctrl [0-9]+: I/O queue [0-9]+ " "$TLOG")
	auths=$(grep -c "host $HOST authenticated" "$TLOG")
	((ctrls > 0 && ioqs > 0 && auths == ctrls + ioqs))
}

target sha384,sha256 ffdhe2048,null || {
	fail setup "no target"
	finish
}

HOSTURI="$(uri)"
run bench --name=a --filename="$(uri "dhchap_secret=$KEY")" \
	--rw=randwrite --bs=4k --size=4m --iodepth=8 --numjobs=1 \
	--verify=crc32c --do_verify=1
ok "the right secret: 4 MiB written and verified" &&
	check "an I/O queue authenticated with SHA-384, ffdhe2048" \
		grep -qE "qid [1-9][0-9]*: host $HOST authenticated \(sha384, ffdhe2048\)" \
		"$TLOG"
check "every queue of the keyed host authenticated" all_authenticated

run id-ctrl "$(uri "dhchap_secret=$KEY&dhchap_ctrl_secret=$CKEY")"
ok "bidirectional: id-ctrl" &&
	check "id-ctrl: the model" has "mqblk"
check "bidirectional in the target's log" grep -q \
	"authenticated (sha384, ffdhe2048, bidirectional)" "$TLOG"

run id-ctrl "$(uri "dhchap_secret=$BAD")"
failed "a wrong secret: refused by the controller" \
	"DH-HMAC-CHAP \(qid 0\) failed: authentication failed \(AUTH_Failure1 from the controller\)"
check "the target logs the failure" grep -q \
	"DH-HMAC-CHAP failed: authentication failed" "$TLOG"

run id-ctrl "$HOSTURI"
failed "no secret: refused" \
	"requires DH-HMAC-CHAP authentication \(qid 0\): give dhchap_secret="

run id-ctrl "$(uri "dhchap_secret=$KEY&dhchap_ctrl_secret=$KEY")"
failed "a wrong controller secret: this host refuses the controller" \
	"failed: authentication failed \(this host refused the controller's message\)"
check "... and the target hears it" grep -q \
	"authentication failed (said the host)" "$TLOG"

run id-ctrl "nvme-tcp://127.0.0.1:$PORT/$NQN?hostnqn=$PLAIN"
ok "a host without a key is not asked"

run id-ctrl "$(uri "dhchap_secret=DHHC-1:00:AAAA:")"
failed "a malformed secret: one line, the secret not echoed" \
	"dhchap_secret: DH-HMAC-CHAP secret: 3 bytes of key and CRC"
check "the malformed secret is not in the message" \
	bash -c "! grep -q AAAA '$ERR'"

# the secret from a file: only its owner may read it
echo "$KEY" >"$TMP/key"
chmod 600 "$TMP/key"
run id-ctrl "$(uri "dhchap_secret=@$TMP/key")"
ok "dhchap_secret=@FILE (mode 600)"
chmod 644 "$TMP/key"
run id-ctrl "$(uri "dhchap_secret=@$TMP/key")"
failed "dhchap_secret=@FILE readable by others: refused" \
	"key file .*: group or others may read or write it \(mode 0644\)"

run id-ctrl "$(uri "dhchap_ctrl_secret=$CKEY")"
failed "a controller secret alone: refused" \
	"dhchap_ctrl_secret without dhchap_secret"

# the I/O port serves discovery too
run discover -t tcp -a 127.0.0.1 -s "$PORT" -q "$HOST" -S "$KEY" -C "$CKEY"
ok "discover takes --dhchap-secret/--dhchap-ctrl-secret" &&
	check "discover: the subsystem's entry" has "subnqn:  $NQN"
stop_target

# multipath: the URI's secrets go to every path (they were refused as
# unknown keys of the multipath device); every queue of both paths
# authenticates, bidirectionally, and both carry the writes
P2=$(free_port)
start_target -v --listen "127.0.0.1:$P2" --ns null:size=64m,memory_backed=1 \
	--allow-host "$HOST" --dhchap-key "$KEY" --dhchap-ctrl-key "$CKEY" \
	--dhchap-hash sha256 --dhchap-dhgroup ffdhe2048
run bench --name=mp \
	--filename="nvme-tcp://127.0.0.1:$PORT,127.0.0.1:$P2/$NQN?hostnqn=$HOST&iopolicy=round-robin&dhchap_secret=$KEY&dhchap_ctrl_secret=$CKEY" \
	--rw=randwrite --bs=4k --size=4m --iodepth=8 --verify=crc32c \
	--output-format=json
ok "multipath, dhchap_secret= and dhchap_ctrl_secret=: written and verified over two paths" &&
	check "multipath: every queue of both paths authenticated" all_authenticated &&
	check "multipath: bidirectional on every queue" test \
		"$(grep -c "host $HOST authenticated (sha256, ffdhe2048, bidirectional)" "$TLOG")" = \
		"$(grep -c "host $HOST authenticated" "$TLOG")" &&
	check "multipath: both paths live and carried I/O" mp_paths_carried 2
stop_target

# every hash, three groups: the target's only choice each time
# A host that Connects, is told to authenticate (AUTHREQ) and then says
# nothing, KATO 0: the target closes the queue once the exchange has stood
# still for its authentication timeout (5 s), not never
stall_host()
{
	python3 - "$PORT" "$HOST" "$NQN" <<'PY'
import socket, struct, sys, time
port, hostnqn, subnqn = int(sys.argv[1]), sys.argv[2], sys.argv[3]
s = socket.create_connection(("127.0.0.1", port))
def read(n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            return None
        b += c
    return b
icreq = struct.pack("<BBBBIHBBI", 0, 0, 128, 0, 128, 0, 0, 0, 0)
s.sendall(icreq + bytes(128 - len(icreq)))
if not read(128):
    print("no ICResp"); sys.exit(0)
data = bytearray(1024)
data[16:18] = struct.pack("<H", 0xffff)
data[256:256 + len(subnqn)] = subnqn.encode()
data[512:512 + len(hostnqn)] = hostnqn.encode()
sqe = bytearray(64)
sqe[0], sqe[1] = 0x7f, 0x40
sqe[2:4] = struct.pack("<H", 1)
sqe[4] = 0x01  # Connect
sqe[24:40] = struct.pack("<QI3xB", 0, 1024, 0x01)
sqe[44:46] = struct.pack("<H", 31)
sqe[48:52] = struct.pack("<I", 0)  # KATO 0: no keep-alive timeout
s.sendall(struct.pack("<BBBBI", 0x04, 0, 72, 72, 72 + 1024) + bytes(sqe) +
          bytes(data))
rsp = read(24)
if not rsp or rsp[0] != 0x05:
    print("no CapsuleResp"); sys.exit(0)
dw0 = struct.unpack("<I", rsp[8:12])[0]
st = struct.unpack("<H", rsp[22:24])[0] >> 1
t0 = time.monotonic()
s.settimeout(30)
try:
    closed = s.recv(1) == b""
except OSError:
    closed = False
print("status=0x%x authreq=%d closed=%d after=%.0f" %
      (st & 0x7ff, (dw0 >> 16) & 3 != 0, closed, time.monotonic() - t0))
PY
}
target sha256 null || fail "stall: target" "did not start"
stall=$(stall_host)
check "a host that stops after AUTHREQ: asked to authenticate" \
	grep -q "status=0x0 authreq=1 " <<<"$stall"
check "a host that stops after AUTHREQ: its queue closed (KATO 0)" \
	grep -q " closed=1 " <<<"$stall"
check "the target says why" grep -q \
	"DH-HMAC-CHAP not completed within 5000 ms of its last step" "$TLOG"
echo "stall: $stall"
stop_target

for h in sha256 sha384 sha512; do
	for g in null ffdhe2048 ffdhe4096; do
		if ! target "$h" "$g"; then
			fail "$h/$g: target" "did not start"
			continue
		fi
		run bench --name=m --filename="$(uri "dhchap_secret=$KEY&dhchap_ctrl_secret=$CKEY&nr_io_queues=1")" \
			--rw=write --bs=64k --size=1m --verify=crc32c \
			--do_verify=1
		ok "$h/$g bidirectional: 1 MiB written and verified" &&
			check "$h/$g: on every queue" all_authenticated &&
			check "$h/$g: the log names them" grep -q \
				"authenticated ($h, $g, bidirectional)" "$TLOG"
		stop_target
	done
done
finish
