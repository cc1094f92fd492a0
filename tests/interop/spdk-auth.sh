#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# spdk-auth.sh MQBLK: DH-HMAC-CHAP between SPDK v24.05 (the first release
# with it, built outside the project at $SPDK_AUTH_DIR, default
# /work/spdk24) and mqblk over NVMe/TCP on 127.0.0.1, both ways, every
# secret made by nvme-cli's gen-dhchap-key: host secrets transformed
# (-m 1 and -m 3, with the host's NQN), a controller secret transformed
# with the subsystem's NQN (-m 2) and untransformed ones (-m 0).
#   mqblk host -> SPDK nvmf_tgt (keyring_file_add_key, then
#   nvmf_subsystem_add_host with dhchap_key / dhchap_ctrlr_key; the
#   target's digest and DH group each limited to one by nvmf_set_config,
#   so an exchange that succeeds used them), for SHA-256/ffdhe2048 and
#   SHA-512/null: `mqblk bench` randwrite + crc32c verify on a one-way
#   host, `mqblk id-ctrl` on a bidirectional one; a wrong secret refused
#   by SPDK (AUTH_Failure1), a wrong controller secret refused by mqblk;
#   no secret refused; `mqblk discover -S` reads SPDK's discovery log;
#   then `mqblk id-ctrl`, bidirectional, for every other group
#   (SHA-384/ffdhe3072 and ffdhe4096, SHA-256/ffdhe6144, SHA-512/ffdhe8192).
#   SPDK host -> `mqblk target` (one subsystem, seven hosts: SHA-256/
#   ffdhe2048 one-way and bidirectional, SHA-512/null bidirectional, and
#   the four pairs above bidirectional):
#   SPDK 24.05's perf and identify have no DH-HMAC-CHAP options, so the
#   host is bdevperf with bdev_nvme_attach_controller --dhchap-key (and
#   --dhchap-ctrlr-key) in its JSON config, a 2 s 4 KiB verify workload:
#   it runs, and mqblk's log shows every queue of that host authenticated
#   with the expected hash, group and direction; a wrong secret, a wrong
#   controller secret and a controller secret the target has none for
#   are refused.
# SPDK 24.05 still calls EVP_PKEY_CTX_set1_hkdf_salt(ctx, NULL, 0) for
# TLS PSKs (include/spdk_internal/nvme_tcp.h), as 23.05 did: its TLS
# needs spdk-tls.sh's shim still; authentication does not use it.
# Exit: 0 all passed, 1 a check failed, 77 SPDK 24.05 or nvme-cli
# missing, or not root and too few hugepages. Knobs: SPDK_AUTH_DIR.
#
# Building SPDK v24.05 here (outside the project; nothing of it is
# committed), as bench/vs-spdk builds v23.05, with these differences:
#   git clone SPDK at v24.05; its isa-l pin (6f420b1, spdk/isa-l: v2.31.0
#   plus an aarch64-only fix) is in no mirror here: intel/isa-l v2.31.0
#   (bd22637) in its place; isa-l-crypto at the pinned 08297dc.
#   lib/env_dpdk/pci_dpdk.c: 24.05 takes DPDK 22.11 only up to 22.11.4:
#   raised to .11 (Debian 12's), as for 23.05 (PCI access only).
#   ./configure and make as for 23.05 (the same --without-* list,
#   make CONFIG_IPSEC_MB=n); OpenSSL 3 is enough for DH-HMAC-CHAP
#   (configure's HAVE_EVP_MAC); libkeyutils-dev is optional (the Linux
#   keyring, not used here: keys are files, keyring_file_add_key).
set -uo pipefail

SPDK_DIR=${SPDK_AUTH_DIR:-/work/spdk24}
SPDK_TGT=$SPDK_DIR/build/bin/nvmf_tgt
SPDK_BDEVPERF=$SPDK_DIR/build/examples/bdevperf
SPDK_BUILD_DOC="tests/interop/spdk-auth.sh's header"

# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/../cli/lib.sh"
# shellcheck source=tests/interop/spdk-lib.sh
. "$(dirname "$0")/spdk-lib.sh"
spdk_require "$SPDK_TGT" "$SPDK_BDEVPERF"
if ! grep -q "params\['dhchap_key'\]" "$SPDK_DIR/python/spdk/rpc/nvmf.py" 2>/dev/null; then
	echo "SKIP: the SPDK at $SPDK_DIR has no DH-HMAC-CHAP (it came in v24.05)"
	exit 77
