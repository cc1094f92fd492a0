#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A running target reconfigured through `mqblk ctl` (add-subsys, add-ns,
# remove-ns, link, add-port, ...), driven by mqblk's own host: a verify
# job on one namespace while others come and go (no verify error, no
# message: its controller's namespace change events are handled quietly);
# the job's own namespace removed under its writes (the job is told, the
# device closes after the I/O, the data written and acknowledged before
# reads back verified once the namespace is added again); a subsystem and
# a port added live and reached; -o json answers; refused commands;
# remove-host (refused while a subsystem allows the host; save after it).
# Usage: bash tests/cli/live.sh build/mqblk
source "$(dirname "$0")/lib.sh"

NQN=nqn.2026-12.io.mqblk:live
NQN2=nqn.2026-12.io.mqblk:live2
CTL=$TMP/ctl.sock
A=$TMP/a.img
B=$TMP/b.img
truncate -s 16m "$A" "$B"

start_target --ns "$A" --allow-any-host --reactors 2 --ctl "$CTL" || {
	fail setup "no target"
	finish
}

# ctl ARGS...: mqblk ctl on the target's socket (RC, OUT, ERR as run)
ctl()
{
	run ctl "$CTL" "$@"
}

# nsuri NSID [PORT [SUBNQN]]: a namespace's URI
nsuri()
{
	echo "nvme-tcp://127.0.0.1:${2:-$PORT}/${3:-$NQN}?nsid=$1"
}

# bg_files NAME: the background job's output files, apart from those
# of the ctl runs beside it; job_done: OUT and ERR back, RC the job's
bg_files()
{
	SAVED_OUT=$OUT SAVED_ERR=$ERR
	OUT=$TMP/$1.out ERR=$TMP/$1.err
}
job_done()
{
	wait "$BPID" || RC=$?
}

# ---- a verify job on nsid 1 while the configuration changes around it
bg_files churn
run_bg bench --name=churn --filename="$(nsuri 1)" --rw=randwrite --bs=4k \
	--size=16m --iodepth=16 --verify=crc32c --do_verify=1
JOB_OUT=$OUT JOB_ERR=$ERR
OUT=$SAVED_OUT ERR=$SAVED_ERR
wait_writes 256 || fail "churn: the job's writes did not arrive"
churn_ok=1
for i in 1 2 3; do
	for c in "add-ns $NQN 2 null:size=8m" "disable-ns $NQN 2" \
		"enable-ns $NQN 2" "remove-ns $NQN 2" \
		"add-subsys $NQN2 allow_any_host=1" "link 1 $NQN2" \
		"unlink 1 $NQN2" "remove-subsys $NQN2"; do
		# shellcheck disable=SC2086 # the words of the command
		ctl $c
		((RC == 0)) || {
			churn_ok=0
			fail "churn: ctl $c (round $i)" "$(first_err)"
		}
	done
done
((churn_ok)) && pass "churn: 24 live changes (namespaces of the job's subsystem, a subsystem linked and unlinked) accepted"
RC=0
job_done
OUT=$JOB_OUT ERR=$JOB_ERR
if ok "churn: the verify job under the changes"; then
	check "churn: no verify errors" has "verify_errors=0"
fi
OUT=$SAVED_OUT ERR=$SAVED_ERR

# ---- the job's own namespace removed under its writes
ctl add-ns "$NQN" 2 "$B"
ok "add-ns 2 (a file)"
# first half written and acknowledged (headers for the verify below)
run bench --name=half --filename="$(nsuri 2)" --rw=write --bs=64k \
	--size=8m --verify=crc32c --do_verify=0
ok "the first half of nsid 2 written"
# second half: random writes until the namespace goes
bg_files cut
run_bg bench --name=cut --filename="$(nsuri 2)" --rw=randwrite --bs=4k \
	--offset=8m --size=8m --iodepth=32 --time_based --runtime=20
