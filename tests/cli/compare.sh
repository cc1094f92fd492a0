#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `mqblk compare BASE[,..] NEW[,..] [--threshold P]` on real reports: fio's
# (the Debian fio, null engine, several runs a side), mqblk bench's own, and
# copies of them doctored by python3 (IOPS halved, latency doubled). Checks
# the table's rows, the change, the significance verdict (Welch's t-test,
# checked against hand-computed values on synthetic reports), the exit
# status (0, 1 for a regression past the threshold, 2 for bad input with
# one line on stderr naming the problem). No check depends on speed.
# shellcheck source-path=SCRIPTDIR disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FIO=${FIO:-fio}
D=$TMP/reports
mkdir -p "$D"

# ok_rc NAME STATUS: the last run exited STATUS (no crash or hang), with
# nothing on stderr and a report on stdout.
ok_rc()
{
	local why
	why=$(status_problem)
	[[ -z $why ]] && ((RC != $2)) && why="exit status $RC, want $2: $(first_err)"
	[[ -z $why && -s $ERR ]] && why="stderr: $(first_err)"
	[[ -z $why && ! -s $OUT ]] && why="no report on stdout"
	if [[ -n $why ]]; then
		fail "$1" "$why"
		return 1
	fi
	pass "$1"
}

# bad NAME ERE: the last run exited 2, printed nothing on stdout and one
# line on stderr that starts "mqblk compare: " and matches ERE.
bad()
{
	local why
	why=$(status_problem)
	[[ -z $why ]] && ((RC != 2)) && why="exit status $RC, want 2"
	[[ -z $why && -s $OUT ]] && why="stdout not empty: $(head -n 1 "$OUT")"
	[[ -z $why ]] && (($(wc -l <"$ERR") != 1)) &&
		why="$(wc -l <"$ERR") lines on stderr: $(first_err)"
	[[ -z $why ]] && ! grep -qE -- "^mqblk compare: .*$2" "$ERR" &&
		why="stderr lacks /$2/: $(first_err)"
	if [[ -n $why ]]; then
		fail "$1" "$why"
		return 1
	fi
	pass "$1"
}

# row JOB DIR METRIC: the ERE of a table row's start
row()
{
	printf '^%s +[0-9]+  %-5s  %s ' "$1" "$2" "$3"
}

# doctor SRC DST FACTOR WHAT: copy report SRC (leading text and all) to
# DST (SRC itself may be DST) with WHAT (iops: IOPS and bandwidth; clat:
# mean and percentiles) multiplied by FACTOR in every direction of every
# job (clat+: FACTOR ns added instead; pin: IOPS and bandwidth set to the
# jobs' 4000 IOPS rate times 1 + FACTOR, in each direction that did I/O).
doctor()
{
	python3 - "$@" <<'PY'
import json, sys

src, dst, factor, what = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
text = open(src).read()
start = next(i for i, line in enumerate(text.splitlines(True))
             if line.lstrip().startswith("{"))
lines = text.splitlines(True)
d = json.loads("".join(lines[start:]))
for j in d["jobs"]:
    for k in ("read", "write", "trim"):
        o = j.get(k)
        if not o:
            continue
        if what == "pin":
            if o["total_ios"]:
                o["iops"] = 4000 * (1 + factor)
                o["bw_bytes"] = int(o["iops"] * 4096)
                o["bw"] = o["bw_bytes"] // 1024
        elif what == "iops":
            o["iops"] *= factor
            o["bw"] = int(o["bw"] * factor)
            o["bw_bytes"] = int(o["bw_bytes"] * factor)
        else:
            c = o["clat_ns"]
            f = (lambda x: x + factor) if what == "clat+" else (lambda x: x * factor)
            c["mean"] = f(c["mean"])
            for p in c.get("percentile", {}):
                c["percentile"][p] = int(f(c["percentile"][p]))
with open(dst, "w") as f:
    f.write("".join(lines[:start]))
    json.dump(d, f, indent=2)
PY
}

# synth FILE IOPS...: a minimal report, job "s", reads, one IOPS value
synth()
{
	local f=$1
	shift
	python3 - "$f" "$@" <<'PY'
import json, sys
json.dump({"jobs": [{"jobname": "s", "groupid": 0,
                     "read": {"total_ios": 100, "iops": float(sys.argv[2]),
                              "bw_bytes": 4096 * int(sys.argv[2])}}]},
          open(sys.argv[1], "w"))
PY
}