fi
if ! command -v nvme >/dev/null; then
	echo "SKIP: nvme-cli (nvme gen-dhchap-key) is not installed"
	exit 77
fi
NQN=nqn.2026-12.io.mqblk:spdk-auth
HOST1=nqn.2026-12.io.mqblk:auth-oneway
HOST2=nqn.2026-12.io.mqblk:auth-bidir
HOST3=nqn.2026-12.io.mqblk:auth-sha512
spdk_setup

# keyfile NAME SECRET: $TMP/NAME holding SECRET, owner-only (SPDK's
# keyring_file refuses a key file others may read, as mqblk does)
keyfile()
{
	printf '%s' "$2" >"$TMP/$1"
	chmod 600 "$TMP/$1"
}
K1=$(nvme gen-dhchap-key -m 1 -n "$HOST1")
K2=$(nvme gen-dhchap-key -m 3 -l 64 -n "$HOST2")
CK2=$(nvme gen-dhchap-key -m 2 -l 48 -n "$NQN")
K3=$(nvme gen-dhchap-key -m 0 -l 48)
CK3=$(nvme gen-dhchap-key -m 0 -l 32)
BAD=$(nvme gen-dhchap-key -m 1 -n "$HOST1")
keyfile K1 "$K1"
keyfile K2 "$K2"
keyfile CK2 "$CK2"
keyfile K3 "$K3"
keyfile CK3 "$CK3"
keyfile BAD "$BAD"

# ====================================================================
# mqblk's host against SPDK's nvmf_tgt
# ====================================================================

# spdk_target DIGEST DHGROUP: nvmf_tgt with a 64 MiB malloc namespace,
# HOST1 one-way (K1) and HOST2 bidirectional (K2, CK2), only DIGEST and
# DHGROUP allowed, listening on SPORT and its discovery on DPORT
spdk_target()
{
	SPORT=$(free_port)
	DPORT=$(free_port)
	while [[ $DPORT == "$SPORT" ]]; do DPORT=$(free_port); done
	cat >"$TMP/tgt-$1-$2.json" <<JSON
{"subsystems": [
 {"subsystem": "keyring", "config": [
  {"method": "keyring_file_add_key", "params": {"name": "k1", "path": "$TMP/K1"}},
  {"method": "keyring_file_add_key", "params": {"name": "k2", "path": "$TMP/K2"}},
  {"method": "keyring_file_add_key", "params": {"name": "ck2", "path": "$TMP/CK2"}}]},
 {"subsystem": "bdev", "config": [{"method": "bdev_malloc_create",
   "params": {"name": "Malloc0", "num_blocks": 16384, "block_size": 4096}}]},
 {"subsystem": "nvmf", "config": [
  {"method": "nvmf_set_config", "params": {"dhchap_digests": ["$1"],
   "dhchap_dhgroups": ["$2"]}},
  {"method": "nvmf_create_transport", "params": {"trtype": "TCP"}},
  {"method": "nvmf_create_subsystem", "params": {"nqn": "$NQN",
   "allow_any_host": false, "serial_number": "SPDKMQBLKAUTH001"}},
  {"method": "nvmf_subsystem_add_ns", "params": {"nqn": "$NQN",
   "namespace": {"bdev_name": "Malloc0"}}},
  {"method": "nvmf_subsystem_add_host", "params": {"nqn": "$NQN",
   "host": "$HOST1", "dhchap_key": "k1"}},
  {"method": "nvmf_subsystem_add_host", "params": {"nqn": "$NQN",
   "host": "$HOST2", "dhchap_key": "k2", "dhchap_ctrlr_key": "ck2"}},
  {"method": "nvmf_subsystem_add_listener", "params": {"nqn": "$NQN",
   "listen_address": {"trtype": "TCP", "adrfam": "IPv4",
   "traddr": "127.0.0.1", "trsvcid": "$SPORT"}}},
  {"method": "nvmf_subsystem_add_listener", "params": {
   "nqn": "nqn.2014-08.org.nvmexpress.discovery",
   "listen_address": {"trtype": "TCP", "adrfam": "IPv4",
   "traddr": "127.0.0.1", "trsvcid": "$DPORT"}}}
 ]}]}
JSON
	spdk_start "tgt-$1-$2" "$TMP/spdk.sock" "$SPDK_TGT" -m 0x1 -u \
		--json "$TMP/tgt-$1-$2.json" &&
		spdk_wait_listen "$SPORT" "$SPDK_PID"
}