JOB_OUT=$OUT JOB_ERR=$ERR
OUT=$SAVED_OUT ERR=$SAVED_ERR
wait_writes 1000 || fail "cut: the job's writes did not arrive"
ctl -o json remove-ns "$NQN" 2
if ok "remove-ns 2 under the job's writes"; then
	check "remove-ns -o json: the answer" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d == {"command": "remove-ns", "nqn": sys.argv[2], "nsid": 2}
	 else 1)' "$OUT" "$NQN"
fi
RC=0
job_done
OUT=$JOB_OUT ERR=$JOB_ERR
check "cut: the job is told of the removal (namespace 2 is gone)" \
	grep -q "namespace 2 is gone" "$ERR"
check "cut: neither hung nor crashed" test -z "$(status_problem)"
OUT=$SAVED_OUT ERR=$SAVED_ERR
for _ in $(seq 100); do
	grep -q "namespace 2 ($B): removed, device closed" "$TLOG" && break
	sleep 0.05
done
check "cut: the target closes the device once its I/O is done" \
	grep -q "namespace 2 ($B): removed, device closed" "$TLOG"
ctl add-ns "$NQN" 2 "$B"
ok "add-ns 2 again, the same file"
run bench --name=half --filename="$(nsuri 2)" --rw=write --bs=64k \
	--size=8m --verify=crc32c --verify_only
ok "the first half of nsid 2 verifies: nothing acknowledged was lost" &&
	check "verify_only: no verify errors" has "verify_errors=0"

# ---- a subsystem and a port added live, reached through the new port
PORT2=$(free_port)
ctl add-subsys "$NQN2" serial=LIVE0001 model=live-model
ok "add-subsys"
ctl add-ns "$NQN2" 5 null:size=4m uuid=0f2d4b6c-1a3e-4c5d-8e7f-90a1b2c3d4e5
ok "add-ns 5 with a uuid"
ctl add-port 7 tcp 127.0.0.1 "$PORT2"
ok "add-port 7"
ctl link 7 "$NQN2"
ok "link 7"
run id-ctrl "$(nsuri 5 "$PORT2" "$NQN2")"
failed "the new subsystem refuses a host it does not allow" "not allowed|host"
ctl allow-host "$NQN2" nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555
ok "allow-host"
run id-ctrl "$(nsuri 5 "$PORT2" "$NQN2")&hostnqn=nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555"
if ok "id-ctrl through the new port as the allowed host"; then
	check "id-ctrl: serial and model as add-subsys set them" \
		has_re "^sn +: LIVE0001" && has_re "^mn +: live-model"
fi
run id-ns "$(nsuri 5 "$PORT2" "$NQN2")&hostnqn=nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555"
ok "id-ns 5 through the new port" &&
	check "id-ns: nsze 8192 blocks of 512 (4 MiB)" has_re "^nsze +: 0x2000"
ctl stats
ok "stats" && check "stats: port 7 listed" has_re "^port 7 127.0.0.1:$PORT2 up"
ctl remove-port 7
ok "remove-port 7"
run id-ctrl "$(nsuri 5 "$PORT2" "$NQN2")"
failed "nothing listens on a removed port" "refused|connect"
ctl stats
ok "stats after remove-port" && check "stats: port 7 gone" \
	bash -c "! grep -q '^port 7 ' '$OUT'"

