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

# Help.
run bench --help
if ran help-run; then
	check help-lists-iodepth has '--iodepth'
fi

finish
