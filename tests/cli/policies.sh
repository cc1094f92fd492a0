#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Completion routing through the real binary: each policy's completions are
# counted on its own path, the paths add up to the I/Os done, and the remote
# share is what the counters say. Several jobs share the hardware queues,
# so the cross-thread hand-offs really happen (and run under TSan in the
# sanitizer pass of scripts/test).
# shellcheck source-path=SCRIPTDIR disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# pycheck NAME POLICY FILE: check the JSON report of a policy run.
pycheck()
{
	local line
	while IFS= read -r line; do
		case $line in
		PASS*) pass "$1-${line#PASS }" ;;
		FAIL*) fail "$1-${line#FAIL }" ;;
		*) fail "$1-python" "$line" ;;
		esac
	done < <(python3 - "$2" "$3" <<'PY' 2>&1
import json, sys

policy, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))
j = d["jobs"][0]
mq = j["mqblk"]
c = mq["completions"]
total = sum(c.values())
ios = j["read"]["total_ios"] + j["write"]["total_ios"]


def check(name, ok, why):
    print(("PASS %s" % name) if ok else ("FAIL %s: %s" % (name, why)))


check("did-io", ios > 0, "no I/O")
# reaped I/Os all came back by some path; issued-but-unreaped ones at the
# end are drained by the queue close and counted too
check("paths-add-up", total >= ios, "paths %d < ios %d" % (total, ios))
check("no-errors", mq["errors"] == 0 and j["error"] == 0, str(mq))
own = {"local": "local", "remote": "remote", "batched": "batched",
       "polled": "polled", "irq": "irq"}[policy]
check("own-path-used", c[own] > 0, "%s=0: %s" % (own, c))
if policy in ("remote", "batched", "irq"):
    # interrupt threads complete everything: nothing is local or polled
    check("no-local", c["local"] == 0 and c["polled"] == 0, str(c))
if policy == "batched":
    check("no-remote", c["remote"] == 0, str(c))
if policy == "remote":
    check("no-batched", c["batched"] == 0 and c["irq"] == 0, str(c))
if policy == "irq":
    # finished where they landed; a submitter is woken only when it
    # sleeps, so never more often than once per completion
    check("no-handed-over", c["remote"] == 0 and c["batched"] == 0, str(c))
    check("wakeups-at-most-completions", mq["wakeups"] <= c["irq"],
          "wakeups %d, irq completions %d" % (mq["wakeups"], c["irq"]))
if policy == "polled":
    check("no-interrupt-paths", c["batched"] == 0 and c["local"] == 0,
          str(c))
cross = c["remote"] + c["batched"] + c["irq"]
want = 100.0 * cross / total if total else 0.0
check("remote-pct", abs(mq["remote_pct"] - want) < 0.01,
      "remote_pct %s, counters say %.3f" % (mq["remote_pct"], want))
PY
	)
}

for irq in 1 2; do
	for policy in local remote batched polled irq; do
		name=irq$irq-$policy
		run bench --name=p --filename="null:irqmode=$irq,completion_nsec=2000,complete=$policy,submit_queues=2" \
			--rw=randread --bs=4k --iodepth=8 --numjobs=4 --group_reporting \
			--runtime=1 --time_based --output-format=json
		why=$(status_problem)
		[[ -z $why ]] && ((RC != 0)) && why="exit status $RC: $(first_err)"
		if [[ -n $why ]]; then
			fail "$name-run" "$why"
			continue
		fi
		pass "$name-run"
		pycheck "$name" "$policy" "$OUT"
	done
done

# --hipri selects polled completion on any device.
run bench --name=h --filename="null:irqmode=1" --hipri --rw=randread --bs=4k \
	--iodepth=4 --runtime=1 --time_based --output-format=json
if [[ -z $(status_problem) ]] && ((RC == 0)); then
	pass hipri-run
	pycheck hipri polled "$OUT"
else
	fail hipri-run "status $RC: $(first_err)"
fi

# --cpus_allowed pins the job threads (fio's semantics): look at the live
# threads' allowed CPUs in /proc while a run is going.
# cpus_during ARGS...: run a 3 s bench with ARGS; after 1 s, each thread's
# Cpus_allowed_list, one per line.
cpus_during()
{
	local pid
	"$MQBLK" bench --name=c --filename=null --rw=randread --runtime=3 \
		--time_based "$@" >/dev/null 2>&1 &
	pid=$!
	sleep 1
	grep -h '^Cpus_allowed_list' /proc/$pid/task/*/status 2>/dev/null |
		awk '{ print $2 }'
	wait $pid
}
# threads_on LIST CPUS: how many lines of LIST are exactly CPUS.
threads_on()
{
	grep -cx -- "$2" <<<"$1"
}
if (($(nproc) >= 2)); then
	all=$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status)
	seen=$(cpus_during --numjobs=2 --cpus_allowed=1)
	check cpus-allowed-shared [ "$(threads_on "$seen" 1)" -eq 2 ]
	check cpus-allowed-rest-untouched [ "$(threads_on "$seen" "$all")" -ge 1 ]
	seen=$(cpus_during --numjobs=2 --cpus_allowed=0-1 \
		--cpus_allowed_policy=split)
	check cpus-allowed-split-0 [ "$(threads_on "$seen" 0)" -eq 1 ]
	check cpus-allowed-split-1 [ "$(threads_on "$seen" 1)" -eq 1 ]
else
	skip cpus-allowed "one CPU here (nproc)"
fi

finish
