#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --verify with fio's semantics on a memory-backed null device (it stores
# data, so verification is real): write + read-back passes for every
# checksum type, sequential and random, several block sizes; --verify_only
# after a write group passes; another seed or pattern fails naming the
# offset; flushes are counted; a block corrupted behind mqblk's back in a
# file is caught at exactly its offset (skipped while no path driver).
# shellcheck source-path=SCRIPTDIR disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DEV=null:memory_backed=1,size=16m

for v in crc32c md5 sha256 crc32c-intel; do
	for rw in write randwrite; do
		for bs in 4k 64k; do
			run bench --name=v --filename=$DEV --rw=$rw --bs=$bs \
				--iodepth=16 --verify=$v --eta=never
			ok "write-verify-$v-$rw-$bs"
		done
	done
done
run bench --name=v --filename=$DEV --rw=randwrite --bs=4k --iodepth=8 \
	--verify=pattern --verify_pattern=0xdeadbeef --eta=never
ok write-verify-pattern-random
run bench --name=v --filename=$DEV --rw=write --bs=512 --iodepth=8 \
	--verify=pattern --verify_pattern='"mqblk"' --eta=never
ok write-verify-pattern-string-512
run bench --name=v --filename=$DEV --rw=randrw --bs=4k,16k --iodepth=8 \
	--verify=md5 --eta=never
ok write-verify-mixed-bs
run bench --name=v --filename=$DEV --rw=randwrite --norandommap \
	--number_ios=20000 --iodepth=32 --verify=crc32c --eta=never
ok write-verify-norandommap-overlapping
run bench --name=v --filename=$DEV --rw=write --bs=64k --verify=sha256 \
	--verify_interval=4k --eta=never
ok write-verify-interval
run bench --name=v --filename=$DEV --rw=randwrite --iodepth=8 \
	--verify=crc32c --verify_backlog=13 --loops=2 --eta=never
ok write-verify-backlog
# the verify pass reads back every block written
run bench --name=v --filename=$DEV --rw=write --bs=4k --verify=crc32c \
	--eta=never
check verify-reads-everything has 'issued rwts: total=4096,4096,0,0'

# --verify_only after a write group (the device stays open between groups
# opened alike, so the memory-backed null device keeps the data)
run bench --name=w --filename=$DEV --rw=randwrite --verify=crc32c \
	--do_verify=0 --eta=never \
	--name=v --stonewall --filename=$DEV --rw=randwrite --verify=crc32c \
	--verify_only
ok verify-only-after-write
check verify-only-issues-no-writes has 'issued rwts: total=4096,0,0,0'
# a read job with --verify checks what it reads
run bench --name=w --filename=$DEV --rw=write --verify=md5 --do_verify=0 \
	--eta=never --name=r --stonewall --filename=$DEV --rw=randread \
	--verify=md5
ok read-job-verifies

# another run's data: a different seed, a different pattern
run bench --name=w --filename=$DEV --rw=write --verify=crc32c \
	--do_verify=0 --eta=never \
	--name=v --stonewall --filename=$DEV --rw=write --verify=crc32c \
	--verify_only --randseed=7
failed wrong-seed-fails 'verify: bad header rand_seed [0-9]+, wanted [0-9]+ at file null:memory_backed=1,size=16m offset 0, length 4096'
check wrong-seed-reports-all [ "$(grep -c 'verify: bad' "$ERR")" = 4096 ]
check wrong-seed-err84 has 'v: (groupid=1, jobs=1): err=84'
check wrong-seed-counted has_re 'mqblk +: .*errors=0, verify_errors=4096$'
run bench --name=w --filename=$DEV --rw=write --verify_pattern=0xaa \
	--do_verify=0 --eta=never \
	--name=v --stonewall --filename=$DEV --rw=write --verify_pattern=0xab \
	--verify_only --verify_fatal=1