# suri HOSTNQN [KEYS]: SPDK's subsystem as HOSTNQN, two I/O queues
suri()
{
	echo "nvme-tcp://127.0.0.1:$SPORT/$NQN?hostnqn=$1&nr_io_queues=2${2:+&$2}"
}

first=1
for pair in sha256/ffdhe2048 sha512/null; do
	dg=${pair%/*} grp=${pair#*/}
	if ! spdk_target "$dg" "$grp"; then
		fail "SPDK target ($pair)" "did not start: $(grep -m1 -E 'ERROR|error' "$TMP/tgt-$dg-$grp.out")"
		spdk_stop_all
		continue
	fi
	run bench --name=a --filename="$(suri "$HOST1" "dhchap_secret=$K1")" \
		--rw=randwrite --bs=4k --size=4m --iodepth=8 --eta=never \
		--verify=crc32c --do_verify=1 --verify_fatal=1
	ok "mqblk host -> SPDK ($pair, one-way): 4 MiB written and verified" &&
		check "... no job error" has_re "err= *0"
	run id-ctrl "$(suri "$HOST2" "dhchap_secret=$K2&dhchap_ctrl_secret=$CK2")"
	ok "mqblk host -> SPDK ($pair, bidirectional): id-ctrl" &&
		check "... SPDK's serial number" has SPDKMQBLKAUTH001
	run id-ctrl "$(suri "$HOST1" "dhchap_secret=$BAD")"
	failed "mqblk host -> SPDK ($pair), a wrong secret: refused by SPDK" \
		"DH-HMAC-CHAP \(qid 0\) failed: .*\(AUTH_Failure1 from the controller\)"
	run id-ctrl "$(suri "$HOST2" "dhchap_secret=$K2&dhchap_ctrl_secret=$CK3")"
	failed "mqblk host -> SPDK ($pair), a wrong controller secret: refused by mqblk" \
		"DH-HMAC-CHAP \(qid 0\) failed: .*\(this host refused the controller's message\)"
	if ((first)); then
		run id-ctrl "$(suri "$HOST1")"
		failed "mqblk host -> SPDK, no secret: refused" \
			"requires DH-HMAC-CHAP authentication \(qid 0\): give dhchap_secret="
		# SPDK's discovery controller does not ask for authentication:
		# the host's secrets are taken and not used
		run discover -t tcp -a 127.0.0.1 -s "$DPORT" -q "$HOST1" -S "$K1"
		ok "mqblk discover -S against SPDK's discovery controller" &&
			check "... lists $NQN" has "$NQN"
		first=0
	fi
	if kill -0 "$SPDK_PID" 2>/dev/null; then
		pass "SPDK target ($pair) still up"
	else
		fail "SPDK target ($pair) still up" "$(tail -n 3 "$TMP/tgt-$dg-$grp.out" | tr '\n' '|')"
	fi
	spdk_stop_all
done

# the other groups (and SHA-384), bidirectional: mqblk's id-ctrl
for pair in sha384/ffdhe3072 sha384/ffdhe4096 sha256/ffdhe6144 sha512/ffdhe8192; do
	dg=${pair%/*} grp=${pair#*/}
	if ! spdk_target "$dg" "$grp"; then
		fail "SPDK target ($pair)" "did not start: $(grep -m1 -E 'ERROR|error' "$TMP/tgt-$dg-$grp.out")"
		spdk_stop_all
		continue
	fi
	run id-ctrl "$(suri "$HOST2" "dhchap_secret=$K2&dhchap_ctrl_secret=$CK2")"
	ok "mqblk host -> SPDK ($pair, bidirectional): id-ctrl" &&
		check "... SPDK's serial number" has SPDKMQBLKAUTH001
	spdk_stop_all
done