# sighup: the saved file edited (a namespace and a subsystem added, a
# namespace removed, an ANA state changed), SIGHUP under a verify job on
# nsid 1; then files that do not load, refused whole
sighup()
{
	local before
	python3 - "$TMP/saved.json" "$NQN" "$NQN2" <<'PY'
import json, sys
path, nqn, nqn2 = sys.argv[1:]
d = json.load(open(path))
subs = {s["nqn"]: s for s in d["subsystems"]}
subs[nqn]["namespaces"].append({"nsid": 9, "enable": 1, "ana_grpid": 1,
    "device": {"path": "null:size=2m",
               "uuid": "5a0e7c1d-9b2f-4e3a-8c6d-1f2e3d4c5b6a"}})
subs[nqn2]["namespaces"] = [n for n in subs[nqn2]["namespaces"]
                            if n["nsid"] != 6]
d["subsystems"].append({"nqn": nqn + "3", "attr": {"allow_any_host": "1"},
    "allowed_hosts": [], "namespaces": [{"nsid": 1, "enable": 1,
    "device": {"path": "null:size=1m"}}]})
p1 = [p for p in d["ports"] if p["portid"] == 1][0]
p1["subsystems"].append(nqn + "3")
for g in p1["ana_groups"]:
    if g["grpid"] == 3:
        g["ana"]["state"] = "inaccessible"
json.dump(d, open(path + ".new", "w"), indent=2)
PY
	mv "$TMP/saved.json.new" "$TMP/saved.json"
	bg_files hup
	run_bg bench --name=hup --filename="$(nsuri 1)" --rw=randwrite \
		--bs=4k --size=16m --iodepth=16 --verify=crc32c --do_verify=1
	JOB_OUT=$OUT JOB_ERR=$ERR
	OUT=$SAVED_OUT ERR=$SAVED_ERR
	wait_writes 256 || fail "SIGHUP: the job's writes did not arrive"
	kill -HUP "$TPID"
	for _ in $(seq 100); do
		grep -q "SIGHUP: .* re-read" "$TLOG" && break
		sleep 0.05
	done
	check "SIGHUP: the file re-read, 6 changes applied (2 namespaces and a subsystem added, a namespace removed, a link, an ANA state)" \
		grep -q "SIGHUP: $TMP/saved.json re-read: 6 changes applied" "$TLOG"
	RC=0
	job_done
	OUT=$JOB_OUT ERR=$JOB_ERR
	ok "SIGHUP: the verify job on nsid 1 carries on (its connection untouched)" &&
		check "SIGHUP: no verify errors" has "verify_errors=0"
	OUT=$SAVED_OUT ERR=$SAVED_ERR
	ctl -o json show
	ok "show -o json after SIGHUP" &&
		check "show -o json: the configuration is the edited file's" \
			python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
# the new subsystem: as given, the rest its defaults
new = sys.argv[3]
na = [s for s in a["subsystems"] if s["nqn"] == new]
a["subsystems"] = [s for s in a["subsystems"] if s["nqn"] != new]
b["subsystems"] = [s for s in b["subsystems"] if s["nqn"] != new]
if (len(na) != 1 or na[0]["attr"]["allow_any_host"] != "1" or
    [(n["nsid"], n["enable"], n["device"]["path"]) for n in na[0]["namespaces"]]
    != [(1, 1, "null:size=1m")]):
    print("new subsystem:", na, file=sys.stderr)
    sys.exit(1)
if a != b:
    print("running:", json.dumps(a, sort_keys=True), file=sys.stderr)
    print("file:   ", json.dumps(b, sort_keys=True), file=sys.stderr)
sys.exit(0 if a == b else 1)' "$OUT" "$TMP/saved.json" "${NQN}3"
	run id-ns "$(nsuri 9)"
	ok "SIGHUP: the added nsid 9 answers" &&
		check "id-ns 9: 2 MiB" has_re "^nsze +: 0x1000"
	run id-ns "$(nsuri 1 "$PORT" "${NQN}3")"
	ok "SIGHUP: the added subsystem answers on port 1"
	cp "$OUT" "$TMP/after.txt"
	ctl -o json show
	before=$TMP/before-bad.json
	cp "$OUT" "$before"
	cp "$TMP/saved.json" "$TMP/good.json"
	printf '{ "ports": [ ' >"$TMP/saved.json"
	kill -HUP "$TPID"
	for _ in $(seq 100); do
		grep -q "SIGHUP: .*the running configuration stays" "$TLOG" && break
		sleep 0.05
	done
	check "SIGHUP with a broken file: refused, logged with its error" \
		grep -qE "SIGHUP: $TMP/saved.json:1:[0-9]+: .*; the running configuration stays" "$TLOG"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["ports"][0]["addr"]["trtype"] = "fc"
d["subsystems"] = []
json.dump(d, open(sys.argv[1], "w"))' "$TMP/good.json"
	cp "$TMP/good.json" "$TMP/saved.json"
	kill -HUP "$TPID"
	for _ in $(seq 100); do
		(($(grep -c "the running configuration stays" "$TLOG") >= 2)) && break
		sleep 0.05
	done
	check "SIGHUP with an unsupported transport: refused whole" \
		grep -q 'SIGHUP: .*transport "fc" is not supported.*; the running configuration stays' "$TLOG"
	ctl -o json show
	ok "show after the refused reloads" &&
		check "the running configuration is unchanged" cmp "$OUT" "$before"
	check "the target is still up" kill -0 "$TPID"
}

