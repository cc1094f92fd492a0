# SPDX-License-Identifier: MIT
# crash-target-job.sh: the guest side of bench/crash-power (busybox sh, run
# by /init from the 9p share as /job/job.sh). mqblk target (from the share)
# on 10.0.2.15:4420, which slirp's hostfwd brings to the host's
# 127.0.0.1:HOSTPORT, exporting the virtio disk /dev/vda as nsid 1 (the
# uring driver on a block device, O_DIRECT: Flush is fdatasync, FUA is
# RWF_DSYNC). Prints CRASH:READY on the console once the target listens,
# then waits: the host pulls the plug (kills QEMU) at a moment of its
# choosing. Env (from /job/env): NQN.
. /job/env
export LD_LIBRARY_PATH=/job/lib

modprobe virtio_blk 2>/dev/null
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
if [ ! -b /dev/vda ]; then
	echo "CRASH:FAIL no /dev/vda"
	exit 1
fi
echo "CRASH:DISK $(cat /sys/block/vda/queue/write_cache) $(cat /sys/block/vda/size) sectors"
/job/bin/mqblk target --listen 10.0.2.15:4420 --nqn "$NQN" --ns /dev/vda \
	--allow-any-host --reactors 1 --stats-socket /tmp/stats.sock \
	>/tmp/target.log 2>&1 &
TPID=$!
i=0
while [ $i -lt 600 ]; do
	if grep -q ready /tmp/target.log; then
		echo "CRASH:READY"
		break
	fi
	kill -0 $TPID 2>/dev/null || break
	sleep 0.1
	i=$((i + 1))
done
grep -q ready /tmp/target.log || {
	echo "CRASH:FAIL the target did not start"
	cat /tmp/target.log
	exit 1
}
wait $TPID
echo "CRASH:FAIL the target ended before the power cut"
cat /tmp/target.log
exit 1
