# SPDX-License-Identifier: MIT
# The guest half of tests/interop/uring-iopoll.sh (busybox sh in the QEMU
# guest of tests/interop/lib.sh, the share at /job): a configfs null_blk
# with a poll queue (poll_queues=1, memory_backed=1, queue_mode=2: blk-mq),
# the only pollable block device at hand, and mqblk's uring driver on it
# with --hipri: an IORING_SETUP_IOPOLL ring. A 4 KiB randwrite of 8 MiB
# verified with crc32c; its JSON to /job/out/iopoll.json, stderr to
# /job/out/iopoll.err; the host side checks the counters.
. /job/rdma.sh

step null_blk
modprobe configfs 2>/dev/null
mount | grep -q configfs || mount -t configfs none /sys/kernel/config 2>/dev/null
modprobe null_blk nr_devices=0 2>/dev/null
D=/sys/kernel/config/nullb/iopoll
if mkdir $D 2>/dev/null &&
	echo 2 >$D/queue_mode && echo 1 >$D/memory_backed &&
	echo 64 >$D/size && echo 4096 >$D/blocksize &&
	echo 1 >$D/poll_queues && echo 1 >$D/power; then
	# its disk: named for the configfs directory (/dev/iopoll) on newer
	# kernels, nullbN on older ones; the one whose queue polls
	DEV=
	for q in /sys/block/iopoll/queue/io_poll /sys/block/nullb*/queue/io_poll; do
		[ -f "$q" ] && [ "$(cat "$q")" = 1 ] || continue
		b=${q#/sys/block/}
		DEV=/dev/${b%%/*}
		break
	done
	[ -n "$DEV" ] && [ -b "$DEV" ] || {
		fail null_blk "no polling nullb disk: $(ls /sys/block /dev | tr '\n' ' ' | head -c 300)"
		finish
		exit 1
	}
	pass null_blk "$DEV, poll_queues=$(cat $D/poll_queues), io_poll=$(cat /sys/block/${DEV#/dev/}/queue/io_poll 2>/dev/null)"
else
	fail null_blk "no configfs null_blk with poll_queues: $(ls $D 2>&1 | head -c 200)"
	finish
	exit 1
fi

step iopoll-verify
mqblk bench --name=iopoll --filename="$DEV" --rw=randwrite --bs=4k \
	--size=8m --iodepth=8 --direct=1 --hipri --verify=crc32c \
	--do_verify=1 --verify_fatal=1 --output-format=json \
	>/job/out/iopoll.json 2>/job/out/iopoll.err
rc=$?
echo $rc >/job/out/iopoll.rc
[ $rc = 0 ] && pass iopoll-exit || fail iopoll-exit "$(tail -n 3 /job/out/iopoll.err)"
finish
