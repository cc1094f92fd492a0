#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The stripe: device (RAID 0 over mqblk devices) through `mqblk bench`:
# random writes across chunk boundaries verified with crc32c on
# memory-backed timer-mode null members, under each completion policy;
# seed 004's layout (two 8-member stripes, numjobs=4, group_reporting);
# the per-member counters of verbose=1; bad URIs refused in one line.
# shellcheck source-path=SCRIPTDIR disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MEM='null:size=8m;memory_backed=1;irqmode=2;completion_nsec=20000'

for policy in local remote polled; do
	# 12k blocks on 8k chunks: most requests span two members
	run bench --name=v --filename="stripe:chunk=8k,members=4,member=$MEM,complete=$policy" \
		--rw=randwrite --bs=12k --iodepth=16 --verify=crc32c \
		--do_verify=1 --eta=never
	ok "randwrite-verify-$policy"
	check "randwrite-verify-$policy-read-back" has_re 'issued rwts: total=[1-9][0-9]*,[1-9][0-9]*,'
done
# distinct members, listed; 512-byte blocks at odd offsets
run bench --name=v \
	--filename="stripe:chunk=4k,member0=null:size=4m;memory_backed=1,member1=null:size=4m;memory_backed=1;irqmode=1,member2=null:size=5m;memory_backed=1;irqmode=2;completion_nsec=5000" \
	--rw=randrw --bsrange=512-24k --iodepth=8 --verify=md5 --eta=never \
	--number_ios=3000
ok randrw-verify-mixed-members

# seed 004: two RAID 0 virtual disks of 8 drives each, 4 readers
# (numjobs=2 per disk here, 4 jobs in all) in one reported group
SEED='null:size=1g;irqmode=2;completion_nsec=80000'
# (options before the first --name are every job's, as in fio)
run bench --rw=randread --bs=4k --iodepth=32 --numjobs=2 --group_reporting \
	--number_ios=2000 --eta=never \
	--name=vd0 --filename="stripe:chunk=64k,members=8,member=$SEED" \
	--name=vd1 --filename="stripe:chunk=64k,members=8,member=${SEED/1g/1024m}"
ok two-stripes-numjobs-group-reporting
check two-stripes-one-group has 'issued rwts: total=8000,0,0,0'

# verbose=1: the counters at close (children per member, split)
run bench --name=c --filename="stripe:chunk=4k,members=3,verbose=1,member=null:size=4m" \
	--rw=write --bs=8k --iodepth=4 --eta=never
check verbose-counters-run test "$RC" -eq 0
check verbose-counters grep -qE \
	'^stripe: 3 members, 1536 requests, 1536 split, [0-9]+ busy, children 1024 1024 1024$' "$ERR"

# a member that dies under load: the nvme-tcp member's target is killed,
# its controller resets and is given up at ctrl_loss_tmo, failing what it
# held (and anything sent to it after, inside submit) with Host Path
# Error, while the null member beside it answers as before: the job must
# end with the error, not wait for any of them
NQN=nqn.2026-12.io.mqblk:stripe-test
HOST=nqn.2026-12.io.mqblk:stripe-host
TLOG=$TMP/target.log
start_target --ns null:size=64m --allow-any-host
M=$(uri 'ctrl_loss_tmo=1&reconnect_delay=1')
run_bg bench --name=d --eta=never --rw=randread --bs=4k --iodepth=16 \
	--time_based --runtime=30 \
	--filename="stripe:chunk=4k,member0=null:size=64m;irqmode=2;completion_nsec=20000,member1=$M"
sleep 1
kill_target
wait "$BPID" || RC=$?
failed "a dead member: the job ends with the path error, exit 1, no hang" \
	"Input/output error"

# bad URIs: exit 1, one line naming the problem
run bench --name=b --filename="stripe:member0=null:size=1m,member1=null:size=1m;bs=4k" \
	--rw=read --eta=never
failed bad-block-sizes 'member 1 has 4096-byte blocks, member 0 has 512'
run bench --name=b --filename="stripe:chunk=6k,members=2,member=null" \
	--rw=read --eta=never
failed bad-chunk 'chunk 6144 is not a power of two'
run bench --name=b --filename="stripe:members=2,member=nosuch:x=1" \
	--rw=read --eta=never
failed bad-member 'member 0: no driver'
run bench --name=b --filename="stripe:chunk=4k" --rw=read --eta=never
failed no-members 'no members'

finish
