#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fio's mixed block sizes: --bsrange and --bssplit (per direction too).
# The job header prints the range as fio does; --size is met in bytes; a
# split's sizes come in its proportions; --verify reads back exactly the
# extents written (fio's io_piece log) and catches a corrupted block in a
# file at its offset; runs repeat with the same seed; bs_unaligned is
# refused by name.
# shellcheck source-path=SCRIPTDIR disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DEV=null:memory_backed=1,size=16m

# the header, as fio 3.33 prints it for these options
run bench --name=t --filename=$DEV --rw=randwrite --bsrange=4k-1m \
	--eta=never
ok bsrange-run
check bsrange-header has 't: (g=0): rw=randwrite, bs=(R) 4096B-1024KiB, (W) 4096B-1024KiB, (T) 4096B-1024KiB, ioengine=mqblk, iodepth=1'
check bsrange-size-in-bytes has 'io=16.0MiB (16.8MB)'
run bench --name=t --filename=$DEV --rw=randrw --bsrange=4k-64k,8k-128k \
	--eta=never
check bsrange-per-direction-header has 'bs=(R) 4096B-64.0KiB, (W) 8192B-128KiB, (T) 8192B-128KiB,'
run bench --name=t --filename=$DEV --rw=randrw --bssplit=4k/50,64k/50:8k \
	--eta=never
check bssplit-per-direction-header has 'bs=(R) 4096B-4096B, (W) 8192B-64.0KiB, (T) 8192B-64.0KiB,'
run bench --name=t --filename=$DEV --rw=randread --bs_is_seq_rand \
	--bs=4k,16k --eta=never
ok bs-is-seq-rand-run
check bs-is-seq-rand-header has 'bs=(R) 4096B-4096B, (W) 16.0KiB-16.0KiB, bs_is_seq_rand, ioengine'
# random reads take the "random" (write) size: 16m / 16k
check bs-is-seq-rand-size has 'issued rwts: total=1024,0,0,0'

# a split's proportions: 4k and 64k half each, so the mean length is
# near 34k (bytes / ios). --norandommap: with the random map, lengths are
# cut short where it has used blocks (as fio's are: it gets 27k here too)
run bench --name=t --filename=null:size=1g --rw=randwrite --norandommap \
	--bssplit=4k/50:64k/50 --number_ios=20000 --output-format=json \
	--eta=never
ok bssplit-json
check bssplit-proportions python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))["jobs"][0]["write"]
mean = w["io_bytes"] / w["total_ios"]
sys.exit(0 if w["total_ios"] == 20000 and 31744 < mean < 37888 else 1)
' "$OUT"
check bssplit-job-options python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))["jobs"][0]["job options"]
sys.exit(0 if o["bssplit"] == "4k/50:64k/50,4k/50:64k/50,4k/50:64k/50" else 1)
' "$OUT"
# an entry with an empty percentage ("128k/", as fio's examples write
# it) takes what the others leave, as fio's atoi reads it
run bench --name=t --filename=null --rw=randread --size=1m \
	--bssplit=4k/50:64k/30:128k/ --output-format=json
ok bssplit-empty-percentage &&
	check bssplit-empty-percentage-is-the-rest python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))["jobs"][0]["job options"]
sys.exit(0 if o["bssplit"].split(",")[0] == "128k/20:64k/30:4k/50" else 1)
' "$OUT"
# a range: lengths from 4k to 1m, mean near fio's min + max / 2
run bench --name=t --filename=null:size=4g --rw=randwrite --bsrange=4k-1m \
	--norandommap --number_ios=4000 --output-format=json --eta=never
check bsrange-proportions python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))["jobs"][0]["write"]
mean = w["io_bytes"] / w["total_ios"]
sys.exit(0 if w["total_ios"] == 4000 and 480e3 < mean < 580e3 else 1)
' "$OUT"
# sequential: exactly --size bytes, the last I/O cut to fit
run bench --name=t --filename=$DEV --rw=write --bssplit=4k/10:64k/50:1m/40 \
	--size=10m --output-format=json --eta=never
check seq-size-exact python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))["jobs"][0]["write"]
sys.exit(0 if w["io_bytes"] == 10 << 20 else 1)
' "$OUT"
# the same seed, the same run
run bench --name=t --filename=$DEV --rw=randwrite --bsrange=4k-256k \
	--eta=never