# ---- save, a restart with the file, show: the same configuration
ctl allow-any-host "$NQN2" 0
ok "allow-any-host 0"
ctl add-host nqn.2014-08.org.nvmexpress:uuid:auth dhchap_key=DHHC-1:01:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:
ok "add-host with a DH-HMAC-CHAP key"
ctl allow-host "$NQN2" nqn.2014-08.org.nvmexpress:uuid:auth
ok "allow-host of the defined host"
ctl ana 3 1 inaccessible
failed "ana of a group nothing names" "ANA group 3 does not exist"
ctl add-ns "$NQN2" 6 null:size=1m ana_grpid=3 enable=0
ok "add-ns 6 disabled, in ANA group 3"
ctl ana 3 1 non-optimized
ok "ana 3 on port 1"
ctl show
if ok "show"; then
	check "show: namespace 6 disabled in group 3" \
		has_re "^  namespace 6 disabled ana_grpid 3 path null:size=1m "
	check "show: the host's secret not shown" \
		bash -c "! grep -q DHHC '$OUT'"
	check "show: port 1's ANA states" has_re "^  ana 1:optimized 3:non-optimized$"
fi
cp "$OUT" "$TMP/show1.txt"
ctl -o json show
ok "show -o json" && cp "$OUT" "$TMP/show1.json"
MQBLK_ABS=$(realpath "$MQBLK")
(cd "$TMP" && "$MQBLK_ABS" ctl "$CTL" save saved.json >"$OUT" 2>"$ERR")
RC=$?
ok "save saved.json (relative to ctl's directory)"
check "save: the file is 0600 (it holds secrets)" \
	test "$(stat -c %a "$TMP/saved.json")" = 600
check "save: the file is show -o json's" cmp "$TMP/saved.json" "$TMP/show1.json"
check "save: nvmetcli's keys" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = {x["nqn"]: x for x in d["subsystems"]}[sys.argv[2]]
h = {x["nqn"]: x for x in d["hosts"]}
ok = (s["attr"]["serial"] == "LIVE0001" and
      s["allowed_hosts"] == ["nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555",
                             "nqn.2014-08.org.nvmexpress:uuid:auth"] and
      h["nqn.2014-08.org.nvmexpress:uuid:auth"]["dhchap"]["key"].startswith("DHHC-1:01:") and
      [n["nsid"] for n in s["namespaces"]] == [5, 6] and
      s["namespaces"][0]["device"]["uuid"] == "0f2d4b6c-1a3e-4c5d-8e7f-90a1b2c3d4e5" and
      s["namespaces"][1]["enable"] == 0)
sys.exit(0 if ok else 1)' "$TMP/saved.json" "$NQN2"
# shellcheck disable=SC2119 # no arguments: TPID and TLOG
stop_target
ok_stop=$?
check "the first target stops cleanly" test "$ok_stop" = 0
TPID=
"$MQBLK" target --config "$TMP/saved.json" --ctl "$CTL" \
	--stats-socket "$TMP/stats.sock" >"$TLOG" 2>&1 </dev/null &
TPID=$!
if wait_ready; then
	pass "a target from the saved file starts"
	ctl show
	ok "show on the restarted target" &&
		check "show: the same text" cmp "$OUT" "$TMP/show1.txt"
	ctl -o json show
	ok "show -o json on the restarted target" &&
		check "show -o json: the same JSON" cmp "$OUT" "$TMP/show1.json"
	ctl save
	ok "save with no FILE: --config's"
	check "save: the same bytes again" cmp "$TMP/saved.json" "$TMP/show1.json"
	run id-ns "$(nsuri 1)"
	ok "nsid 1 (the file) through the restarted target"
	sighup