# ====================================================================
# SPDK's host (bdevperf) against mqblk's target
# ====================================================================
start_target -v --ns null:size=64m,memory_backed=1 \
	--allow-host "$HOST1" --dhchap-key "@$TMP/K1" \
	--dhchap-hash sha256 --dhchap-dhgroup ffdhe2048 \
	--allow-host "$HOST2" --dhchap-key "@$TMP/K2" --dhchap-ctrl-key "@$TMP/CK2" \
	--dhchap-hash sha256 --dhchap-dhgroup ffdhe2048 \
	--allow-host "$HOST3" --dhchap-key "@$TMP/K3" --dhchap-ctrl-key "@$TMP/CK3" \
	--dhchap-hash sha512 --dhchap-dhgroup null \
	--allow-host "$HOST3-ffdhe3072" --dhchap-key "@$TMP/K3" \
	--dhchap-ctrl-key "@$TMP/CK3" --dhchap-hash sha384 --dhchap-dhgroup ffdhe3072 \
	--allow-host "$HOST3-ffdhe4096" --dhchap-key "@$TMP/K3" \
	--dhchap-ctrl-key "@$TMP/CK3" --dhchap-hash sha384 --dhchap-dhgroup ffdhe4096 \
	--allow-host "$HOST3-ffdhe6144" --dhchap-key "@$TMP/K3" \
	--dhchap-ctrl-key "@$TMP/CK3" --dhchap-hash sha256 --dhchap-dhgroup ffdhe6144 \
	--allow-host "$HOST3-ffdhe8192" --dhchap-key "@$TMP/K3" \
	--dhchap-ctrl-key "@$TMP/CK3" --dhchap-hash sha512 --dhchap-dhgroup ffdhe8192 || {
	fail "mqblk target" "did not start"
	finish
}