# ---- real reports: fio, 4 runs a side; two jobs (randread; randrw) ----
# Capped at 4000 IOPS (1024 I/Os, about 0.3 s): an uncapped null job
# lasts 3-50 ms here and its IOPS swing +-30 % from run to run on this
# shared machine, which would leave a halved IOPS "noise" now and then;
# capped, an idle machine's runs do 4000 (or nearly). Latencies still
# vary (+-15 %).
fio_job=(--ioengine=null --size=4m --bs=4k --rate_iops=4000
	--output-format=json --name=r --rw=randread --name=m --rw=randrw)
have_fio=1
for i in 1 2 3 4 5 6 7 8; do
	if ! timeout 60 "$FIO" "${fio_job[@]}" >"$D/fio$i.json" 2>"$D/fio.err"; then
		fail "fio-run-$i" "$(head -n 1 "$D/fio.err")"
		have_fio=0
	fi
done
# The rate holds on an idle machine, not on a loaded one: CI saw a run
# fall behind it far enough that the halved IOPS below were (rightly)
# noise. The verdicts are compare's, not the machine's: each run's IOPS
# (and bandwidth) are pinned to the rate within +-0.4 %, a spread fixed
# per run; the reports stay fio's otherwise, latencies included.
if ((have_fio)); then
	i=1
	for j in 0 0.004 -0.003 0.002 -0.001 0.003 -0.004 0.001; do
		doctor "$D/fio$i.json" "$D/fio$i.json" "$j" pin
		i=$((i + 1))
	done
fi
B=$D/fio1.json,$D/fio2.json,$D/fio3.json,$D/fio4.json
N=$D/fio5.json,$D/fio6.json,$D/fio7.json,$D/fio8.json

