#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The target under hostile hosts (bench/attack.c's), checked by what the
# target does, not how fast: a connection that sends nothing, or half a
# Connect capsule, is closed after --connect-timeout; past
# --max-unconnected the oldest such connection is closed for a new one; a
# host that sends reads and does not read the answers finds the target
# taking no more than 16 MiB of them per queue (its queue depth stops at
# 128 of 128 KiB reads), and once it reads, every answer is there and the
# rest of its commands are taken and answered; out of descriptors, the
# listener rests instead of spinning on EMFILE; a well-behaved host is
# served all along, and the target exits cleanly.
# Usage: bash tests/cli/hostile.sh /path/to/mqblk /path/to/attack
# shellcheck source-path=SCRIPTDIR disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ATTACK=${2:-}
if [[ -z $ATTACK || ! -x $ATTACK ]]; then
	echo "FAIL setup: attack binary '$ATTACK' missing or not executable"
	exit 1
fi
NQN=nqn.2026-12.io.mqblk:hostile
HOST=nqn.2026-12.io.mqblk:attack

# attack_run MODE SECONDS [ARGS...]: one attack against the target, its
# report in $TMP/attack.out; attack: that, then parsed (attack_parse)
attack_run()
{
	local mode=$1 secs=$2
	shift 2
	timeout -k 5 60 "$ATTACK" --port "$PORT" --nqn "$NQN" \
		--hostnqn "$HOST" --mode "$mode" --seconds "$secs" "$@" \
		>"$TMP/attack.out" 2>&1
}

# attack_parse: the last report's key=value pairs in A[]
declare -A A
attack_parse()
{
	local line kv
	A=()
	line=$(tail -n 1 "$TMP/attack.out")
	for kv in $line; do
		[[ $kv == *=* ]] && A[${kv%%=*}]=${kv#*=}
	done
	[[ -n ${A[mode]:-} ]] || echo "attack: no report: $line"
}

attack()
{
	attack_run "$@"
	attack_parse
}

truncate -s 64M "$TMP/ns2.img"
start_target --ns null:size=64m --ns "$TMP/ns2.img" --allow-host "$HOST" \
	--reactors 1 --connect-timeout 1 --max-unconnected 8 -v || exit 1

# Connections that never Connect: closed after the timeout (1 s; the
# attack holds them 3 s)
attack idle-tcp 3 --conns 4
check "idle connections closed after --connect-timeout" \
	test "${A[closed_by_target]:-0}" = 4
attack slowloris 2.5 --conns 3
# reopened as each is closed: each of the 3 closed at least once
check "half a Connect capsule closed after --connect-timeout" \
	test "${A[closed_by_target]:-0}" -ge 3
check "the target logs the timeouts" grep -q "no Connect in 1000 ms" "$TLOG"

# More than --max-unconnected at once: the oldest go, within the second
attack idle-ic 0.5 --conns 12
check "past --max-unconnected 8, the oldest 4 of 12 are closed" \
	test "${A[closed_by_target]:-0}" = 4
check "the target logs the eviction" grep -q "closing the oldest" "$TLOG"

# A host that does not read: 1,023 reads of 128 KiB on each of 2 queues
attack_run noread 2 --conns 2 --nsid 2 --then-read &
apid=$!
depth_ok=0
for _ in $(seq 100); do
	sleep 0.05
	d=$("$MQBLK" target --stats --stats-socket "$TMP/stats.sock" 2>/dev/null |
		awk 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["qid"] > 0 { n++; if ($c["max"] > m) m = $c["max"] }
			END { print n + 0, m + 0 }')
	# both queues at their cap: 128 reads each (16 MiB), no more
	[[ $d == "2 128" ]] && depth_ok=1
done
wait "$apid"
attack_parse
check "a non-reading host's queues stop at 16 MiB of reads (depth 128)" \
	test "$depth_ok" = 1
check "once it reads, all 2,046 reads are answered" \
	test "${A[completed]:-0}" = 2046

# The target still serves a well-behaved host, and exits cleanly
run bench --name=good --filename="$(uri nr_io_queues=1)" --rw=randread \
	--bs=4k --iodepth=1 --number_ios=200 --output-format=json
check "a well-behaved host is served" test "$RC" = 0
# shellcheck disable=SC2119 # no arguments: TPID and TLOG
stop_target

# Out of descriptors: accept fails with EMFILE while the connection
# waits in the backlog; the listener rests a tick instead of spinning
# (it logged each failure: 500,000 lines in 3 s), and the waiting
# connections are taken as the timeout frees descriptors
start_target --ns null:size=64m --allow-host "$HOST" --reactors 1 \
	--connect-timeout 1 || exit 1
prlimit --nofile=64 --pid "$TPID"
attack idle-tcp 3.5 --conns 80
check "80 idle connections past the descriptor limit all taken and closed" \
	test "${A[closed_by_target]:-0}" = 80
check "EMFILE logged once, not in a loop" \
	test "$(grep -c 'Too many open files' "$TLOG")" = 1
run bench --name=good --filename="$(uri nr_io_queues=1)" --rw=randread \
	--bs=4k --iodepth=1 --number_ios=200 --output-format=json
check "a well-behaved host is served after" test "$RC" = 0
finish