# bdevperf NAME HOSTNQN KEY [CKEY]: bdevperf attaches mqblk's subsystem
# as HOSTNQN with the secret in $TMP/KEY (and CKEY), then runs a 2 s
# 4 KiB QD8 verify; RC, output in $TMP/NAME.out
bdevperf()
{
	local name=$1 host=$2 ckey='' cattach=''
	if [[ -n ${4:-} ]]; then
		ckey=",
  {\"method\": \"keyring_file_add_key\", \"params\": {\"name\": \"ckey\", \"path\": \"$TMP/$4\"}}"
		cattach=", \"dhchap_ctrlr_key\": \"ckey\""
	fi
	cat >"$TMP/$name.json" <<JSON
{"subsystems": [
 {"subsystem": "keyring", "config": [
  {"method": "keyring_file_add_key", "params": {"name": "key", "path": "$TMP/$3"}}$ckey]},
 {"subsystem": "bdev", "config": [
  {"method": "bdev_nvme_attach_controller", "params": {"name": "mqblk",
   "trtype": "TCP", "adrfam": "IPv4", "traddr": "127.0.0.1",
   "trsvcid": "$PORT", "subnqn": "$NQN", "hostnqn": "$host",
   "dhchap_key": "key"$cattach}},
  {"method": "bdev_wait_for_examine"}]}]}
JSON
	# (-u: no PCI probe; this VM's virtio NIC is not for SPDK)
	spdk_run "$name" 60 "$SPDK_BDEVPERF" -m 0x2 -u --json "$TMP/$name.json" \
		-q 8 -o 4096 -w verify -t 2
}

# authenticated HOSTNQN WHAT: the lines of mqblk's log saying a queue of
# HOSTNQN authenticated with WHAT ("sha256, ffdhe2048", ...)
authenticated()
{
	grep -cF "host $1 authenticated ($2)" "$TLOG"
}

# bdevperf_ok RUN CHECK HOSTNQN WHAT: bdevperf's run RUN went through
# (exit 0, a Total line with IOPS > 0 and Fail/s 0, no error), and mqblk
# authenticated at least two queues of HOSTNQN (admin and I/O), each
# with WHAT; CHECK names the check
bdevperf_ok()
{
	local run=$1 name=$2 host=$3 what=$4 iops fails why='' n nall
	# bdevperf's Total line (after a carriage return): IOPS MiB/s Fail/s
	# TO/s and latencies
	read -r iops fails < <(tr '\r' '\n' <"$TMP/$run.out" | awk '/^ *Total *:/ { print int($3), $5 + 0 }')
	((RC == 0)) || why="exit status $RC"
	[[ -z $why ]] && ((${iops:-0} <= 0)) && why="no Total line with IOPS > 0"
	[[ -z $why ]] && [[ ${fails:-} != 0 ]] && why="Fail/s ${fails:-?} on the Total line"
	[[ -z $why ]] && grep -qiE '\*ERROR\*|miscompare' "$TMP/$run.out" &&
		why=$(grep -m1 -iE '\*ERROR\*|miscompare' "$TMP/$run.out")
	n=$(authenticated "$host" "$what")
	nall=$(grep -cF "host $host authenticated (" "$TLOG")
	[[ -z $why ]] && ((n < 2)) &&
		why="mqblk's log has $n queues of $host authenticated ($what), want >= 2 (admin and I/O)"
	[[ -z $why ]] && ((nall != n)) &&
		why="$((nall - n)) queues of $host authenticated otherwise than ($what)"
	if [[ -n $why ]]; then
		fail "$name" "$why: $(tail -n 3 "$TMP/$run.out" | tr '\n' '|' | cut -c1-300)"
	else
		pass "$name: $iops IOPS verified; $n queues authenticated ($what)"
	fi
}

# bdevperf_refused RUN CHECK WHY-ERE: bdevperf's run RUN failed, and
# mqblk's log grew a line matching WHY-ERE since L0 lines
bdevperf_refused()
{
	local run=$1 name=$2 re=$3 why=''
	((RC != 0 && RC != 124)) || why="exit status $RC, want a failure"
	[[ -z $why ]] && ! tail -n +"$((L0 + 1))" "$TLOG" | grep -qE -- "$re" &&
		why="mqblk's log lacks /$re/"
	if [[ -n $why ]]; then
		fail "$name" "$why: $(tail -n 3 "$TMP/$run.out" | tr '\n' '|' | cut -c1-300)"
	else
		pass "$name"
	fi
}

bdevperf spdk-oneway "$HOST1" K1
bdevperf_ok spdk-oneway "SPDK bdevperf -> mqblk target (sha256, ffdhe2048, one-way)" \
	"$HOST1" "sha256, ffdhe2048"
bdevperf spdk-bidir "$HOST2" K2 CK2
bdevperf_ok spdk-bidir "SPDK bdevperf -> mqblk target (sha256, ffdhe2048, bidirectional)" \
	"$HOST2" "sha256, ffdhe2048, bidirectional"
bdevperf spdk-sha512 "$HOST3" K3 CK3
bdevperf_ok spdk-sha512 "SPDK bdevperf -> mqblk target (sha512, null, bidirectional)" \
	"$HOST3" "sha512, null, bidirectional"
# the other groups (and SHA-384), bidirectional, one host each
for pair in sha384/ffdhe3072 sha384/ffdhe4096 sha256/ffdhe6144 sha512/ffdhe8192; do
	dg=${pair%/*} grp=${pair#*/}
	bdevperf "spdk-$grp" "$HOST3-$grp" K3 CK3
	bdevperf_ok "spdk-$grp" "SPDK bdevperf -> mqblk target ($dg, $grp, bidirectional)" \
		"$HOST3-$grp" "$dg, $grp, bidirectional"
done

L0=$(wc -l <"$TLOG")
bdevperf spdk-bad "$HOST1" BAD
bdevperf_refused spdk-bad "SPDK bdevperf -> mqblk target, a wrong secret: refused" \
	"host $HOST1, $NQN\): DH-HMAC-CHAP failed: authentication failed"
L0=$(wc -l <"$TLOG")
bdevperf spdk-bad-ctrl "$HOST2" K2 CK3
bdevperf_refused spdk-bad-ctrl "SPDK bdevperf -> mqblk target, a wrong controller secret: refused by SPDK" \
	"host $HOST2, $NQN\): DH-HMAC-CHAP failed: .*\(said the host\)"
L0=$(wc -l <"$TLOG")
bdevperf spdk-no-ctrl "$HOST1" K1 CK2
bdevperf_refused spdk-no-ctrl "SPDK bdevperf -> mqblk target, a controller secret the target lacks: refused" \
	"host $HOST1, $NQN\): DH-HMAC-CHAP failed"

if kill -0 "$TPID" 2>/dev/null; then
	pass "mqblk target still up"
else
	fail "mqblk target still up" "$(tail -n 2 "$TLOG" | tr '\n' '|')"
fi
finish
