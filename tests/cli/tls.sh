#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# TLS 1.3 with PSKs between mqblk's host and mqblk's target on 127.0.0.1,
# keys made by nvme-cli's gen-tls-key: the right key works on every queue
# (writes verified), with either hash and either identity form; a wrong
# key, another host's identity, no key, or plaintext on a port that
# requires TLS are refused with their reasons; a port that does not
# require it takes both; discover shows treq and sectype; over a TLS
# session (openssl s_client) the suite follows the PSK, and a Connect must
# name the host the PSK identity named; a host added live with a PSK
# (ctl add-host tls_key=) connects with it.
# Usage: bash tests/cli/tls.sh build/mqblk
source "$(dirname "$0")/lib.sh"

NQN=nqn.2026-12.io.mqblk:tls
HOST=nqn.2026-12.io.mqblk:host-tls
OTHER=nqn.2026-12.io.mqblk:host-other

if ! command -v nvme >/dev/null; then
	skip_setup "tls" "nvme-cli (nvme gen-tls-key) is not installed"
	finish
fi
KEY=$(nvme gen-tls-key -m 1)
KEY384=$(nvme gen-tls-key -m 2)
BAD=$(nvme gen-tls-key -m 1)

# tls_target LISTEN-PREFIX HOSTKEY [ARGS...]: TLS on PORT (required with
# "tls:"), HOST with HOSTKEY, OTHER with its own key
tls_target()
{
	PORT=$(free_port)
	"$MQBLK" target --listen "${1}127.0.0.1:$PORT" --nqn "$NQN" \
		--stats-socket "$TMP/stats.sock" -v \
		--ns null:size=64m,memory_backed=1 \
		--allow-host "$HOST" --tls-key "$2" \
		--allow-host "$OTHER" --tls-key "$BAD" "${@:3}" \
		>"$TLOG" 2>&1 </dev/null &
	TPID=$!
	wait_ready
}

# every queue of this run went through TLS: as many handshakes as
# queues connected (admin controllers + I/O queues), and some
all_tls()
{
	local ctrls ioqs tls
	ctrls=$(grep -c "I/O controller for $NQN (host $HOST," "$TLOG")
	ioqs=$(grep -cE "ctrl [0-9]+: I/O queue [0-9]+ " "$TLOG")
	tls=$(grep -c "TLS 1.3 ($1) as host $HOST to $NQN" "$TLOG")
	((ctrls > 0 && ioqs > 0 && tls == ctrls + ioqs))
}

tls_target tls: "$KEY" || {
	fail setup "no target"
	finish
}
run bench --name=a --filename="$(uri "tls_key=$KEY")" \
	--rw=randwrite --bs=4k --size=4m --iodepth=8 --numjobs=1 \
	--verify=crc32c --do_verify=1
ok "the right key: 4 MiB written and verified over TLS" &&
	check "every queue over TLS_AES_128_GCM_SHA256" \
		all_tls TLS_AES_128_GCM_SHA256

run id-ctrl "$(uri "tls=1&tls_key=$KEY&tls_identity=1")"
ok "the NVMe1R01 identity (PSK digest)" &&
	check "id-ctrl: the model" has "mqblk"

