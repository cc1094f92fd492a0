#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `mqblk bench` prints fio 3.33's normal report: per-job block, latency
# percentiles, depth histogram, run status per group, plus the mqblk line.
# shellcheck source-path=SCRIPTDIR disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# ran NAME: PASS if the last run exited 0 without crash or hang, else FAIL
# and return 1 (callers skip their content checks).
ran()
{
	local why
	why=$(status_problem)
	[[ -z $why ]] && ((RC != 0)) && why="exit status $RC: $(first_err)"
	[[ -z $why && ! -s $OUT ]] && why="nothing on stdout"
	if [[ -n $why ]]; then
		fail "$1" "$why"
		return 1
	fi
	pass "$1"
}

# The basic report.
run bench --name=t --filename=null --rw=randread --bs=4k --iodepth=16 \
	--runtime=1 --time_based
if ran basic-run; then
	check basic-job-header has 't: (groupid=0, jobs=1): err= 0:'
	check basic-read-iops has_re '^  read: IOPS=[0-9.]+[kMG]?, BW=[0-9.]+'
	check basic-clat-percentiles has 'clat percentiles'
	check basic-lat has 'lat ('
	check basic-cpu has 'cpu          :'
	check basic-io-depths has 'IO depths    :'
	check basic-issued has 'issued rwts: total='
	check basic-run-status has 'Run status group 0 (all jobs):'
	check basic-READ-bw has 'READ: bw='
	check basic-mqblk-line has 'mqblk'
fi

# Seed 004's command: four jobs reported as one group.
run bench --name=x --filename=null --bs=4k --iodepth=128 --rw=randread \
	--group_reporting --numjobs=4 --runtime=1 --time_based
if ran group-reporting-run; then
	n=$(grep -c 'jobs=4)' "$OUT")
	if ((n == 1)); then
		pass group-reporting-jobs4-once
	else
		fail group-reporting-jobs4-once "'jobs=4)' on $n lines"
	fi
	n=$(grep -c 'groupid=' "$OUT")
	if ((n == 1)); then
		pass group-reporting-one-job-block
	else
		fail group-reporting-one-job-block "$n job blocks"
	fi
fi

# A job file: [global] and two jobs, the second behind a stonewall.
cat >"$TMP/two.fio" <<'JOB'
; two groups: the stonewall starts group 1 after group 0 ends
[global]
filename=null
rw=randread
bs=4k
runtime=1
time_based

[first]
iodepth=4

[second]
stonewall
iodepth=8
JOB
run bench "$TMP/two.fio"
if ran jobfile-run; then
	check jobfile-first-job has 'first: (groupid=0'
	check jobfile-second-job has 'second: (groupid=1'
	check jobfile-group0 has 'Run status group 0 (all jobs):'
	check jobfile-group1 has 'Run status group 1 (all jobs):'
fi

# Interrupted, as fio is: SIGINT or SIGTERM names itself on stderr, the
# job stops issuing and skips its verify pass, later groups do not start,
# the report covers what ran, and the status is 128. bench_pid: the mqblk
# under run_bg's timeout.
bench_pid()
{
	pgrep -P "$BPID" -x mqblk
}
# wait_status: until the ETA line (on stderr beside a JSON report) shows a
# job running (at most 30 s)
wait_status()
{
	for _ in $(seq 600); do
		grep -q 'Jobs: 1' "$ERR" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}
