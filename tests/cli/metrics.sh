#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Watching the target: /metrics scraped with curl and checked by
# Prometheus' promtool, counters that move with I/O and survive the host
# disconnecting (a read job of known size, then a write job on a new
# connection), `mqblk ctl stats -o json` parsed with its structure
# checked, 404/405 from the metrics server, bad --metrics and stats
# arguments refused in one line.
# Usage: bash tests/cli/metrics.sh build/mqblk
source "$(dirname "$0")/lib.sh"

NQN=nqn.2026-12.io.mqblk:metrics
HOST=nqn.2026-12.io.mqblk:metrics-host
CTL=$TMP/ctl.sock
MPORT=$(free_port)
MURL=http://127.0.0.1:$MPORT/metrics

# bad input first: no target needed
run target --listen 127.0.0.1:1 --nqn "$NQN" --ns null:size=1m \
	--allow-any-host --metrics 127.0.0.1
failed metrics-no-port '^mqblk target: --metrics: .*127\.0\.0\.1.*expected ADDR:PORT'
run target --listen 127.0.0.1:1 --nqn "$NQN" --ns null:size=1m \
	--allow-any-host --metrics localhost:9100
failed metrics-not-an-address '^mqblk target: --metrics: .*not an IPv4 address'
# usage: a one-line reason, exit 2 (mqblk ctl's usage status), before
# any connection
run ctl "$CTL" stats -o yaml
check stats-bad-format [ "$RC" = 2 ] &&
	check stats-bad-format-said grep -q '^mqblk ctl: -o yaml: not an output format' "$ERR"

# M: the build serves --metrics; without libmicrohttpd the rest still runs
M=1
if ! start_target --ns null:size=64m --allow-any-host --reactors 2 \
	--ctl "$CTL" --metrics "127.0.0.1:$MPORT"; then
	if grep -q "built without libmicrohttpd" "$TLOG"; then
		TPID=
		M=0
		skip_setup metrics "built without libmicrohttpd (scripts/deps installs libmicrohttpd-dev)"
		start_target --ns null:size=64m --allow-any-host --reactors 2 \
			--ctl "$CTL" || {
			fail setup "no target"
			finish
		}
	else
		fail setup "no target"
		finish
	fi
fi
((M)) && check metrics-logged grep -qF "metrics on $MURL" "$TLOG"

# scrape NAME: /metrics into $TMP/NAME.prom; 1 if curl fails
scrape()
{
	curl -sS --max-time 10 -o "$TMP/$1.prom" "$MURL"
}

# metric FILE SERIES: the value of the sample whose name and labels are
# SERIES (as printed), or nothing
metric()
{
	awk -v s="$2" 'index($0, s " ") == 1 { print $NF }' "$TMP/$1.prom"
}

SUB="{subsystem=\"$NQN\"}"
NS="{subsystem=\"$NQN\",nsid=\"1\"}"

# promtool NAME: promtool accepts $TMP/NAME.prom
promtool_check()
{
	if ! command -v promtool >/dev/null; then
		skip_setup "promtool-$1" "promtool not installed (Debian prometheus, scripts/deps)"
	elif promtool check metrics <"$TMP/$1.prom" >"$TMP/promtool.out" 2>&1; then
		pass "promtool-$1"
	else
		fail "promtool-$1" "$(head -n 3 "$TMP/promtool.out")"
	fi
}

# conns_now: the target's open connections, from stats -o json
conns_now()
{
	"$MQBLK" ctl "$CTL" stats -o json 2>/dev/null |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["ports"][0]["connections_now"])'
}

if ((M)); then
	scrape idle || fail scrape-idle "curl failed"
	check read-bytes-zero-idle [ "$(metric idle "mqblk_subsystem_read_bytes_total$SUB")" = 0 ]
	promtool_check idle
fi

# 4 MiB of reads on two I/O queues, then the host disconnects
run bench --name=m --filename="$(uri nr_io_queues=2)" --rw=read --bs=64k \
	--size=4m --iodepth=4
ok read-job
# the queues close as the bench ends: until none is left
for _ in $(seq 100); do
	[[ $(conns_now) == 0 ]] && break
	sleep 0.1
