#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/blktests' job inside the guest's Debian root (bash, chroot): the
# modules of the running kernel are the disk's /lib/modules (with the
# host's modules.dep: depmod takes minutes under TCG); writes
# blktests' config for the target of this run (BT_TARGET: nvmet, the
# kernel's nvmet-tcp set up by blktests itself, or mqblk, through
# NVME_TARGET_CONTROL=/job/control), runs ./check and copies its results
# directory to /job/out/results.
set -u
# shellcheck disable=SC1091 # bench/blktests' variables (the share's env)
. /run/env
# /job/bin: bench/blktests-modprobe as modprobe (kmod 30's --wait can
# spin forever in check's module removal)
export PATH=/job/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# udevadm (settle, blktests' helpers) would answer "Running in chroot,
# ignoring request." on stdout, which the tests' output compare sees
export SYSTEMD_IGNORE_CHROOT=1
# udev, as on a booted system: /dev/disk links, settle with a daemon
/lib/systemd/systemd-udevd --daemon 2>/dev/null
udevadm trigger --action=add 2>/dev/null
udevadm settle 2>/dev/null
# a booted system loads loop on the first open of /dev/loop-control (a
# static node systemd makes from the module's alias); this chroot has no
# such node, so losetup would find no loop device (nvme/047, nvme/051)
modprobe loop 2>/dev/null
cd /blktests || exit 2
# BLKTESTS_WATCH=SECONDS: every SECONDS, the guest's processes with their
# wait channels and the kernel stacks of its user processes into
# /job/out/watch.log (the share: readable while the guest runs). Its
# output is the file's, never the job's pipe (the init's tee ends when
# the last writer closes it).
watch_job() {
	local p st
	while sleep "$1" && kill -0 $$ 2>/dev/null; do
		{
			date
			ps -eo pid,ppid,stat,etime,wchan:32,args
			for p in /proc/[0-9]*; do
				[ "$(tr -d '\0' <"$p/cmdline" 2>/dev/null)" ] || continue
				st=$(cat "$p/stack" 2>/dev/null) || continue
				echo "== ${p#/proc/}: $(tr '\0' ' ' <"$p/cmdline")"
				echo "$st"
			done
		} >/job/out/watch.log.tmp 2>&1
		mv /job/out/watch.log.tmp /job/out/watch.log
	done
}
[ -n "${BT_WATCH:-}" ] && watch_job "$BT_WATCH" </dev/null >/dev/null 2>&1 &
{
	echo "NVME_IMG_SIZE=$BT_IMG_SIZE"
	echo "NVME_NUM_ITER=$BT_NUM_ITER"
	if [ "$BT_TARGET" = mqblk ]; then
		echo "NVME_TARGET_CONTROL=/job/control"
	else
		echo "NVMET_TRTYPES=tcp"
		echo "NVMET_BLKDEV_TYPES='$BT_BLKDEV'"
	fi
} >config
echo "blktests: target $BT_TARGET, kernel $(uname -r), blktests $(cat .git-rev 2>/dev/null)"
cat config
# shellcheck disable=SC2086 # the test list, word-split on purpose
./check -o /results $BT_TESTS
rc=$?
cp -a /results /job/out/results
exit $rc