if ((have_fio)); then
	run compare "$B" "$N"
	if ok_rc fio-4v4 0; then
		for want in "$(row r read iops)" "$(row r read 'bw \(MiB/s\)')" \
			"$(row r read 'clat mean \(us\)')" \
			"$(row r read 'clat p99 \(us\)')" \
			"$(row r read 'clat p99\.99 \(us\)')" \
			"$(row m read iops)" "$(row m write iops)" \
			"$(row m write 'clat p99\.99 \(us\)')"; do
			check "fio-4v4-row /$want/" has_re "$want"
		done
		check fio-4v4-no-write-row-for-randread \
			bash -c "! grep -qE '^r +[0-9]+  write' $OUT"
		check fio-4v4-no-trim-rows bash -c "! grep -qE '  trim ' $OUT"
		check fio-4v4-15-rows test "$(grep -cE '^[rm] +0  ' "$OUT")" -eq 15
		check fio-4v4-verdicts has_re '(significant|noise) \(p[=<]'
		check fio-4v4-header has "base: 4 runs:"
		check fio-4v4-test-named has "Welch's t-test"
		check fio-4v4-no-threshold-no-summary \
			bash -c "! grep -q 'regression' $OUT"
	fi

	# identical inputs: 0 % and noise everywhere, exit 0 with a threshold
	run compare "$B" "$B" --threshold 5%
	if ok_rc identical-4v4 0; then
		check identical-all-zero \
			bash -c "! grep -E '^[rm] +0  ' $OUT | grep -vqE ' \+0\.00%  noise \(p=1\.000\)\$'"
		check identical-no-regression has "no regression past 5%"
	fi

	# IOPS halved in NEW (bandwidth with it): significant, exit 1
	for i in 1 2 3 4; do
		doctor "$D/fio$i.json" "$D/half$i.json" 0.5 iops
	done
	H=$D/half1.json,$D/half2.json,$D/half3.json,$D/half4.json
	run compare "$B" "$H" --threshold 5%
	if ok_rc halved-iops-exit-1 1; then
		check halved-iops-significant has_re \
			"$(row r read iops).* -50\.[0-9]{2}%  significant \(p[<=][0-9.]+\)  REGRESSION\$"
		check halved-bw-significant has_re \
			"$(row m write 'bw \(MiB/s\)').* -50\.[0-9]{2}%  significant .*REGRESSION\$"
		check halved-latency-unchanged has_re \
			"$(row r read 'clat mean \(us\)').* \+0\.00%  noise \(p=1\.000\)\$"
		check halved-summary has_re '^[0-9]+ regressions past 5%$'
	fi
	run compare "$B" "$H" --threshold=5
	ok_rc halved-threshold-bare-number 1
	run compare "$B" "$H" --threshold 60%
	ok_rc halved-within-60pct 0
	run compare "$B" "$H"
	ok_rc halved-no-threshold-exit-0 0
	# the other way round it is an improvement
	run compare "$H" "$B" --threshold 5%
	if ok_rc doubled-is-no-regression 0; then
		check doubled-plus-100pct has_re "$(row r read iops).* \+100\.00%  significant"
	fi

	# latency 100 us more: a regression of latencies, IOPS untouched.
	# Added, not multiplied, so the spread stays the base's: a run
	# preempted for a millisecond moves a 1024-I/O job's mean latency by
	# about 1 us, which a factor would scale into noise, but not 100 us.
	for i in 1 2 3 4; do
		doctor "$D/fio$i.json" "$D/slow$i.json" 100000 clat+
	done
	run compare "$B" "$D/slow1.json,$D/slow2.json,$D/slow3.json,$D/slow4.json" \
		--threshold 5%
	if ok_rc slow-latency-exit-1 1; then
		check slow-mean-regression has_re \
			"$(row m write 'clat mean \(us\)').* \+[0-9.]+%  significant .*REGRESSION\$"
		check slow-p99-regression has_re \
			"$(row r read 'clat p99 \(us\)').* \+[0-9.]+%  significant .*REGRESSION\$"
		check slow-iops-unchanged has_re "$(row r read iops).* \+0\.00%  noise"
	fi

	# -10 % with a base that varies by +-50 %: past the threshold but
	# noise, so with repeated runs it does not count
	doctor "$D/fio1.json" "$D/wide1.json" 0.5 iops
	doctor "$D/fio3.json" "$D/wide3.json" 1.5 iops
	for i in 1 2 3 4; do
		doctor "$D/fio$i.json" "$D/tenth$i.json" 0.9 iops
	done
	run compare "$D/wide1.json,$D/fio2.json,$D/wide3.json,$D/fio4.json" \
		"$D/tenth1.json,$D/tenth2.json,$D/tenth3.json,$D/tenth4.json" \
		--threshold 5%
	if ok_rc noisy-drop-exit-0 0; then
		check noisy-drop-is-noise has_re "$(row r read iops).* -[0-9.]+%  noise \(p="
		check noisy-drop-not-flagged bash -c "! grep -q REGRESSION $OUT"
	fi

	# single runs: significance cannot be judged; any regression past
	# the threshold counts
	run compare "$D/fio1.json" "$D/fio2.json"
	if ok_rc single-run 0; then
		check single-run-na has_re "$(row r read iops).*  n/a \(1 run\)\$"
		check single-run-header has "base: 1 run:"
	fi
	run compare "$D/fio1.json" "$D/half1.json" --threshold 5%
	if ok_rc single-run-halved-exit-1 1; then
		check single-run-halved-flagged has_re \
			"$(row r read iops).* -50\.[0-9]{2}%  n/a \(1 run\)  REGRESSION\$"
	fi
	run compare "$B" "$D/half1.json" --threshold 5%
	if ok_rc three-vs-one-halved-exit-1 1; then
		check three-vs-one-na has_re "$(row r read iops).*  n/a \(1 run\)  REGRESSION\$"
	fi
	doctor "$D/fio1.json" "$D/dip1.json" 0.98 iops
	run compare "$D/fio1.json" "$D/dip1.json" --threshold 5%
	if ok_rc single-run-2pct-within-5 0; then
		check single-run-2pct-shown has_re "$(row r read iops).* -2\.00%  n/a"
	fi

	# text before the JSON (fio's "note:" lines) is skipped
	{
		echo "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1"
		echo "fio: some {other} warning"
		cat "$D/fio1.json"
	} >"$D/noted.json"
	run compare "$D/noted.json" "$D/fio1.json"
	if ok_rc leading-text-skipped 0; then
		check leading-text-zero-change has_re "$(row r read iops).* \+0\.00%"
	fi

	# json+ against json
	timeout 60 "$FIO" "${fio_job[@]/--output-format=json/--output-format=json+}" \
		>"$D/plus.json" 2>/dev/null
	run compare "$D/plus.json" "$B"
	if ok_rc jsonplus-vs-json 0; then
		check jsonplus-has-p9999 has_re "$(row m write 'clat p99\.99 \(us\)') +[0-9]"
	fi

	# numjobs=2: one entry per clone without group_reporting, one with
	timeout 60 "$FIO" --ioengine=null --size=16m --bs=4k --output-format=json \
		--name=c --rw=randread --numjobs=2 >"$D/clones.json" 2>/dev/null
	run compare "$D/clones.json" "$D/clones.json"
	if ok_rc clones 0; then
		check clones-first has_re "$(row c read iops)"
		check clones-second has_re "$(row 'c#2' read iops)"
	fi
	timeout 60 "$FIO" --ioengine=null --size=16m --bs=4k --output-format=json \
		--name=c --rw=randread --numjobs=2 --group_reporting \
		>"$D/grouped.json" 2>/dev/null
	run compare "$D/grouped.json" "$D/grouped.json"
	if ok_rc group-reporting 0; then
		check group-reporting-one-entry bash -c \
			"! grep -q '^c#2' $OUT && grep -qE '$(row c read iops)' $OUT"
	fi
	run compare "$D/clones.json" "$D/grouped.json"
	bad clones-vs-grouped 'job "c" #2 \(group 0\) is in BASE .* but not in NEW'
