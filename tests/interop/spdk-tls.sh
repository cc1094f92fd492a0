#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# spdk-tls.sh MQBLK: NVMe/TCP over TLS 1.3 between SPDK v23.05 (built
# outside the project at $SPDK_DIR, default /work/spdk: see bench/vs-spdk)
# and mqblk on 127.0.0.1, both ways, keys made by nvme gen-tls-key:
#   mqblk host -> SPDK nvmf_tgt (a secure_channel listener, the host added
#   with its PSK file): `mqblk bench` randwrite + crc32c verify over TLS;
#   a wrong key and plaintext refused;
#   SPDK perf (-S ssl --psk-path) -> `mqblk target --listen tls:`: IOPS
#   > 0 and the target's log names the handshake; a wrong key refused.
# Same identities (NVMe0R01 HOSTNQN SUBNQN) and PSK derivation both
# sides. SPDK 23.05 calls EVP_PKEY_CTX_set1_hkdf_salt(ctx, NULL, 0),
# which Debian 12's OpenSSL 3.0 refuses ("Unable to set salt for HKDF"):
# as built here it derives no PSK at all and every TLS connection fails
# on its side. An LD_PRELOAD shim compiled here makes that one call a
# no-op (no salt is HKDF's default); nothing else of SPDK is changed.
# SPDK 24.05 (SPDK_DIR=/work/spdk24) passes the same checks and still
# needs the shim: without it its nvmf_tgt says "Unable to set salt for
# HKDF!" and derives no PSK.
# Exit: 0 all passed, 1 a check failed, 77 SPDK or nvme-cli missing, or
# not root and too few hugepages. Knobs: SPDK_DIR.
set -uo pipefail

SPDK_DIR=${SPDK_DIR:-/work/spdk}
SPDK_PERF=$SPDK_DIR/build/examples/perf
[[ -x $SPDK_PERF ]] || SPDK_PERF=$SPDK_DIR/build/bin/spdk_nvme_perf
SPDK_TGT=$SPDK_DIR/build/bin/nvmf_tgt

# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/../cli/lib.sh"
# shellcheck source=tests/interop/spdk-lib.sh
. "$(dirname "$0")/spdk-lib.sh"
spdk_require "$SPDK_PERF" "$SPDK_TGT"
if ! command -v nvme >/dev/null || ! command -v cc >/dev/null; then
	echo "SKIP: nvme-cli (gen-tls-key) or a C compiler (the shim) missing"
	exit 77
fi
NQN=nqn.2026-12.io.mqblk:spdk-tls
HOST=nqn.2016-06.io.mqblk:tls-host
SPDK_NQN=nqn.2016-06.io.spdk:mqblk-tls
spdk_setup

# the shim for SPDK 23.05's HKDF salt call on OpenSSL 3.0
cat >"$TMP/salt.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <openssl/evp.h>
/* no salt is HKDF's default: a NULL, 0 salt is a no-op, not an error */
int EVP_PKEY_CTX_set1_hkdf_salt(EVP_PKEY_CTX *ctx, const unsigned char *salt,
				int len)
{
	int (*next)(EVP_PKEY_CTX *, const unsigned char *, int);

	if (!salt && !len)
		return 1;
	*(void **)&next = dlsym(RTLD_NEXT, "EVP_PKEY_CTX_set1_hkdf_salt");
	return next(ctx, salt, len);
}
C
if ! cc -shared -fPIC -o "$TMP/salt.so" "$TMP/salt.c" -ldl -lcrypto \
	2>"$TMP/salt.err"; then
	echo "FAIL setup: the salt shim does not build: $(head -1 "$TMP/salt.err")"
	exit 1
fi
SHIM=$TMP/salt.so

# keys: SPDK wants the key file to end with the key's ':' (no newline)
KEY=$(nvme gen-tls-key -m 1)
BAD=$(nvme gen-tls-key -m 1)
printf '%s' "$KEY" >"$TMP/key"
printf '%s' "$BAD" >"$TMP/bad"
chmod 600 "$TMP/key" "$TMP/bad"