cat >"$TMP/stop.fio" <<'JOB'
[global]
filename=null:size=64m
bs=4k
[first]
rw=randwrite
verify=crc32c
time_based
runtime=60
[second]
stonewall
rw=read
runtime=60
JOB
for sig in INT TERM; do
	run_bg bench --eta=always --output-format=json "$TMP/stop.fio"
	check "SIG$sig: the job runs" wait_status
	t0=$(date +%s%N)
	kill -"$sig" "$(bench_pid)"
	wait "$BPID" || RC=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	check "SIG$sig: exit status 128, as fio's ($RC)" test "$RC" = 128
	check "SIG$sig: named on stderr" \
		grep -q "^mqblk: terminating on signal $(kill -l "$sig")$" "$ERR"
	check "SIG$sig: ends at once, not at runtime ($ms ms)" test "$ms" -lt 20000
	STOP=$(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["jobs"]
print(len(j), j[0]["jobname"], j[0]["error"], j[0]["write"]["total_ios"] > 0,
      j[0]["read"]["total_ios"], j[0]["job_runtime"] < 60000)
' "$OUT" 2>&1)
	check "SIG$sig: the report covers what ran, the verify pass and the next group skipped ($STOP)" \
		test "$STOP" = "1 first 0 True 0 True"
done

# A second signal takes the default action: here the I/O out would take
# 10 s to drain
run_bg bench --eta=always --output-format=json --name=slow --rw=randread --iodepth=4 \
	--filename='null:irqmode=2,completion_nsec=10000000000' \
	--time_based --runtime=60
check "the slow job runs" wait_status
P=$(bench_pid)
kill -INT "$P"
sleep 0.3
kill -INT "$P"
wait "$BPID" || RC=$?
check "a second SIGINT kills it ($RC)" test "$RC" = 130

# Help.
run bench --help
if ran help-run; then
	check help-lists-iodepth has '--iodepth'
fi

# ---- terse (--minimal): fio's field order, for each terse version ----
# shape FILE: each ;-field with its numbers as N (names and layout kept)
terse_shape()
{
	tr ';' '\n' <"$1" | sed -E 's/[0-9]+(\.[0-9]+)?/N/g; 1!b; s/.*/V/' |
		sed '2s/.*/VERSION/'
}
for v in 2 3 4 5; do
	run bench --name=x --filename=null --rw=randrw --size=1m \
		--description=hello --minimal --terse-version=$v
	ok "--minimal --terse-version=$v" || continue
	check "terse v$v: one line per job (two with v2's description)" \
		test "$(wc -l <"$OUT")" = "$((v == 2 ? 2 : 1))"
	check "terse v$v: starts with its version (v2: '2;x')" \
		has_re "^$v;(mqblk-[0-9.]+;)?x;0;0;"
	cp "$OUT" "$TMP/terse$v"
	if command -v "${FIO:-fio}" >/dev/null; then
		"${FIO:-fio}" --name=x --ioengine=null --rw=randrw --size=1m \
			--description=hello --minimal --terse-version=$v \
			>"$TMP/fio-terse$v" 2>/dev/null
		check "terse v$v: the same fields as fio 3.33's, in its order" \
			test "$(terse_shape "$TMP/terse$v")" = \
			"$(terse_shape "$TMP/fio-terse$v")"
	fi
done
# counters in the right fields: 1 MiB of 4k reads, 256 I/Os
run bench --name=c --filename=null --rw=read --size=1m --bs=4k --minimal
ok "--minimal read" &&
	check "terse: read io_kbytes 1024, write 0 (fields 6 and 47)" \
		test "$(cut -d';' -f6,47 "$OUT")" = "1024;0"
# several formats at once, in fio's order: terse, JSON, normal
run bench --name=m --filename=null --rw=read --size=1m \
	--output-format=normal,json,terse
ok "--output-format=normal,json,terse" &&
	check "formats in fio's order: header, terse line, JSON, normal report" \
		python3 - "$OUT" <<'PY'
import sys
t = open(sys.argv[1]).read().split("\n")
first = lambda p: next(i for i, l in enumerate(t) if p(l))
h = first(lambda l: l.startswith("m: (g=0)"))
te = first(lambda l: l.startswith("3;"))
j = first(lambda l: l == "{")
n = first(lambda l: l.startswith("m: (groupid=0"))
sys.exit(0 if h < te < j < n else 1)
PY
run bench --name=x --filename=null --size=1m --terse-version=6
failed "--terse-version=6" "bad terse version format"
run bench --name=x --filename=null --size=1m --output-format=terse,xml
failed "--output-format=terse,xml" "unknown output-format 'xml'"

# ---- --status-interval: fio's full report every interval, then the last
run bench --name=s --filename=null --rw=randread --runtime=2 --time_based \
	--status-interval=500ms
ok "--status-interval=500ms" &&
	check "--status-interval: the report at least twice (interim + final)" \
		test "$(grep -c '^Run status group 0' "$OUT")" -ge 2
run bench --name=s --filename=null --rw=randread --runtime=2 --time_based \
	--status-interval=500ms --output-format=json
ok "--status-interval JSON" &&
	check "--status-interval JSON: whole documents, I/O never going back" \
		python3 - "$OUT" <<'PY'
import json, sys
text, dec, docs, i = open(sys.argv[1]).read(), json.JSONDecoder(), [], 0
while i < len(text):
    if text[i].isspace():
        i += 1
        continue
    d, i = dec.raw_decode(text, i)
    docs.append(d["jobs"][0]["read"]["total_ios"])
sys.exit(0 if len(docs) >= 2 and docs == sorted(docs) and docs[-1] > 0 else 1)
PY
run bench --name=s --filename=null --rw=randread --runtime=2 --time_based \
	--eta=always --eta-newline=500ms --eta-interval=250ms
ok "--eta-newline --eta-interval" &&
	check "--eta-newline: status lines each on a line of its own (>= 2)" \
		test "$(grep -c 'Jobs: ' "$OUT")" -ge 2
run bench --name=s --filename=null --size=1m --status-interval=0
failed "--status-interval=0" "status-interval=0: must be above 0"
run bench --name=s --filename=null --size=1m --eta-interval=abc
failed "--eta-interval=abc" "eta-interval: "

# ---- help: mqblk help bench is bench --help, which names every option
# the parser takes and every device kind
run help bench
cp "$OUT" "$TMP/help-bench"
run bench --help
ok "bench --help" &&
	check "mqblk help bench is mqblk bench --help" \
		cmp -s "$OUT" "$TMP/help-bench"
missing=
for o in $(grep -oE '^\s*\{ "[a-z_0-9]+", OT_' ../src/bench/options.c |
	grep -oE '"[a-z_0-9]+"' | tr -d '"'); do
	grep -qE -- "--$o\b|[ |(]$o\b" "$OUT" || missing="$missing $o"
done
check "bench --help names every option of options.c's table${missing:+ (missing:$missing)}" \
	test -z "$missing"
for kind in 'null\[' '/path' 'stripe:' 'nvme-tcp://HOST' 'multipath'; do
	check "bench --help names the device kind $kind" has_re "$kind"
done

finish