fi

# ---- mqblk bench's own JSON, and mixed with fio's ----
mq_job=(bench --name=j --filename=null:size=64m --rw=randread --bs=4k
	--size=64m --output-format=json)
for i in 1 2; do
	timeout 60 "$MQBLK" "${mq_job[@]}" >"$D/mq$i.json" 2>"$D/mq.err" ||
		fail "mqblk-bench-run-$i" "$(head -n 1 "$D/mq.err")"
done
run compare "$D/mq1.json,$D/mq2.json" "$D/mq2.json,$D/mq1.json" --threshold 5%
if ok_rc mqblk-2v2 0; then
	check mqblk-2v2-rows has_re "$(row j read 'clat p99\.99 \(us\)') +[0-9]"
	check mqblk-2v2-noise has_re "$(row j read iops).* \+0\.00%  noise \(p=1\.000\)\$"
fi
if ((have_fio)); then
	for i in 1 2; do
		timeout 60 "$FIO" --ioengine=null --size=64m --bs=4k \
			--output-format=json --name=j --rw=randread \
			>"$D/fioj$i.json" 2>/dev/null
	done
	run compare "$D/fioj1.json,$D/fioj2.json" "$D/mq1.json,$D/mq2.json"
	if ok_rc mixed-fio-vs-mqblk 0; then
		for m in iops 'bw \(MiB/s\)' 'clat mean \(us\)' 'clat p99 \(us\)'; do
			check "mixed-row-$m" has_re "$(row j read "$m") +[0-9.]+ +[0-9.]+ +[-+][0-9.]+%  (significant|noise)"
		done
	fi
	run compare "$D/mq1.json" "$D/fio1.json"
	bad mixed-job-only-in-base 'job "j" \(group 0\) is in BASE \(.*mq1\.json\) but not in NEW'
fi

# ---- the statistics, on synthetic reports (hand-computed) ----
# means 11 and 14, variances 1 and 1, n 3 and 3: t = 3.674, df = 4,
# critical value 2.776, p = 0.0213
synth "$D/s10.json" 10
synth "$D/s11.json" 11
synth "$D/s12.json" 12
synth "$D/s13.json" 13
synth "$D/s14.json" 14
synth "$D/s15.json" 15
run compare "$D/s10.json,$D/s11.json,$D/s12.json" "$D/s13.json,$D/s14.json,$D/s15.json"
ok_rc synth-t3.67 0 && check synth-t3.67-p0.021 has_re \
	"$(row s read iops) +11\.00 +14\.00 +\+27\.27%  significant \(p=0\.021\)\$"
# means 11 and 12: t = 1.225, df = 4, p = 0.288
run compare "$D/s10.json,$D/s11.json,$D/s12.json" "$D/s11.json,$D/s12.json,$D/s13.json"
ok_rc synth-t1.22 0 && check synth-t1.22-p0.288 has_re \
	"$(row s read iops) .* \+9\.09%  noise \(p=0\.288\)\$"
# unequal variances: 10,11,12 against 20,24,28,32: t = 5.669,
# Welch-Satterthwaite df = 3.295, p = 0.0084
synth "$D/s20.json" 20
synth "$D/s24.json" 24
synth "$D/s28.json" 28
synth "$D/s32.json" 32
run compare "$D/s10.json,$D/s11.json,$D/s12.json" \
	"$D/s20.json,$D/s24.json,$D/s28.json,$D/s32.json"
