#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/blktests' guest job (busybox sh in the interop initramfs, /job the
# share): mounts the Debian root on the virtio disk (its driver from the
# share: the initramfs has none), binds /dev, /proc, /sys (configfs and
# debugfs mounted) and the share into it, and runs blktests-run.sh there
# with bash. The exit status is blktests-run.sh's.
set -u
R=/mnt/root
modprobe ext4
insmod /job/virtio_blk.ko || { echo "blktests: cannot load virtio_blk"; exit 2; }
i=0
while [ ! -b /dev/vda ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
mkdir -p $R
mount -t ext4 /dev/vda $R || { echo "blktests: cannot mount /dev/vda"; exit 2; }
modprobe configfs 2>/dev/null
mount -t configfs none /sys/kernel/config 2>/dev/null
# devtmpfs has no /dev/fd (bash's process substitution needs it)
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount --bind /dev $R/dev
mkdir -p $R/dev/pts $R/dev/shm
mount -t devpts devpts $R/dev/pts
mount -t tmpfs tmpfs $R/dev/shm
mount -t proc proc $R/proc
mount --bind /sys $R/sys
mount -t configfs none $R/sys/kernel/config 2>/dev/null
mount -t debugfs debugfs $R/sys/kernel/debug 2>/dev/null
mount -t tmpfs tmpfs $R/tmp
mount -t tmpfs tmpfs $R/run
mount --bind /job $R/job
cp /job/env $R/run/env
chroot $R /bin/bash /job/run.sh
rc=$?
sync
exit $rc
