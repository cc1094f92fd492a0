#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Faults below the core and bad files: an EIO from the device (the null
# device's badblocks ranges) fails the job with fio's err= and one stderr
# line naming the file, the errno text and the offset; missing files,
# directories and files smaller than --size are one clear line. Never a
# hang or a crash, exit status 1.
# shellcheck source-path=SCRIPTDIR disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# EIO on a read, inline completion and interrupt-style completion.
for irq in 0 1 2; do
	run bench --name=bb --filename="null:badblocks=1m-1028k,irqmode=$irq,completion_nsec=1000" \
		--rw=read --bs=4k --size=4m --iodepth=4
	failed "read-eio-irqmode$irq" 'io_u error on file null:badblocks' \
		'Input/output error' 'read offset=1048576, buflen=4096'
	check "read-eio-irqmode$irq-err5" has 'err= 5 (error=Input/output error)'
	check "read-eio-irqmode$irq-counted" has_re 'mqblk +: .*, errors=[1-9]'
done

# EIO on a write, memory backed: the failed block stores nothing.
run bench --name=bw --filename="null:badblocks=8k-12k,memory_backed=1,size=1m" \
	--rw=write --bs=4k --size=1m --iodepth=1
failed write-eio 'write offset=8192, buflen=4096' 'Input/output error'
check write-eio-err5 has 'err= 5'

# Two jobs in one group, one hits a bad block: exit 1, both reported.
run bench --name=ok --filename=null --rw=randread --bs=4k --size=1m \
	--number_ios=100 --name=bad --filename="null:badblocks=0-4k" \
	--rw=read --bs=4k --size=1m --iodepth=1
failed two-jobs-one-bad 'bad: io_u error'
check two-jobs-report-ok-job has 'ok: (groupid=0'

# Bad badblocks values.
run bench --name=x --filename="null:badblocks=2m-1m" --rw=read --size=4m
failed badblocks-reversed "bad badblocks '2m-1m'"
run bench --name=x --filename="null:badblocks=junk" --rw=read --size=4m
failed badblocks-junk "bad badblocks 'junk'"

# Files: missing, a directory, smaller than --size.
run bench --name=f --filename="$TMP/no-such.img" --rw=read --size=1m
failed file-missing "$TMP/no-such.img" 'No such file or directory'
mkdir -p "$TMP/dir"
run bench --name=f --filename="$TMP/dir" --rw=read --size=1m
failed file-directory "$TMP/dir"
truncate -s 1m "$TMP/small.img"
run bench --name=f --filename="$TMP/small.img" --rw=read --size=4m
failed file-smaller-than-size 'size|exceeds'
check file-errors-no-stdout test ! -s "$OUT"

finish