failed wrong-pattern-fails 'verify: bad pattern byte aa, wanted ab at file .* offset 0, length 4096'
check verify-fatal-stops-at-first [ "$(grep -c 'verify: bad' "$ERR")" = 1 ]
check verify-fatal-counted has_re 'mqblk +: .*, verify_errors=1$'
run bench --name=w --filename=$DEV --rw=write --verify_pattern=0xaa \
	--do_verify=0 --eta=never \
	--name=v --stonewall --filename=$DEV --rw=write --verify_pattern=0xab \
	--verify_only --output-format=json
check verify-errors-json python3 -c '
import json, sys
jobs = json.load(open(sys.argv[1]))["jobs"]
sys.exit(0 if [j["mqblk"]["verify_errors"] for j in jobs] == [0, 4096]
         and jobs[1]["error"] == 84 else 1)
' "$OUT"
# never written: zeros have no header
run bench --name=v --filename=$DEV --rw=read --verify=crc32c --eta=never \
	--verify_fatal=1
failed unwritten-fails 'verify: bad magic header 0, wanted acca at file .* offset 0, length 4096'

# flushes: fio's sync counts (issued rwts' 4th field, JSON "sync")
run bench --name=f --filename=$DEV --rw=write --fsync=4 --end_fsync=1 \
	--eta=never
ok fsync-run
check fsync-issued has 'issued rwts: total=0,4096,0,1025'
check fsync-sync-block has 'fsync/fdatasync/sync_file_range:'
run bench --name=f --filename=$DEV --rw=write --fdatasync=1 \
	--output-format=json --eta=never
ok fdatasync-json
check fdatasync-json-sync python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]["sync"]
sys.exit(0 if j["total_ios"] == 4096 and j["lat_ns"]["N"] == 4096 else 1)
' "$OUT"

# bad input
run bench --name=v --filename=$DEV --rw=write --verify=pattern
failed pattern-needs-pattern 'verify=pattern needs --verify_pattern'
run bench --name=v --filename=$DEV --fixedbufs
failed fixedbufs-null 'fixedbufs is only for a path device'
run bench --name=v --filename=$DEV --fixedbufs=maybe
failed fixedbufs-bad-value 'fixedbufs: '
run bench --name=v --filename=$DEV --registerfiles
failed registerfiles-null 'only for a path device'
run bench --name=v --filename=$DEV --ioengine=windowsaio
failed ioengine-unknown "ioengine 'windowsaio' is not supported"
run bench --name=v --filename=$DEV --ioengine=libaio --rw=write \
	--verify=crc32c --eta=never
ok ioengine-libaio-null-device
run bench --name=a --filename=$DEV --direct=1 --eta=never \
	--name=b --filename=$DEV --direct=0
failed direct-disagree "disagree on --direct"

# corruption behind mqblk's back: a file, written with --verify, one block
# overwritten with dd, then --verify_only names exactly that offset
IMG=$TMP/disk.img
truncate -s 16m "$IMG"
run bench --name=w --filename="$IMG" --rw=write --bs=4k --verify=crc32c \
	--do_verify=0 --eta=never
if grep -q 'no driver' "$ERR"; then
	skip_setup file-corruption "no path (uring) driver in this build (liburing-dev, scripts/deps)"
elif ok file-write; then
	dd if=/dev/urandom of="$IMG" bs=4096 seek=1234 count=1 conv=notrunc \
		status=none
	run bench --name=w --filename="$IMG" --rw=write --bs=4k \
		--verify=crc32c --verify_only --eta=never
	failed file-corruption-caught "verify: bad .* at file $IMG offset $((1234 * 4096)), length 4096"
	check file-corruption-only-that-block [ "$(grep -c 'verify: bad' "$ERR")" = 1 ]
	# through registered buffers (mqblk's default) and without, O_DIRECT
	# and buffered, at depth: every block written is read back intact
	for fb in 1 0; do
		for direct in 1 0; do
			run bench --name=w --filename="$IMG" --rw=randwrite \
				--bs=4k,64k --iodepth=32 --direct=$direct \
				--fixedbufs=$fb --verify=crc32c --eta=never
			ok "file-verify-fixedbufs$fb-direct$direct"
		done
	done
fi

finish