a=$(grep -o 'issued rwts: total=[0-9,]*' "$OUT")
run bench --name=t --filename=$DEV --rw=randwrite --bsrange=4k-256k \
	--eta=never
check repeatable [ "$a" = "$(grep -o 'issued rwts: total=[0-9,]*' "$OUT")" ]

# verification with mixed sizes, on the memory-backed null device
for v in crc32c md5; do
	run bench --name=v --filename=$DEV --rw=randwrite --bsrange=4k-1m \
		--iodepth=16 --verify=$v --eta=never
	ok "verify-bsrange-$v"
	# the read-back reads what was written: as many I/Os, as many bytes
	check "verify-bsrange-$v-reads-the-extents" has_re 'issued rwts: total=([0-9]+),\1,0,0'
done
run bench --name=v --filename=$DEV --rw=write --bssplit=4k/10:64k/50:1m/40 \
	--iodepth=8 --verify=sha256 --eta=never
ok verify-bssplit-seq
run bench --name=v --filename=$DEV --rw=randwrite --norandommap \
	--bsrange=4k-128k --number_ios=5000 --loops=3 --iodepth=32 \
	--verify=crc32c --eta=never
ok verify-overlapping-extents
run bench --name=v --filename=$DEV --rw=write --bsrange=4k-6k --loops=2 \
	--iodepth=8 --verify=md5 --verify_backlog=7 --eta=never
ok verify-backlog-gcd-interval
run bench --name=v --filename=$DEV --rw=randrw --bssplit=4k/50:64k/50 \
	--time_based --runtime=1 --iodepth=16 --verify=crc32c --eta=never
ok verify-time-based
# another seed: caught
run bench --name=w --filename=$DEV --rw=randwrite --bsrange=4k-64k \
	--verify=crc32c --do_verify=0 --eta=never \
	--name=v --stonewall --filename=$DEV --rw=randwrite --bsrange=4k-64k \
	--verify=crc32c --verify_only --randseed=7 --verify_fatal=1
failed verify-other-seed-fails 'verify: bad header'

# a file, a block corrupted between the write run and a verify-only run
IMG=$TMP/disk.img
truncate -s 16m "$IMG"
run bench --name=w --filename="$IMG" --rw=randwrite --bssplit=4k/50:64k/50 \
	--iodepth=8 --verify=crc32c --do_verify=0 --eta=never
if grep -q 'no driver' "$ERR"; then
	skip_setup file-corruption "no path (uring) driver in this build (liburing-dev, scripts/deps)"
elif ok file-write; then
	run bench --name=w --filename="$IMG" --rw=randwrite \
		--bssplit=4k/50:64k/50 --iodepth=8 --verify=crc32c \
		--verify_only --eta=never
	ok file-verify-only-passes
	dd if=/dev/urandom of="$IMG" bs=4096 seek=1234 count=1 conv=notrunc \
		status=none
	run bench --name=w --filename="$IMG" --rw=randwrite \
		--bssplit=4k/50:64k/50 --iodepth=8 --verify=crc32c \
		--verify_only --eta=never
	failed file-corruption-caught "verify: bad .* at file $IMG offset $((1234 * 4096)), length 4096"
	check file-corruption-only-that-block [ "$(grep -c 'verify: bad' "$ERR")" = 1 ]
	run bench --name=w --filename="$IMG" --rw=randwrite --bsrange=4k-1m \
		--iodepth=16 --direct=1 --verify=md5 --eta=never
	ok file-verify-bsrange-direct
fi

# bad input: one line naming the option
run bench --name=t --filename=$DEV --bsrange=4k
failed bsrange-not-a-range "bsrange=4k: '4k' is not a range MIN-MAX"
run bench --name=t --filename=$DEV --bssplit=4k/50:8k/60
failed bssplit-over-100 'bssplit=4k/50:8k/60: percentages add up to 110'
run bench --name=t --filename=$DEV --bssplit=4k/50:8k/50 --bs_unaligned
failed bs-unaligned-refused 'bs_unaligned is not supported'
run bench --name=t --filename=null:blocksize=4096,size=16m \
	--bssplit=4k/50:6k/50
failed bssplit-device-block-size 'block size 6144 is not a multiple of the device block size 4096'

finish