ok_rc synth-welch 0 && check synth-welch-p0.008 has_re \
	"$(row s read iops) .*  significant \(p=0\.008\)\$"
# no spread on either side, different means: significant
run compare "$D/s10.json,$D/s10.json" "$D/s11.json,$D/s11.json" --threshold 5%
ok_rc synth-no-spread 0 && check synth-no-spread-significant has_re \
	"$(row s read iops) .* \+10\.00%  significant \(p<0\.001\)\$"
# no percentiles in a report: shown as "-"
check synth-no-percentiles has_re "$(row s read 'clat p99 \(us\)') +- +- +- +-\$"
# a 2-run side against a 1-run side
run compare "$D/s10.json,$D/s12.json" "$D/s11.json"
ok_rc synth-2v1 0 && check synth-2v1-na has_re "$(row s read iops) .*n/a \(1 run\)\$"

# ---- -o json and -o junit: the same verdicts, for CI ----
# jq-free: python3 reads them
run compare -o json --threshold 5% "$D/s10.json,$D/s11.json,$D/s12.json" \
	"$D/s13.json,$D/s14.json,$D/s15.json"
ok_rc json-no-regression 0 && check json-rows-and-verdicts \
	python3 - "$OUT" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = {(r["job"], r["dir"], r["metric"]): r for r in d["rows"]}
r = rows[("s", "read", "iops")]
ok = (d["format"] == "mqblk compare" and d["version"] == 1
      and d["threshold_pct"] == 5 and d["result"] == "pass"
      and d["regressions"] == 0 and len(d["base"]) == 3
      and r["base"] == 11 and r["new"] == 14
      and abs(r["change_pct"] - 27.2727) < 1e-3 and r["tested"]
      and abs(r["p"] - 0.0213) < 5e-4 and r["significant"]
      and not r["regression"] and r["base_runs"] == 3
      # no percentiles in these reports: null, not 0
      and rows[("s", "read", "clat_p99_ns")]["base"] is None
      and rows[("s", "read", "clat_p99_ns")]["change_pct"] is None)
sys.exit(0 if ok else 1)
PY
run compare --output-format=json --threshold 5% \
	"$D/s13.json,$D/s14.json,$D/s15.json" "$D/s10.json,$D/s11.json,$D/s12.json"
ok_rc json-regression-exit-1 1 && check json-regression-flagged \
	python3 - "$OUT" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = [r for r in d["rows"] if r["metric"] == "iops"][0]
sys.exit(0 if d["result"] == "regression" and d["regressions"] == 2
         and r["regression"] and r["change_pct"] < -20 else 1)
PY
run compare -o json "$D/s10.json" "$D/s11.json"
ok_rc json-single-run 0 && check json-single-run-untested \
	python3 - "$OUT" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = [r for r in d["rows"] if r["metric"] == "iops"][0]
sys.exit(0 if d["threshold_pct"] is None and not r["tested"]
         and r["p"] is None and not r["significant"] else 1)
PY
# a job name that needs escaping in JSON and in XML
python3 - "$D/s10.json" "$D/odd.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["jobs"][0]["jobname"] = 'a"b<c>&\\d\t\u00e9'
json.dump(d, open(sys.argv[2], "w"))
PY
run compare -o json "$D/odd.json" "$D/odd.json"
ok_rc json-odd-name 0 && check json-odd-name-round-trips \
	python3 - "$OUT" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["rows"][0]["job"] == 'a"b<c>&\\d\t\u00e9' else 1)
PY
run compare -o junit --threshold 5% "$D/s13.json,$D/s14.json,$D/s15.json" \
	"$D/s10.json,$D/s11.json,$D/s12.json"
ok_rc junit-regression-exit-1 1 && check junit-failures \
	python3 - "$OUT" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suite = root.find("testsuite")
cases = suite.findall("testcase")
failed = [c for c in cases if c.find("failure") is not None]
skipped = [c for c in cases if c.find("skipped") is not None]
sys.exit(0 if root.tag == "testsuites" and len(cases) == 5
         and suite.get("tests") == "5" and suite.get("failures") == "2"
         and sorted(c.get("name") for c in failed) == ["bw_bytes", "iops"]
         and all(c.get("classname") == "s.group0.read" for c in cases)
         and "significant" in failed[0].find("failure").get("message")
         and len(skipped) == 3 else 1)
