#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Schedulers and dispatch (seed 004) through the real binary: --ioscheduler
# sets the device's scheduler= key, mq-deadline merges sequential writes
# (and the data still verifies), none does not, bad or conflicting names
# are one-line errors; dispatch=one and a shared tagset run clean.
# shellcheck source-path=SCRIPTDIR disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# jq_mq KEY: the first job's mqblk.KEY from the last run's JSON.
jq_mq()
{
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(j["mqblk"][sys.argv[2]] for j in d["jobs"]))' "$OUT" "$1"
}

# Sequential 4k writes, 16 submitted per plug, then read back and checked.
seqwrite()
{
	run bench --name=s --filename="null:size=4m,memory_backed=1" --rw=write \
		--bs=4k --iodepth=16 --iodepth_batch_submit=16 --verify=crc32c \
		--output-format=json "$@"
}

seqwrite --ioscheduler=mq-deadline
if ok deadline-run; then
	m=$(jq_mq merges)
	check deadline-merges [ "${m:-0}" -gt 0 ]
	check deadline-verifies [ "$(jq_mq verify_errors)" -eq 0 ]
	d=$(jq_mq dispatched)
	# merged requests reach the driver as fewer requests
	check deadline-fewer-dispatched [ "${d:-2048}" -lt 2048 ]
fi

seqwrite --ioscheduler=none
if ok none-run; then
	check none-no-merges [ "$(jq_mq merges)" -eq 0 ]
fi

# the key in the URI does the same; --ioscheduler agreeing with it is fine
run bench --name=s --filename="null:size=4m,scheduler=mq-deadline" \
	--ioscheduler=mq-deadline --rw=write --bs=4k --iodepth=16 \
	--iodepth_batch_submit=16 --output-format=json
ok uri-key-agrees && check uri-key-merges [ "$(jq_mq merges)" -gt 0 ]

# the normal report shows the counters
seqwrite --ioscheduler=mq-deadline --output-format=normal
ok normal-run && check normal-sched-line has_re '^  mqblk sched  : merges=[1-9][0-9]*, dispatched='

run bench --name=s --filename=null --ioscheduler=cfq --rw=write
failed bad-name 'ioscheduler' 'cfq' &&
	check bad-name-one-line [ "$(wc -l <"$ERR")" -eq 1 ]

run bench --name=s --filename="null:scheduler=none" --ioscheduler=mq-deadline \
	--rw=write
failed conflict 'conflicts with scheduler=none' &&
	check conflict-one-line [ "$(wc -l <"$ERR")" -eq 1 ]

run bench --name=s --filename="null:scheduler=mq-deadline,fifo_batch=0" \
	--rw=write
failed bad-tunable 'fifo_batch'

# one hardware queue, two submitters pulling one request at a time
run bench --name=o --filename="null:nr_hw_queues=1,dispatch=one" \
	--rw=randread --bs=4k --iodepth=8 --numjobs=2 --number_ios=2000 \
	--output-format=json
if ok dispatch-one-run; then
	check dispatch-one-dispatched [ "$(jq_mq dispatched)" -ge 4000 ]
	check dispatch-one-doorbells [ "$(jq_mq doorbells)" -ge 4000 ]
fi

# two devices behind one adapter's tags, at the same time
run bench --name=a --filename="null:size=64m,tagset=hba,queue_depth=8" \
	--rw=randread --bs=4k --iodepth=8 --number_ios=2000 \
	--name=b --filename="null:size=32m,tagset=hba" \
	--rw=randread --bs=4k --iodepth=8 --number_ios=2000 --output-format=json
ok tagset-run

run bench --name=a --filename="null:tagset=hba,queue_depth=8" --rw=randread \
	--number_ios=10 --name=b --filename="null:size=32m,tagset=hba,queue_depth=16" \
	--rw=randread --number_ios=10
failed tagset-depth-conflict 'tagset=hba'

finish