# a host offering both suites, SHA-384's first, with a SHA-256 PSK: the
# target takes the suite the identity names (openssl s_client, its PSK
# computed apart by tests/unit/tls_vectors.py)
if command -v openssl >/dev/null; then
	psk=$(python3 "$(dirname "$0")/../unit/tls_vectors.py" "$KEY" "$HOST" "$NQN" |
		awk '$1 == "psk0" { print $2 }')
	echo | timeout 5 openssl s_client -connect "127.0.0.1:$PORT" -tls1_3 \
		-psk "$psk" -psk_identity "NVMe0R01 $HOST $NQN" \
		-ciphersuites TLS_AES_256_GCM_SHA384:TLS_AES_128_GCM_SHA256 \
		>"$TMP/s_client.out" 2>&1
	check "s_client offering both suites: the PSK's is chosen" grep -q \
		"TLSv1.3, Cipher is TLS_AES_128_GCM_SHA256" "$TMP/s_client.out"
	# the identity proves HOST; a Connect naming OTHER (whose key the
	# target has too) on that session is an invalid host (0x184), and
	# one naming HOST goes through (status 0); s_client -quiet ignores its
	# input's end, so the timeout ends it: 5 s, as 2 s was too short
	# for the handshake and the Connect on a loaded machine
	connect_as()
	{
		python3 "$(dirname "$0")/tls_connect.py" "$1" "$NQN" |
			timeout 5 openssl s_client -quiet -connect "127.0.0.1:$PORT" \
				-tls1_3 -psk "$psk" -psk_identity "NVMe0R01 $HOST $NQN" \
				-ciphersuites TLS_AES_128_GCM_SHA256 2>/dev/null |
			python3 "$(dirname "$0")/tls_connect.py" --status
	}
	check "a Connect as another host over HOST's TLS session: invalid host" \
		test "$(connect_as "$OTHER")" = 0x184
	check "the target says why" grep -q \
		"over a TLS connection whose PSK identity names host $HOST" "$TLOG"
	check "a Connect as the identity's host: status 0" \
		test "$(connect_as "$HOST")" = 0x0
	# a PDU the target refuses: C2HTermReq, then close_notify before
	# the close (RFC 8446 6.1; it closed with none, and s_client saw
	# "unexpected eof while reading")
	python3 -c '
import struct, sys
icreq = struct.pack("<BBBBIHBBI", 0, 0, 128, 0, 128, 0, 0, 0, 0)
sys.stdout.buffer.write(icreq + bytes(128 - len(icreq)) +
                        struct.pack("<BBBBI", 0x09, 0, 8, 0, 8))' |
		timeout 5 openssl s_client -quiet -msg -connect "127.0.0.1:$PORT" \
			-tls1_3 -psk "$psk" -psk_identity "NVMe0R01 $HOST $NQN" \
			-ciphersuites TLS_AES_128_GCM_SHA256 >"$TMP/s_close.out" 2>&1
	check "a refused PDU over TLS: the target sends close_notify" grep -aq \
		"^<<< TLS 1.3, Alert \[length 0002\], warning close_notify" \
		"$TMP/s_close.out"
else
	skip_setup "s_client" "openssl (the command) is not installed"
fi

run id-ctrl "$(uri "tls_key=$BAD")"
failed "a wrong key: the handshake is refused" \
	"TLS handshake as NVMe0R01 $HOST $NQN refused"
check "the target: the binder does not verify" grep -q \
	"TLS handshake failed: .*binder does not verify" "$TLOG"

run id-ctrl "$(uri "tls_key=$BAD&tls_identity=1")"
failed "a wrong key, NVMe1R01: refused" "TLS handshake as NVMe1R01"
check "the target: the digest is not the key's" grep -q \
	"the PSK digest of its identity is not its key's: refused" "$TLOG"

run id-ctrl "nvme-tcp://127.0.0.1:$PORT/$NQN?hostnqn=nqn.2026-12.io.mqblk:nobody&tls_key=$KEY"
failed "a host with no key on the target: refused" "TLS handshake as"
check "the target: no PSK for that host" grep -q \
	"no PSK for host nqn.2026-12.io.mqblk:nobody on $NQN" "$TLOG"

run id-ctrl "$(uri)"
failed "plaintext on a port that requires TLS: refused" "ICReq"
check "the target says why" grep -q \
	"plaintext NVMe/TCP on port 1, which requires TLS: refused" "$TLOG"

run id-ctrl "$(uri "tls=1")"
failed "tls=1 without a key: refused here" "tls=1 needs tls_key="

run id-ctrl "$(uri "tls=0&tls_key=$KEY")"
failed "tls=0 with a key: refused, not ignored" "tls=0 with tls_key="

run id-ctrl "$(uri "tls_key=NVMeTLSkey-1:01:AAAA:")"
failed "a malformed key: one line, not echoed" \
	"tls_key: TLS PSK: 3 bytes of key and CRC"

