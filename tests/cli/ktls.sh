#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kTLS choices between mqblk's host and target on 127.0.0.1 (the kernel
# taking the TLS records after the handshake: tests/interop/ktls.sh runs
# it where the kernel has the tls module). Here: the options' bad values
# are refused; where the kernel has no tls module, --ktls=on and ktls=on
# are refused with the reason, and auto falls back to OpenSSL's records
# (data verified, the choice said once per process); ktls=off says
# nothing and works.
# Usage: bash tests/cli/ktls.sh build/mqblk
source "$(dirname "$0")/lib.sh"

NQN=nqn.2026-12.io.mqblk:ktls
HOST=nqn.2026-12.io.mqblk:host-ktls

if ! command -v nvme >/dev/null; then
	skip_setup "ktls" "nvme-cli (nvme gen-tls-key) is not installed"
	finish
fi
KEY=$(nvme gen-tls-key -m 1)

# the kernel's answer, asked apart: ENOENT for TCP_ULP "tls" on a fresh
# socket means no tls module
HAVE=$(python3 -c '
import errno, socket
s = socket.socket()
try:
    s.setsockopt(socket.IPPROTO_TCP, 31, b"tls")
except OSError as e:
    print(0 if e.errno == errno.ENOENT else 1)
else:
    print(1)')

run target --listen "tls:127.0.0.1:$(free_port)" --nqn "$NQN" \
	--ns null:size=16m --allow-any-host --ktls=maybe
failed "--ktls=maybe: refused" "--ktls: \"maybe\": expected auto, off or on"

PORT=$(free_port)
run id-ctrl "$(uri "tls_key=$KEY&ktls=yes")"
failed "ktls=yes: refused" "ktls: 'yes' is not auto, off or on"
run id-ctrl "$(uri "ktls=on")"
failed "ktls=on without TLS: refused" "ktls=on without TLS"

if ((HAVE == 0)); then
	run target --listen "tls:127.0.0.1:$(free_port)" --nqn "$NQN" \
		--ns null:size=16m --allow-any-host --ktls=on
	failed "--ktls=on without the tls module: refused at start" \
		'--ktls=on: kTLS: this kernel has no tls module loaded \(TCP_ULP "tls": ENOENT; only CAP_NET_ADMIN loads it on demand\)'
fi

TLOG=$TMP/target.log
PORT=$(free_port)
"$MQBLK" target --listen "tls:127.0.0.1:$PORT" --nqn "$NQN" \
	--stats-socket "$TMP/stats.sock" --ns null:size=64m,memory_backed=1 \
	--allow-host "$HOST" --tls-key "$KEY" >"$TLOG" 2>&1 </dev/null &
TPID=$!
wait_ready || {
	fail setup "no target"
	finish
}

if ((HAVE == 0)); then
	run id-ctrl "$(uri "tls_key=$KEY&ktls=on")"
	failed "ktls=on without the tls module: the connection refused" \
		"ktls=on: kTLS: this kernel has no tls module"
	# two jobs of two queues each: one process, one line
	run bench --name=a --filename="$(uri "tls_key=$KEY&ktls=auto")" \
		--rw=randwrite --bs=4k --size=4m --iodepth=8 --numjobs=2 \
		--verify=crc32c --do_verify=1
	if ((RC == 0)); then
		pass "ktls=auto without the module: 4 MiB written and verified"
	else
		fail "ktls=auto without the module" "status $RC: $(first_err)"
	fi
	check "ktls=auto: the fallback said once, with its reason" \
		test "$(grep -c 'TLS records in user space (OpenSSL): kTLS: this kernel has no tls module' "$ERR")" = 1
	check "ktls=auto: nothing else on stderr" test "$(wc -l <"$ERR")" = 1
	check "the target (auto): its fallback logged once" test \
		"$(grep -c 'TLS records in user space (OpenSSL): kTLS: this kernel has no tls module' "$TLOG")" = 1
else
	skip "fallback checks" "this kernel has the tls module (tests/interop/ktls.sh covers kTLS)"
fi
run bench --name=b --filename="$(uri "tls_key=$KEY")" \
	--rw=randrw --bs=128k --size=4m --iodepth=4 \
	--verify=crc32c --do_verify=1
ok "the default (auto): 128k I/O verified, nothing said on stderr"
run bench --name=c --filename="$(uri "tls_key=$KEY&ktls=off")" \
	--rw=randwrite --bs=4k --size=2m --iodepth=4 \
	--verify=crc32c --do_verify=1
ok "ktls=off: written and verified"
# shellcheck disable=SC2119 # no arguments: TPID and TLOG
stop_target
finish