else
	fail "a target from the saved file starts"
fi

# ---- refused commands: one line, exit 1 (by the target) or 2 (by ctl)
ctl add-subsys "$NQN2"
failed "add-subsys of an existing NQN" "^mqblk ctl: add-subsys: .*exists already$"
ctl add-ns "$NQN" 1 null:size=1m
failed "add-ns of an NSID in use" "has NSID 1 already"
ctl add-ns "$NQN" 3 /nonexistent/dir/x.img
failed "add-ns of a device that cannot be opened" "No such file"
ctl remove-ns "$NQN" 77
failed "remove-ns of an unknown NSID" "has no NSID 77"
ctl link 99 "$NQN"
failed "link to an unknown port" "no port with that ID"
ctl add-port 1 tcp 127.0.0.1 "$PORT"
failed "add-port with an ID in use" "port 1 exists already"
ctl add-port 8 tcp 127.0.0.1 "$PORT"
failed "add-port on an address in use" "has address"
ctl allow-host "$NQN" nqn.2014-08.org.nvmexpress:uuid:x
failed "allow-host on a subsystem that allows any host" "allows any host"
ctl allow-any-host "$NQN2" 1
failed "allow-any-host 1 with hosts listed" "has 2 allowed hosts"
ctl save /nonexistent-dir/x.json
failed "save into a directory that does not exist" "nonexistent-dir"
for bad in "add-ns $NQN 0 null:size=1m" "add-ns $NQN 2 null: bogus=1" \
	"add-ns $NQN 2 null: enable=2" "add-port 9 fc 127.0.0.1 1" \
	"add-port 9 tcp localhost 4420" "remove-subsys" "add-ns $NQN" \
	"add-subsys nqn/with/slash" "remove-ns $NQN 2 -o yaml" \
	"remove-host" "remove-host nqn.2014-08.org.nvmexpress:uuid:gone dhchap_key=x"; do
	# shellcheck disable=SC2086 # the words of the command
	ctl $bad
	if ((RC == 2)) && [[ $(wc -l <"$ERR") == 1 ]]; then
		pass "refused before sending: $bad"
	else
		fail "refused before sending: $bad" "status $RC: $(first_err)"
	fi
done

# ---- remove-host: refused while a subsystem allows the host (naming
# it), else the host is gone from what save writes
AUTH=nqn.2014-08.org.nvmexpress:uuid:auth
GONE=nqn.2014-08.org.nvmexpress:uuid:gone
ctl remove-host "$AUTH"
failed "remove-host of a host a subsystem allows: refused, naming it" \
	"^mqblk ctl: remove-host: $AUTH is allowed in $NQN2 \(disallow-host $NQN2 $AUTH first\)$"
ctl remove-host "$GONE"
failed "remove-host of an unknown host" "^mqblk ctl: remove-host: $GONE: no such host"
ctl add-host "$GONE" dhchap_key=DHHC-1:01:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:
ok "add-host of a host to remove"
ctl -o json remove-host "$GONE"
ok "remove-host of a host no subsystem allows" &&
	check "remove-host -o json: the command and the host" python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))
sys.exit(0 if a.get("command") == "remove-host" and a.get("hostnqn") == sys.argv[2] else 1)' "$OUT" "$GONE"
ctl save "$TMP/removed.json"
ok "save after remove-host" &&
	check "save after remove-host: the host gone, the allowed one kept" python3 -c '
import json, sys
h = [x["nqn"] for x in json.load(open(sys.argv[1]))["hosts"]]
sys.exit(0 if sys.argv[2] not in h and sys.argv[3] in h else 1)' "$TMP/removed.json" "$GONE" "$AUTH"
ctl -o json show
ok "show -o json after remove-host" &&
	check "save after remove-host: show -o json's, as a restart would read it" \
		cmp "$OUT" "$TMP/removed.json"
ctl add-host "$GONE"
ok "add-host of the removed host again"
ctl disallow-host "$NQN2" "$AUTH"
ok "disallow-host, then"
ctl remove-host "$AUTH"
ok "remove-host of the host no longer allowed"

finish