echo "$KEY" >"$TMP/key"
chmod 600 "$TMP/key"
run id-ctrl "$(uri "tls_key=@$TMP/key")"
ok "tls_key=@FILE (mode 600)"
chmod 644 "$TMP/key"
run id-ctrl "$(uri "tls_key=@$TMP/key")"
failed "tls_key=@FILE readable by others: refused" \
	"key file .*: group or others may read or write it \(mode 0644\)"

run discover -t tcp -a 127.0.0.1 -s "$PORT" -q "$HOST"
failed "discover in plaintext on a TLS-only port: refused" "ICReq"
run discover -t tcp -a 127.0.0.1 -s "$PORT" -q "$HOST" --tls-key "$KEY"
ok "discover --tls-key on the TLS-only port" &&
	check "discover over TLS: the subsystem, TLS required" has_re \
		"^treq: +required, sq flow control disable supported" &&
	check "discover over TLS: sectype tls13" has "sectype: tls13"
stop_target

# SHA-384, and a port that takes TLS and plaintext (nvmetcli JSON)
PORT=$(free_port)
cat >"$TMP/tls.json" <<JSON
{"hosts": [{"nqn": "$HOST", "tls_key": "$KEY384"}],
 "ports": [{"portid": 1, "addr": {"trtype": "tcp", "adrfam": "ipv4",
   "traddr": "127.0.0.1", "trsvcid": "$PORT", "tsas": "tls1.3",
   "treq": "not required"}, "subsystems": ["$NQN"]}],
 "subsystems": [{"nqn": "$NQN", "allowed_hosts": ["$HOST"],
   "attr": {"allow_any_host": "0"},
   "namespaces": [{"nsid": 1, "enable": 1,
     "device": {"path": "null:size=64m,memory_backed=1"}}]}]}
JSON
"$MQBLK" target --config "$TMP/tls.json" -v \
	--stats-socket "$TMP/stats.sock" >"$TLOG" 2>&1 </dev/null &
TPID=$!
if wait_ready; then
	run bench --name=b --filename="$(uri "tls_key=$KEY384&tls_identity=1")" \
		--rw=write --bs=128k --size=8m --iodepth=4 \
		--verify=crc32c --do_verify=1
	ok "SHA-384 key, NVMe1R02: 8 MiB written and verified" &&
		check "every queue over TLS_AES_256_GCM_SHA384" \
			all_tls TLS_AES_256_GCM_SHA384
	# payloads of 16 KiB and more go out as their own records, from
	# the request's buffer: sizes that are not a multiple of a record,
	# 16 deep, so a socket pushes records back and OpenSSL must be
	# offered the same bytes again, both ways (writes, then reads)
	run bench --name=d --filename="$(uri "tls_key=$KEY384")" \
		--rw=write --bsrange=4k-1m --size=32m --iodepth=16 \
		--verify=crc32c --do_verify=1
	ok "TLS, 4k-1m QD16: 32 MiB written and verified" &&
		check "TLS, 4k-1m QD16: no verify errors" has "verify_errors=0"
	run id-ctrl "$(uri)"
	ok "treq not required: plaintext taken too"
	run discover -t tcp -a 127.0.0.1 -s "$PORT" -q "$HOST"
	ok "discover" &&
		check "discover: treq" has "treq:    not required, sq flow control disable supported" &&
		check "discover: sectype" has "sectype: tls13"
	stop_target
else
	fail "json target" "did not start"
fi
# add-host with a PSK on a running target (mqblk ctl): the host is
# refused before, connects with that key once allowed, not with another;
# save writes the key as nvmetcli's "tls_key"; a bad key is one line
LIVE=nqn.2026-12.io.mqblk:host-live
LIVEKEY=$(nvme gen-tls-key -m 1)
CTL=$TMP/ctl.sock
tls_target tls: "$KEY" --ctl "$CTL" || {
	fail "live add-host" "no target"
	finish
}
# luri KEY: the subsystem as LIVE with KEY
luri()
{
	echo "nvme-tcp://127.0.0.1:$PORT/$NQN?hostnqn=$LIVE&tls_key=$1"
}
run id-ctrl "$(luri "$LIVEKEY")"
failed "live: a host the target does not know: refused" "TLS handshake as"
run ctl "$CTL" add-host "$LIVE" "tls_key=$LIVEKEY"
ok "live: add-host with tls_key" &&
	check "live: add-host says it has a PSK" has "host $LIVE added with a TLS PSK"