# ---- mqblk host -> SPDK nvmf_tgt over TLS ----
SPORT=$(free_port)
cat >"$TMP/spdk.json" <<JSON
{"subsystems": [
 {"subsystem": "bdev", "config": [{"method": "bdev_malloc_create",
   "params": {"name": "Malloc0", "num_blocks": 16384, "block_size": 4096}}]},
 {"subsystem": "nvmf", "config": [
  {"method": "nvmf_create_transport", "params": {"trtype": "TCP"}},
  {"method": "nvmf_create_subsystem", "params": {"nqn": "$SPDK_NQN",
   "allow_any_host": false, "serial_number": "SPDKMQBLKTLS0001"}},
  {"method": "nvmf_subsystem_add_ns", "params": {"nqn": "$SPDK_NQN",
   "namespace": {"bdev_name": "Malloc0"}}},
  {"method": "nvmf_subsystem_add_host", "params": {"nqn": "$SPDK_NQN",
   "host": "$HOST", "psk": "$TMP/key"}},
  {"method": "nvmf_subsystem_add_listener", "params": {"nqn": "$SPDK_NQN",
   "secure_channel": true, "listen_address": {"trtype": "TCP",
   "adrfam": "IPv4", "traddr": "127.0.0.1", "trsvcid": "$SPORT"}}}
 ]}]}
JSON
# the host and its PSK before the listener: SPDK applies the config in
# order, and a handshake that came between the two found no PSK (SPDK
# answered "internal error", 1 run in 7 here)
LD_PRELOAD=$SHIM "$SPDK_TGT" -m 0x1 -r "$TMP/spdk.sock" --json "$TMP/spdk.json" \
	>"$TMP/spdk-tgt.log" 2>&1 &
SPDK_PIDS+=($!)
if spdk_wait_listen "$SPORT" "$!"; then
	suri="nvme-tcp://127.0.0.1:$SPORT/$SPDK_NQN?hostnqn=$HOST&nr_io_queues=2"
	run bench --name=t --filename="$suri&tls_key=$KEY" --rw=randwrite \
		--bs=4k --size=4m --iodepth=8 --verify=crc32c --do_verify=1
	ok "mqblk host -> SPDK target over TLS: 4 MiB written and verified"
	run id-ctrl "$suri&tls_key=$BAD"
	failed "mqblk host -> SPDK target, a wrong key: refused" \
		"TLS handshake as NVMe0R01 $HOST $SPDK_NQN refused"
	run id-ctrl "$suri"
	failed "mqblk host -> SPDK's TLS listener in plaintext: refused" "ICReq"
else
	fail "SPDK TLS target" "did not listen: $(grep -m1 ERROR "$TMP/spdk-tgt.log")"
fi
spdk_stop_all

# ---- SPDK perf -> mqblk target over TLS ----
PORT=$(free_port)
"$MQBLK" target --listen "tls:127.0.0.1:$PORT" --nqn "$NQN" -v \
	--stats-socket "$TMP/stats.sock" --ns null:size=64m,memory_backed=1 \
	--allow-host "$HOST" --tls-key "@$TMP/key" >"$TLOG" 2>&1 </dev/null &
TPID=$!
if wait_ready; then
	# perf KEYFILE: SPDK perf with that PSK file; RC its status
	perf()
	{
		RC=0
		LD_PRELOAD=$SHIM timeout --signal=INT 60 "$SPDK_PERF" -c 0x2 \
			-q 16 -o 4096 -w randrw -M 50 -t 2 -S ssl --psk-path "$1" \
			-r "trtype:TCP adrfam:IPv4 traddr:127.0.0.1 trsvcid:$PORT subnqn:$NQN hostnqn:$HOST" \
			>"$TMP/perf.out" 2>&1 || RC=$?
	}
	perf "$TMP/key"
	iops=$(awk '/^Total/ { print int($3) }' "$TMP/perf.out")
	check "SPDK perf -> mqblk target over TLS: exit 0, IOPS > 0 ($iops)" \
		test "$RC" = 0 -a "${iops:-0}" -gt 0
	check "the target: SPDK's queues over TLS_AES_128_GCM_SHA256" grep -q \
		"TLS 1.3 (TLS_AES_128_GCM_SHA256) as host $HOST to $NQN" "$TLOG"
	# refused: no I/O ran (23.05's perf then exits 1; 24.05's exits 0
	# after "No valid NVMe controllers")
	perf "$TMP/bad"
	iops=$(awk '/^Total/ { print int($3) }' "$TMP/perf.out")
	check "SPDK perf -> mqblk target, a wrong key: refused (no I/O ran)" \
		test "${iops:-0}" = 0
	check "the target: the binder does not verify" grep -q \
		"binder does not verify" "$TLOG"
	# shellcheck disable=SC2119 # no arguments: TPID and TLOG
	stop_target
else
	fail "mqblk TLS target" "did not start"
fi
finish