done
check connections-closed [ "$(conns_now)" = 0 ]
if ((M)); then
	scrape after-read || fail scrape-after-read "curl failed"
	check metrics-connections-closed [ "$(metric after-read "mqblk_port_connections{port=\"1\"}")" = 0 ]
	check closed-counted [ "$(metric after-read "mqblk_port_connections_closed_total{port=\"1\"}")" -ge 3 ]
	rb=$(metric after-read "mqblk_subsystem_read_bytes_total$SUB")
	check subsys-read-bytes-survive [ "${rb:-0}" -ge 4194304 ]
	check port-read-bytes-survive [ "$(metric after-read "mqblk_port_read_bytes_total{port=\"1\"}")" -ge 4194304 ]
	check ns-read-bytes [ "$(metric after-read "mqblk_namespace_read_bytes_total$NS")" -ge 4194304 ]
	check ns-read-commands [ "$(metric after-read "mqblk_namespace_read_commands_total$NS")" -ge 64 ]
	check ctrls-gone [ "$(metric after-read "mqblk_subsystem_controllers_gone_total$SUB")" -ge 1 ]
	cnt=$(metric after-read "mqblk_namespace_command_latency_seconds_count$NS")
	inf=$(metric after-read "mqblk_namespace_command_latency_seconds_bucket{subsystem=\"$NQN\",nsid=\"1\",le=\"+Inf\"}")
	check histogram-count [ "${cnt:-0}" -ge 64 ] && check histogram-inf-is-count [ "$cnt" = "$inf" ]
	promtool_check after-read
fi

# the text form's subsystem and namespace lines keep the gone queues' too
run ctl "$CTL" stats
if ok stats-text; then
	tb=$(awk -v n="$NQN" '$1 == "subsys" && $2 == n { for (i = 3; i < NF; i++) if ($i == "read_bytes") print $(i + 1) }' "$OUT")
	check stats-text-subsys-read-bytes [ "${tb:-0}" -ge 4194304 ]
	nb=$(awk -v n="$NQN" '$1 == "ns" && $2 == n && $3 == 1 { for (i = 4; i < NF; i++) if ($i == "read_bytes") print $(i + 1) }' "$OUT")
	check stats-text-ns-read-bytes [ "${nb:-0}" -ge 4194304 ]
	check stats-text-queue-table has_re '^ctrl +qid +peer'
fi

# a second connection: the reads stay counted, the writes add
run bench --name=m --filename="$(uri)" --rw=write --bs=4k --size=1m
ok write-job
if ((M)); then
	scrape after-write || fail scrape-after-write "curl failed"
	check read-bytes-kept [ "$(metric after-write "mqblk_subsystem_read_bytes_total$SUB")" -ge "${rb:-1}" ]
	check write-bytes [ "$(metric after-write "mqblk_subsystem_write_bytes_total$SUB")" -ge 1048576 ]
	check ns-write-bytes [ "$(metric after-write "mqblk_namespace_write_bytes_total$NS")" -ge 1048576 ]
fi

# the JSON stats: the structure, and the same counters
run ctl "$CTL" stats -o json
if ok stats-json; then
	if python3 - "$OUT" "$NQN" >"$TMP/json.out" 2>&1 <<'EOF'; then
import json, sys
d = json.load(open(sys.argv[1]))
nqn = sys.argv[2]
p = d["ports"][0]
assert p["portid"] == 1 and p["state"] == "up", p
assert p["counters"]["read_bytes"] >= 4 << 20, p["counters"]
s = [x for x in d["subsystems"] if x["nqn"] == nqn][0]
assert not s["discovery"]
assert s["controllers_gone"] >= 2, s["controllers_gone"]
assert s["counters"]["read_bytes"] >= 4 << 20
assert s["counters"]["write_bytes"] >= 1 << 20
assert isinstance(s["controllers"], list)
ns = s["namespaces"][0]
assert ns["nsid"] == 1 and ns["enabled"]
assert ns["counters"]["read_bytes"] >= 4 << 20
lat = ns["latency"]
assert len(lat["buckets"]) == 25 and lat["buckets"][-1]["below_ns"] is None
assert sum(b["count"] for b in lat["buckets"]) == lat["count"] >= 64 + 256
assert [x for x in d["subsystems"] if x["discovery"]]
EOF
		pass stats-json-structure
	else
		fail stats-json-structure "$(tail -n 2 "$TMP/json.out")"
	fi
fi

# a live connection: its controller and queues in the JSON
run_bg bench --name=m --filename="$(uri)" --rw=randread --bs=4k \
	--size=64m --time_based --runtime=3
for _ in $(seq 100); do
	"$MQBLK" ctl "$CTL" stats -o json >"$TMP/live.json" 2>/dev/null &&
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not any(q["qid"] for s in d["subsystems"] for c in s["controllers"] for q in c["queues"]))' "$TMP/live.json" &&
		break
	sleep 0.1
done
if python3 - "$TMP/live.json" "$NQN" >"$TMP/json.out" 2>&1 <<'EOF'; then
import json, sys
d = json.load(open(sys.argv[1]))
s = [x for x in d["subsystems"] if x["nqn"] == sys.argv[2]][0]
c = s["controllers"][0]
assert c["cntlid"] >= 1 and c["port"] == 1 and not c["dead"], c
qids = sorted(q["qid"] for q in c["queues"])
assert qids[0] == 0 and qids[-1] >= 1, qids
for q in c["queues"]:
    assert q["max_depth"] >= q["depth"] >= 0 and q["peer"].startswith("127.0.0.1:"), q
assert s["controllers_now"] >= 1
EOF
	pass stats-json-live
else
	fail stats-json-live "$(tail -n 2 "$TMP/json.out")"
fi
RC=0
wait "$BPID" || RC=$?
ok live-job

# the metrics server: only GET/HEAD of /metrics
if ((M)); then
	code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MPORT/other")
	check http-404 [ "$code" = 404 ]
	code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$MURL")
	check http-405 [ "$code" = 405 ]
	ctype=$(curl -sS -o /dev/null -w '%{content_type}' "$MURL")
	check content-type [ "$ctype" = "text/plain; version=0.0.4; charset=utf-8" ]

	# a second target on the same metrics address is refused at once
	run target --listen "127.0.0.1:$(free_port)" --nqn "$NQN" \
		--ns null:size=1m --allow-any-host --stats-socket "$TMP/s2.sock" \
		--metrics "127.0.0.1:$MPORT"
	failed metrics-address-in-use "--metrics 127\.0\.0\.1:$MPORT: cannot listen: Address already in use"
fi

# ---- live changes while /metrics is scraped and stats -o json read in
# a loop, I/O running: subsystems, namespaces and ports added and removed
# (core/live.c swaps and frees under the stats lock the snapshot holds).
# Every change accepted, every scrape and JSON answer whole; under TSan or
# ASan the target's log must stay free of reports (reap_target). ~3-6 s
if ((M)); then
	L2=nqn.2026-12.io.mqblk:metrics-live
	rm -f "$TMP/live.done"
	: >"$TMP/readers.bad"
	# readers: a scrape, then a JSON stats, until the changes are done
	(
		n=0
		while [[ ! -e $TMP/live.done ]] && ((n < 2000)); do
			curl -sf "$MURL" >"$TMP/scrape.txt" &&
				grep -q '^mqblk_port_up{port="1"} 1' "$TMP/scrape.txt" ||
				echo "scrape $n: failed or without port 1" >>"$TMP/readers.bad"
			"$MQBLK" ctl "$CTL" stats -o json >"$TMP/sj.json" 2>&1 &&
				python3 -m json.tool "$TMP/sj.json" >/dev/null ||
				echo "stats -o json $n: $(head -c 200 "$TMP/sj.json")" >>"$TMP/readers.bad"
			n=$((n + 1))
		done
		echo "$n" >"$TMP/readers.count"
	) &
	rpid=$!
	run_bg bench --name=lv --filename="$(uri)" --rw=randread --bs=4k \
		--size=64m --time_based --runtime=30
	live_ok=1
	for i in 1 2 3 4 5 6; do
		lp=$(free_port)
		for c in "add-subsys $L2 allow_any_host=1" \
			"add-ns $L2 1 null:size=1m" "add-ns $NQN 2 null:size=1m" \
			"add-port $((20 + i)) tcp 127.0.0.1 $lp" \
			"link $((20 + i)) $L2" "link 1 $L2" "disable-ns $NQN 2" \
			"unlink $((20 + i)) $L2" "remove-ns $NQN 2" \
			"remove-ns $L2 1" "add-ns $L2 2 null:size=1m" \
			"remove-subsys $L2" "remove-port $((20 + i))"; do
			# shellcheck disable=SC2086 # the words of the command
			if ! "$MQBLK" ctl "$CTL" $c >/dev/null 2>"$TMP/lv.err"; then
				live_ok=0
				fail "live-under-readers: ctl $c (round $i)" "$(head -n 1 "$TMP/lv.err")"
			fi
		done
	done
	touch "$TMP/live.done"
	wait "$rpid"
	kill "$BPID" 2>/dev/null
	wait "$BPID" 2>/dev/null
	((live_ok)) && pass "live-under-readers: 78 changes accepted"
	check live-readers-ran [ "$(cat "$TMP/readers.count")" -ge 2 ]
	check live-readers-whole [ ! -s "$TMP/readers.bad" ] ||
		head -n 3 "$TMP/readers.bad"
	# what was removed is gone from both views; port 1 stays
	curl -sf "$MURL" >"$TMP/scrape.txt"
	check live-removed-not-scraped [ "$(grep -c -e metrics-live -e 'port="2[1-6]"' "$TMP/scrape.txt")" = 0 ]
	run ctl "$CTL" stats -o json
	ok live-stats-json-after && check live-removed-not-in-json python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert [p["portid"] for p in d["ports"]] == [1], d["ports"]
nqns = [s["nqn"] for s in d["subsystems"]]
assert "nqn.2026-12.io.mqblk:metrics-live" not in nqns, nqns
s = [s for s in d["subsystems"] if s["nqn"] == sys.argv[2]][0]
assert [n["nsid"] for n in s["namespaces"]] == [1], s["namespaces"]' "$OUT" "$NQN"
fi

# ---- ana, port-down and port-up answer JSON with -o json, as the live
# commands do
run ctl "$CTL" -o json ana 1 1 optimized
ok ana-json && check ana-json-object python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d == {"command": "ana", "address": sys.argv[2], "state": "optimized", "group": 1}, d' "$OUT" "127.0.0.1:$PORT"
run ctl "$CTL" port-down 1 --output-format=json
ok port-down-json && check port-down-json-object python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["command"] == "port-down" and d["address"] == sys.argv[2] and d["connections_closed"] >= 0, d' "$OUT" "127.0.0.1:$PORT"
run ctl "$CTL" -ojson port-up 1
ok port-up-json && check port-up-json-object python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d == {"command": "port-up", "address": sys.argv[2], "portid": 1}, d' "$OUT" "127.0.0.1:$PORT"
run ctl "$CTL" port-up 1 -o table
check port-up-table-refused [ "$RC" = 2 ] &&
	check port-up-table-said grep -q '^mqblk ctl: -o table: only stats has a table' "$ERR"

# ---- one protocol on every socket, misuse refused in a line ----
# (the target above serves --ctl $CTL and --stats-socket $TMP/stats.sock)
run ctl "$TMP/stats.sock" stats
ok ctl-on-stats-socket && check ctl-on-stats-socket-table has_re '^ctrl +qid +peer'
run target --stats --ctl "$CTL"
ok target-stats-on-ctl-socket && check target-stats-table-first \
	grep -qE '^ctrl +qid +peer' <(head -n 1 "$OUT")
run target --stats --stats-socket "$TMP/stats.sock"
ok target-stats-on-stats-socket
# an empty line, sent raw: refused, not answered with a table
ans=$(python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"\n")
s.shutdown(socket.SHUT_WR)
print(s.recv(256).decode().splitlines()[0])' "$TMP/stats.sock")
check "empty command refused ($ans)" test "${ans#error: empty command (}" != "$ans"
run ctl "$CTL" bogus
check unknown-command-exit-2 [ "$RC" = 2 ]
# a peer that is no target: it answers junk and closes without reading
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(4)
for _ in range(2):
    c, _a = s.accept()
    c.sendall(b"HTTP/1.0 400 nope\r\n")
    c.close()' "$TMP/junk.sock" &
jpid=$!
for _ in $(seq 100); do [[ -S $TMP/junk.sock ]] && break; sleep 0.05; done
run ctl "$TMP/junk.sock" stats
check wrong-socket-no-sigpipe [ "$RC" = 1 ] &&
	check wrong-socket-said grep -qE '^mqblk ctl: .*junk\.sock: (not an mqblk target.s control socket|cannot send)' "$ERR"
run target --stats --stats-socket "$TMP/junk.sock"
check target-stats-wrong-socket [ "$RC" = 1 ] &&
	check target-stats-wrong-socket-said grep -q '^mqblk target --stats: ' "$ERR"
kill "$jpid" 2>/dev/null
wait "$jpid" 2>/dev/null
run target --stats --stats-socket "$TMP/none.sock"
check target-stats-no-socket [ "$RC" = 1 ] &&
	check target-stats-no-socket-said grep -q "^mqblk target --stats: $TMP/none.sock: No such file" "$ERR"

# a second target on the first's sockets is refused, the first keeps them
for opt in --ctl --stats-socket; do
	sock=$CTL
	[[ $opt == --stats-socket ]] && sock=$TMP/stats.sock
	run target --listen "127.0.0.1:$(free_port)" --nqn "$NQN" \
		--ns null:size=1m --allow-any-host "$opt" "$sock"
	failed "second-target-refused $opt" "^mqblk target: $opt $sock: another target serves this socket"
done
run ctl "$CTL" stats -o json
ok first-target-keeps-ctl
run ctl "$TMP/stats.sock" stats -o table
ok first-target-keeps-stats-socket

# a dead target's socket file is taken over
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])' "$TMP/stale.sock"
T2LOG=$TMP/t2.log
"$MQBLK" target --listen "127.0.0.1:$(free_port)" --nqn "$NQN" \
	--ns null:size=1m --allow-any-host --ctl "$TMP/stale.sock" \
	>"$T2LOG" 2>&1 </dev/null &
t2=$!
for _ in $(seq 200); do grep -q ready "$T2LOG" 2>/dev/null && break; sleep 0.05; done
run ctl "$TMP/stale.sock" stats
ok stale-socket-taken-over
stop_target "$t2" "$T2LOG"

finish