run ctl "$CTL" allow-host "$NQN" "$LIVE"
ok "live: allow-host of that host"
run bench --name=live --filename="$(luri "$LIVEKEY")" \
	--rw=randwrite --bs=4k --size=4m --iodepth=8 --verify=crc32c \
	--do_verify=1
ok "live: the host added live connects with its PSK, writes verified" &&
	check "live: its queues over TLS" grep -q \
		"TLS 1.3 (TLS_AES_128_GCM_SHA256) as host $LIVE to $NQN" "$TLOG"
run id-ctrl "$(luri "$BAD")"
failed "live: the same host with another key: refused" "TLS handshake as"
run ctl "$CTL" save "$TMP/live.json"
ok "live: save" &&
	check "live: save writes the PSK as nvmetcli's tls_key" python3 -c '
import json, sys
h = {x["nqn"]: x for x in json.load(open(sys.argv[1]))["hosts"]}
sys.exit(0 if h[sys.argv[2]].get("tls_key") == sys.argv[3] else 1)' \
		"$TMP/live.json" "$LIVE" "$LIVEKEY"
run ctl "$CTL" add-host nqn.2026-12.io.mqblk:host-bad "tls_key=NVMeTLSkey-1:01:AAAA:"
failed "live: a malformed tls_key: one line naming the key, not echoing it" \
	"^mqblk ctl: add-host: tls_key: TLS PSK: 3 bytes of key and CRC"
check "live: the malformed key is not echoed" bash -c "! grep -q AAAA '$ERR'"
run ctl "$CTL" add-host nqn.2026-12.io.mqblk:host-bad "tls_key=$KEY" "tls_key=$KEY"
if ((RC == 2)) && grep -q "tls_key=.*: key given twice" "$ERR"; then
	pass "live: tls_key twice: refused by ctl (exit 2)"
else
	fail "live: tls_key twice: refused by ctl" "status $RC: $(first_err)"
fi
# shellcheck disable=SC2119 # no arguments: TPID and TLOG
stop_target

# multipath over TLS: the URI's tls_key goes to every path (it was
# refused as an unknown key of the multipath device), each path's queues
# handshake, both carry the writes
P2=$(free_port)
tls_target tls: "$KEY" --listen "tls:127.0.0.1:$P2" || {
	fail "multipath: setup" "no target"
	finish
}
run bench --name=mp \
	--filename="nvme-tcp://127.0.0.1:$PORT,127.0.0.1:$P2/$NQN?hostnqn=$HOST&iopolicy=round-robin&tls_key=$KEY" \
	--rw=randwrite --bs=4k --size=4m --iodepth=8 --verify=crc32c \
	--output-format=json
ok "multipath, tls_key=: 4 MiB written and verified over two TLS paths" &&
	check "multipath: every queue of both paths went through TLS" \
		all_tls TLS_AES_128_GCM_SHA256 &&
	check "multipath: both paths live and carried I/O" mp_paths_carried 2
# paths=discover on TLS-only ports: the discovery controller takes the
# URI's key too (it connected in plaintext, and was refused)
run bench --name=mpd \
	--filename="nvme-tcp://127.0.0.1:$PORT/$NQN?hostnqn=$HOST&paths=discover&iopolicy=round-robin&tls_key=$KEY" \
	--rw=randwrite --bs=4k --size=4m --iodepth=8 --verify=crc32c \
	--output-format=json
ok "multipath, paths=discover&tls_key=: both TLS-only ports found and used" &&
	check "multipath: the discovery controller went through TLS" \
		grep -q "TLS 1.3 (TLS_AES_128_GCM_SHA256) as host $HOST to nqn.2014-08.org.nvmexpress.discovery" "$TLOG" &&
	check "multipath: both discovered paths live and carried I/O" \
		mp_paths_carried 2
# shellcheck disable=SC2119
stop_target
finish