PY
run compare -o junit "$D/odd.json" "$D/odd.json"
ok_rc junit-odd-name 0 && check junit-odd-name-well-formed \
	python3 - "$OUT" <<'PY'
import sys, xml.etree.ElementTree as ET
c = ET.parse(sys.argv[1]).getroot().find("testsuite/testcase")
sys.exit(0 if c.get("classname") == 'a"b<c>&\\d?\u00e9.group0.read' else 1)
PY
run compare -o yaml "$D/s10.json" "$D/s11.json"
bad unknown-format "unknown output format 'yaml'"
run compare "$D/s10.json" "$D/s11.json" -o
bad format-missing '-o needs a format'
run compare -o json "$D/s10.json" "$D/nonexistent.json"
bad json-bad-input-nothing-on-stdout 'nonexistent\.json: No such file'

# ---- bad input: exit 2, one line naming the problem ----
echo "hello, world" >"$D/text.json"
printf '{"jobs": [' >"$D/broken.json"
echo '{"fio version": "fio-3.33"}' >"$D/nojobs.json"
echo '{"jobs": {}}' >"$D/jobsobj.json"
echo '{"jobs": []}' >"$D/empty.json"
echo '{"jobs": [{"groupid": 0}]}' >"$D/noname.json"
echo '{"jobs": [{"jobname": "s", "read": {"iops": "fast"}}]}' >"$D/strnum.json"
: >"$D/zero.json"
python3 - "$D/s10.json" "$D/extra.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["jobs"].append(dict(d["jobs"][0], jobname="extra"))
json.dump(d, open(sys.argv[2], "w"))
PY
S=$D/s10.json
run compare "$D/nonexistent.json" "$S"
bad missing-file 'nonexistent\.json: No such file or directory'
run compare "$D" "$S"
bad directory 'reports: (Is a directory|.*)'
run compare "$D/text.json" "$S"
bad not-json 'text\.json: not JSON'
run compare "$S" "$D/broken.json"
bad truncated-json 'broken\.json: not JSON: 1:[0-9]+'
run compare "$D/zero.json" "$S"
bad empty-file 'zero\.json: not JSON'
run compare "$D/nojobs.json" "$S"
bad no-jobs 'nojobs\.json: no "jobs"'
run compare "$D/jobsobj.json" "$S"
bad jobs-not-array 'jobsobj\.json: "jobs" is not an array'
run compare "$S" "$D/empty.json"
bad jobs-empty 'empty\.json: "jobs" is empty'
run compare "$D/noname.json" "$S"
bad no-jobname 'noname\.json: jobs\[0\] has no "jobname"'
run compare "$D/strnum.json" "$S"
bad iops-not-number 'strnum\.json: jobs\[0\]\.read\.iops is not a number'
run compare "$S" "$D/extra.json"
bad job-only-in-new 'job "extra" \(group 0\) is in NEW \(.*extra\.json\) but not in BASE'
run compare "$D/extra.json" "$S"
bad job-only-in-base 'job "extra" \(group 0\) is in BASE \(.*extra\.json\) but not in NEW'
run compare "$S,$D/extra.json" "$S,$S"
bad base-runs-disagree 'BASE runs disagree on jobs: .*extra\.json has job "extra" \(group 0\), .*s10\.json does not'
run compare "$S,$S" "$D/extra.json,$S"
bad new-runs-disagree 'NEW runs disagree on jobs'
for t in abc -5 5%% '' 0x10 1e3 nan 5.5.5 ' 5'; do
	run compare "$S" "$S" --threshold "$t"
	bad "threshold-'$t'" "bad --threshold '$t'"
done
run compare "$S" "$S" --threshold
bad threshold-missing '--threshold needs a value'
run compare "$S"
bad one-argument 'want BASE\.json'
run compare
bad no-arguments 'want BASE\.json'
run compare "$S" "$S" "$S"
bad three-arguments "one more argument than BASE and NEW: '.*s10\.json'"
run compare "$S" "$S" --frobnicate
bad unknown-option "unknown option '--frobnicate'"
run compare "$S,,$S" "$S"
bad empty-name-in-list 'empty file name in'
run compare "$S," "$S"
bad trailing-comma 'empty file name in'

# ---- help ----
run compare --help
if ok_rc help 0; then
	check help-names-test has "Welch's t-test"
	check help-threshold has "--threshold PCT"
	check help-exit-codes has "2 bad input"
fi
run --help
ok_rc mqblk-help-lists-compare 0 && check mqblk-help-compare has_re '^  compare '

finish
