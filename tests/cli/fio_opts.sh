#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fio options the seed experiments use, as fio has them: a command-line
# option cut short to a unique prefix (getopt_long_only), disable_lat /
# disable_clat / disable_slat, refill_buffers.
# shellcheck source-path=SCRIPTDIR disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# jq-less: a python expression over the JSON document d
json_eval()
{
	python3 - "$OUT" "$1" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
d = json.loads(text[text.index("{"):])
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}

# --group_report: seed 004's spelling of --group_reporting
run bench --name=g --filename=null --rw=randread --bs=4k --size=4m \
	--numjobs=2 --group_report --output-format=json
ok "--group_report (a prefix of --group_reporting)" &&
	check "--group_report: one merged job for numjobs=2" json_eval \
		'len(d["jobs"]) == 1 and d["jobs"][0]["read"]["total_ios"] == 2048'
run bench --name=g --filename=null --rw=randread --bs=4k --size=4m \
	--iodepth_batch_c=4
failed "--iodepth_batch_c names three options" \
	"option '--iodepth_batch_c' is ambiguous: iodepth_batch_complete_min, iodepth_batch_complete, iodepth_batch_complete_max"
run bench --name=g --filename=null --rw=randread --bs=4k --size=4m \
	--iodepth_batch=4
ok "--iodepth_batch: a whole name wins over the longer ones it begins"
# the run's own options are cut short the same way
run bench --vers
ok "--vers (a prefix of --version)" &&
	check "--vers: prints the version" grep -q '^mqblk-' "$OUT"
run bench --name=g --filename=null --rw=randread --bs=4k --size=4m \
	--output-f=json
ok "--output-f (a prefix of --output-format)" &&
	check "--output-f=json: a JSON report" json_eval \
		'd["jobs"][0]["read"]["total_ios"] == 1024'
run bench --name=g --filename=null --rw=randread --bs=4k --size=4m \
	--outp=x
failed "--outp names two of the run's options" \
	"option '--outp' is ambiguous: output-format, output"
printf '[j]\nfilename=null\nrw=read\nsize=1m\ngroup_report\n' >"$TMP/p.fio"
run bench "$TMP/p.fio"
failed "a job file takes whole names only (as fio's)" "group_report"

# disable_lat / disable_clat / disable_slat: that latency is not measured
for which in lat clat slat; do
	run bench --name=d --filename=null --rw=randread --bs=4k --size=4m \
		--disable_$which=1 --output-format=json
	ok "--disable_$which" &&
		check "--disable_$which: no $which samples, the others measured" \
			json_eval "all((r[k + '_ns']['mean'] == 0) == (k == '$which') for r in [d['jobs'][0]['read']] for k in ('slat', 'clat', 'lat'))"
done

# refill_buffers: one buffer (iodepth 1) written 16 times carries the same
# data every time without it, new data every time with it
for refill in 0 1; do
	rm -f "$TMP/r.img"
	truncate -s 64k "$TMP/r.img"
	run bench --name=r --filename="$TMP/r.img" --rw=write --bs=4k \
		--size=64k --iodepth=1 --refill_buffers=$refill
	ok "refill_buffers=$refill: write"
	distinct=$(python3 -c '
import sys
b = open(sys.argv[1], "rb").read()
print(len({b[i:i + 4096] for i in range(0, len(b), 4096)}))' "$TMP/r.img")
	want=$((refill ? 16 : 1))
	check "refill_buffers=$refill: $want distinct blocks of 16 ($distinct)" \
		test "$distinct" = "$want"
done

# ---- rate control, thinktime, io_size, offset_increment, buffer_pattern,
# exitall (fio's meanings; figures beside fio 3.33's in the commit) ----
ios()
{
	python3 - "$OUT" "$1" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
d = json.loads(text[text.index("{"):])
print(sum(j[sys.argv[2]]["total_ios"] for j in d["jobs"]))
PY
}

# a rate is an upper bound: at most one I/O per gap since the start
run bench --name=r --filename=null --rw=randread --bs=4k --runtime=1 \
	--time_based --rate_iops=200 --output-format=json
ok "--rate_iops=200" &&
	check "--rate_iops=200: 1 s holds 1 to 202 I/Os ($(ios read))" \
		test "$(ios read)" -ge 1 -a "$(ios read)" -le 202
run bench --name=r --filename=null --rw=randread --bs=4k --runtime=1 \
	--time_based --rate=800k --output-format=json
ok "--rate=800k" &&
	check "--rate=800k at 4k: 1 to 202 I/Os in 1 s ($(ios read))" \
		test "$(ios read)" -ge 1 -a "$(ios read)" -le 202
run bench --name=r --filename=null --rw=randread --bs=4k --runtime=1 \
	--time_based --rate_iops=500 --rate_process=poisson \
	--output-format=json
ok "--rate_process=poisson" &&
	check "--rate_process=poisson: I/Os paced ($(ios read) < 5000)" \
		test "$(ios read)" -lt 5000
# per direction: fio switches to the direction behind its rate, so reads
# are not held to the writes' pace
run bench --name=r --filename=null --rw=randrw --bs=4k --runtime=1 \
	--time_based --rate_iops=200,50 --output-format=json
ok "--rate_iops=200,50 randrw" &&
	check "--rate_iops=200,50: reads <= 202, writes <= 52, reads > writes" \
		test "$(ios read)" -le 202 -a "$(ios write)" -le 52 \
		-a "$(ios read)" -gt "$(ios write)"
# thinktime: 10 I/Os, then 100 ms of nothing
run bench --name=t --filename=null --rw=randread --bs=4k --runtime=1 \
	--time_based --thinktime=100ms --thinktime_blocks=10 \
	--thinktime_spin=1ms --output-format=json
ok "--thinktime=100ms --thinktime_blocks=10" &&
	check "--thinktime: at most 10 I/Os per 100 ms ($(ios read) <= 110)" \
		test "$(ios read)" -le 110
# io_size: 3 MiB of I/O over a 1 MiB region (fio: 768 4k reads)
for rw in read randread; do
	run bench --name=i --filename=null --rw=$rw --bs=4k --size=1m \
		--io_size=3m --output-format=json
	ok "--io_size=3m $rw" &&
		check "--io_size=3m over size=1m, $rw: 768 I/Os as fio" \
			test "$(ios read)" = 768
done
run bench --name=i --filename=null --rw=randread --bs=4k --size=1m \
	--io_limit=256k --output-format=json
ok "--io_limit=256k" &&
	check "--io_limit=256k: 64 I/Os as fio" test "$(ios read)" = 64
run bench --name=s --filename=null --rw=read --size=64k --startdelay=100ms
ok "--startdelay=100ms"
# offset_increment: clone 1 writes the 64 KiB after clone 0's
rm -f "$TMP/o.img"
truncate -s 256k "$TMP/o.img"
run bench --name=o --filename="$TMP/o.img" --rw=write --bs=4k --size=64k \
	--numjobs=2 --offset_increment=64k --zero_buffers=0
ok "--offset_increment=64k, numjobs=2" &&
	check "--offset_increment: 128 KiB written, the rest untouched" \
		python3 -c '
import sys
b = open(sys.argv[1], "rb").read()
sys.exit(0 if all(b[i:i + 4096] != bytes(4096) for i in range(0, 131072, 4096))
	 and b[131072:] == bytes(131072) else 1)' "$TMP/o.img"
run bench --name=o --filename="$TMP/o.img" --rw=write --size=64k \
	--numjobs=8 --offset_increment=64k
failed "--offset_increment past the end" "offset_increment 65536 puts clone 7"
# buffer_pattern: the data written is the pattern, repeated
rm -f "$TMP/p.img"
truncate -s 64k "$TMP/p.img"
run bench --name=p --filename="$TMP/p.img" --rw=write --bs=4k --size=64k \
	--buffer_pattern=0xdeadbeef
ok "--buffer_pattern=0xdeadbeef" &&
	check "--buffer_pattern: the file is de ad be ef over and over" \
		python3 -c '
import sys
b = open(sys.argv[1], "rb").read()
sys.exit(0 if b == bytes.fromhex("deadbeef") * 16384 else 1)' "$TMP/p.img"
# exitall: b ends after 64 I/Os, so a (15 s, time_based) stops too
run bench --name=a --filename=null --rw=read --size=1g --runtime=15 \
	--time_based --name=b --filename=null --rw=read --size=256k --exitall \
	--output-format=json
ok "--exitall" &&
	check "--exitall: job a stopped when b ended" json_eval \
		'd["jobs"][0]["job_runtime"] < 15000 and d["jobs"][1]["read"]["total_ios"] == 64'
# rate_min: a job held below it fails with fio's words and EIO
run bench --name=m --filename=null --rw=read --size=1g --runtime=2 \
	--time_based --thinktime=10ms --rate_min=10m
failed "--rate_min not met" '^mqblk: m: rate_min=10485760B/s not met, got [0-9]+B/s'
run bench --name=m --filename=null --rw=read --size=1m --buffered=0
ok "--buffered=0 (direct)"

# rw=...:N, fio's offset modifiers, seen in the offsets of a lat log
# offsets FILE: the lat log's offsets (fio's 5th field), on one line
offsets()
{
	cut -d, -f5 "$1" | tr -d ' ' | paste -sd' '
}
# seq_shape FILE N: from the first I/O on, each N-th offset is new and the
# N-1 after it follow on from where the one before ended (4 KiB I/Os)
seq_shape()
{
	awk -F', *' -v n="$2" \
		'NR % n != 1 && n > 1 && $5 != last + 4096 { bad = 1 }
		{ last = $5 } END { exit bad || NR == 0 }' "$1"
}
mkdir -p "$TMP/seq"
run bench --name=s --filename=null --rw=read:4k --bs=4k --size=64k \
	--write_lat_log="$TMP/seq/h" --log_offset=1
ok "--rw=read:4k" &&
	check "--rw=read:4k: a 4k hole after each I/O, wrapping at the end" \
		test "$(offsets "$TMP/seq/h_lat.1.log")" = \
		"$(printf '%s ' 0 8192 16384 24576 32768 40960 49152 57344 \
			0 8192 16384 24576 32768 40960 49152 57344 | sed 's/ $//')"
run bench --name=s --filename=null --rw=read:-8k --bs=4k --size=64k \
	--number_ios=6 --write_lat_log="$TMP/seq/b" --log_offset=1
ok "--rw=read:-8k" &&
	check "--rw=read:-8k: backwards from the end after the first I/O" \
		test "$(offsets "$TMP/seq/b_lat.1.log")" = \
		"0 57344 53248 49152 45056 40960"
run bench --name=s --filename=null --rw=randread:4 --bs=4k --size=16m \
	--number_ios=64 --write_lat_log="$TMP/seq/r" --log_offset=1
ok "--rw=randread:4" &&
	check "--rw=randread:4: a random offset, then 3 sequential I/Os" \
		seq_shape "$TMP/seq/r_lat.1.log" 4 &&
	check "--rw=randread:4: 16 random offsets, not all sequential" \
		test "$(awk -F', *' 'NR % 4 == 1 && $5 != last + 4096 { n++ }
			{ last = $5 } END { print n + 0 }' \
			"$TMP/seq/r_lat.1.log")" -ge 15
run bench --name=s --filename=null --rw=randwrite:1 --bs=4k --size=16m \
	--number_ios=64 --write_lat_log="$TMP/seq/w" --log_offset=1
ok "--rw=randwrite:1 (fio's default)" &&
	check "--rw=randwrite:1: every offset random" \
		test "$(awk -F', *' '$5 == last + 4096 { n++ }
			{ last = $5 } END { print n + 0 }' \
			"$TMP/seq/w_lat.1.log")" -le 2
# the same jobs in fio itself, where it is installed: the same offsets
if command -v fio >/dev/null; then
	(cd "$TMP/seq" && fio --name=s --ioengine=null --rw=read:-8k --bs=4k \
		--size=64k --number_ios=6 --write_lat_log=fb --log_offset=1 \
		>/dev/null 2>&1 &&
		fio --name=s --ioengine=null --rw=randread:4 --bs=4k \
			--size=16m --number_ios=64 --write_lat_log=fr \
			--log_offset=1 >/dev/null 2>&1)
	check "fio's own read:-8k: the offsets mqblk's took" \
		test "$(offsets "$TMP/seq/fb_lat.1.log")" = \
		"0 57344 53248 49152 45056 40960"
	check "fio's own randread:4: the shape mqblk's has" \
		seq_shape "$TMP/seq/fr_lat.1.log" 4
fi

# --kb_base: the sizes parsed after it (fio's order: the one before it is
# in the base before it), and the SI units first in the normal report
kb_io_bytes()
{
	local want=$1
	shift
	run bench --name=k --filename=null --rw=read --bs=4096 "$@" \
		--output-format=json
	ok "--kb_base: $*" &&
		check "--kb_base: $* is $want bytes" \
			json_eval "d['jobs'][0]['read']['io_bytes'] == $want"
	if command -v fio >/dev/null; then
		fio --name=k --ioengine=null --rw=read --bs=4096 "$@" \
			--output-format=json >"$OUT" 2>/dev/null
		check "--kb_base: fio's own $* is $want bytes too" \
			json_eval "d['jobs'][0]['read']['io_bytes'] == $want"
	fi
}
kb_io_bytes 4096000 --kb_base=1000 --size=4096k
kb_io_bytes 4194304 --size=4096k --kb_base=1000
kb_io_bytes 4194304 --kb_base=1000 --size=4096kib
kb_io_bytes 4096000 --kb_base=1024 --size=4096kib
run bench --name=k --filename=null --rw=read --kb_base=1000 --bs=4kib \
	--size=4096k
ok "--kb_base=1000: the normal report" &&
	check "--kb_base=1000: SI first, as fio (io=4096kB (4000KiB))" \
		has_re 'READ: bw=[0-9.]+[kMG]B/s \([0-9.]+[KMG]iB/s\), .* io=4096kB \(4000KiB\)' &&
	check "--kb_base=1000: the job line too (BW=..MB/s (..MiB/s)(4096kB/" \
		has_re 'read: IOPS=.*, BW=[0-9.]+[kMG]B/s \([0-9.]+[KMG]iB/s\)\(4096kB/'
printf '[global]\nkb_base=1000\n[k]\nfilename=null\nrw=read\nbs=4kib\nsize=4096k\n' \
	>"$TMP/kb.fio"
run bench "$TMP/kb.fio" --output-format=json
ok "--kb_base=1000 in a job file's [global]" &&
	check "kb_base=1000 in [global]: the job's size=4096k is 4096000" \
		json_eval "d['jobs'][0]['read']['io_bytes'] == 4096000"

# --sync: the file is opened O_SYNC / O_DSYNC (its flags, read from
# /proc while the job runs: octal 04010000 and 010000)
sync_oflags()
{
	local f flags="" pid
	run_bg bench --name=s --filename="$TMP/sync.img" --rw=write --bs=4k \
		--size=1m --time_based --runtime=1 "$@"
	for _ in $(seq 40); do
		# BPID is timeout(1); mqblk is its child
		pid=$(cat "/proc/$BPID/task/$BPID/children" 2>/dev/null)
		pid=${pid%% *}
		for f in /proc/${pid:-0}/fd/*; do
			[[ $(readlink "$f" 2>/dev/null) == "$TMP/sync.img" ]] &&
				flags=$(awk '/^flags:/ { print $2 }' \
					"/proc/$pid/fdinfo/${f##*/}" 2>/dev/null)
		done
		[[ -n $flags ]] && break
		sleep 0.1
	done
	wait "$BPID" || RC=$?
	echo "$flags"
}
truncate -s 1m "$TMP/sync.img"
for v in 0 1 sync dsync; do
	flags=$(sync_oflags --sync=$v)
	case $v in
	0) want=0 ;;
	dsync) want=$((8#10000)) ;;
	*) want=$((8#4010000)) ;;
	esac
	check "--sync=$v: the file's O_SYNC/O_DSYNC bits (flags $flags)" \
		test -n "$flags" -a $((8#${flags:-0} & 8#4010000)) -eq "$want"
done

# bad values, one line each, fio's words where fio has them
bad_opt()
{
	local name=$1 re=$2
	shift 2
	run bench --name=x --filename=null --rw=read --size=1m "$@"
	failed "$name" "$re"
}
bad_opt "rate with rate_iops" "rate and rate_iops are mutually exclusive" \
	--rate=1m --rate_iops=10
bad_opt "rate_min above rate" "minimum rate exceeds rate" \
	--rate_iops=10 --rate_iops_min=20
bad_opt "rate_process=foo" "failed parsing rate_process=foo" \
	--rate_process=foo
bad_opt "rate with 4 values" "at most 3 values" --rate=1m,1m,1m,1m
bad_opt "rate=abc" "rate: " --rate=abc
bad_opt "thinktime_spin above thinktime" "thinktime_spin is longer" \
	--thinktime=1ms --thinktime_spin=2ms
bad_opt "thinktime=-1" "thinktime: " --thinktime=-1
bad_opt "kb_base=999" "failed parsing kb_base=999" --kb_base=999
bad_opt "sync=x" "failed parsing sync=x \\(valid values: none, 0, sync, 1, dsync\\)" \
	--sync=x
run bench --name=x --filename=null --rw=write --size=1m --sync=1
failed "--sync=1 on the null device: refused, not ignored" \
	"the null driver has no synchronous writes"
bad_opt "random_distribution=zoned:50/5:40/95" \
	"random_distribution=zoned:50/5:40/95: access percentages add up to 90, not 100" \
	--random_distribution=zoned:50/5:40/95
bad_opt "dedupe_mode=working_set" "dedupe_mode=working_set is not supported" \
	--dedupe_mode=working_set
bad_opt "buffer_pattern=zz" "pattern" --buffer_pattern=zz
bad_opt "rw=randread:0" "rw=randread:0: randrw postfix parsing out of range" \
	--rw=randread:0
bad_opt "rw=randread:x" "randrw postfix parsing out of range" --rw=randread:x
bad_opt "rw=read:4q" "rw=read:4q: rw postfix parsing failed" --rw=read:4q
bad_opt "rw=read:" "rw postfix parsing failed" --rw=read:
bad_opt "rw=reed:4k" "unknown rw 'reed:4k'" --rw=reed:4k
bad_opt "verify_dump=1" "verify_dump=1 is not supported" --verify_dump=1
# the defaults of those are taken
run bench --name=x --filename=null --rw=read --size=1m \
	--sync=0 --random_distribution=random --unified_rw_reporting=0 \
	--continue_on_error=none --write_barrier=0 --dedupe_percentage=0 \
	--verify_dump=0
ok "the defaults of the options not implemented are taken"

# nrfiles, file_service_type, filesize ranges: fio's NAME.CLONE.FILE files,
# the I/O spread over them as fio spreads it. Each service type writes
# half of four 1 MiB files with a pattern over fresh (zero) files: the
# blocks written per file are fio's (roundrobin: a quarter of each file
# each, its first half; sequential: files 0 and 1 whole; roundrobin:3 the
# same as fio's, block for block; random: every file some)
FIO=${FIO:-fio}
MQBLK_ABS=$(realpath "$MQBLK")
# written NAME DIR: "file:blocks-of-the-pattern" for DIR's files
written()
{
	python3 -c '
import os, sys
d = sys.argv[1]
out = []
for f in sorted(os.listdir(d)):
    b = open(os.path.join(d, f), "rb").read()
    n = sum(1 for i in range(0, len(b), 4096) if b[i:i + 4096].count(0) == 0)
    out.append("%s:%d:%d" % (f, len(b), n))
print(" ".join(out))' "$1"
}
NF=$TMP/nf
# (default: no --file_service_type, fio's roundrobin)
for svc in roundrobin sequential roundrobin:3 random default; do
	rm -rf "$NF" && mkdir -p "$NF"
	svcopt=(--file_service_type=$svc)
	[[ $svc == default ]] && svcopt=()
	run bench --name=t --ioengine=psync --rw=write --filesize=1m \
		--nrfiles=4 --size=2m --buffer_pattern=0xab \
		"${svcopt[@]}" --directory="$NF" --output-format=json
	ok "nrfiles=4 file_service_type=$svc" || continue
	got=$(written "$NF")
	case $svc in
	roundrobin | default) want="t.0.0:1048576:128 t.0.1:1048576:128 t.0.2:1048576:128 t.0.3:1048576:128" ;;
	sequential) want="t.0.0:1048576:256 t.0.1:1048576:256 t.0.2:1048576:0 t.0.3:1048576:0" ;;
	roundrobin:3) want="t.0.0:1048576:129 t.0.1:1048576:129 t.0.2:1048576:128 t.0.3:1048576:126" ;;
	random) want=random ;;
	esac
	if [[ $want == random ]]; then
		check "file_service_type=random: every file written, 512 blocks in all" \
			python3 -c '
import sys
f = [int(x.split(":")[2]) for x in sys.argv[1].split()]
sys.exit(0 if len(f) == 4 and all(f) and sum(f) == 512 else 1)' "$got"
	else
		check "file_service_type=$svc: the blocks written per file are fio's ($got)" \
			test "$got" = "$want"
	fi
	check "file_service_type=$svc: 512 writes of 4k" json_eval \
		'd["jobs"][0]["write"]["total_ios"] == 512'
done
# the same layout as fio's: names, sizes and the 'Laying out' lines of
# size= spread over the files of two clones
if command -v "$FIO" >/dev/null; then
	rm -rf "$NF" "$TMP/nff" && mkdir -p "$NF" "$TMP/nff"
	(cd "$TMP/nff" && "$FIO" --name=t --ioengine=psync --rw=randread \
		--size=6m --nrfiles=3 --numjobs=2 >"$TMP/fio.out" 2>&1)
	run bench --name=t --ioengine=psync --rw=randread --size=6m \
		--nrfiles=3 --numjobs=2 --directory="$NF" --eta=never
	ok "nrfiles=3 numjobs=2 randread" &&
		check "nrfiles=3 numjobs=2: fio's file names and sizes" \
			test "$(cd "$NF" && ls -l --time-style=+ | awk 'NR > 1 { print $5, $6 }')" = \
			"$(cd "$TMP/nff" && ls -l --time-style=+ | awk 'NR > 1 { print $5, $6 }')" &&
		check "nrfiles=3 numjobs=2: fio's 'Laying out IO files' lines" \
			test "$(grep 'Laying out' "$TMP/fio.out")" = \
			"$(grep 'Laying out' "$OUT")" &&
		check "nrfiles=3 numjobs=2: 6 MiB read per clone, as fio" \
			grep -q 'READ: bw=.*io=12.0MiB' "$OUT"
	# fio's default service is roundrobin, block for block
	rm -rf "$NF" "$TMP/nff" && mkdir -p "$NF" "$TMP/nff"
	(cd "$TMP/nff" && "$FIO" --name=t --ioengine=psync --rw=write \
		--filesize=1m --nrfiles=4 --size=2m --buffer_pattern=0xab \
		>/dev/null 2>&1)
	run bench --name=t --ioengine=psync --rw=write --filesize=1m \
		--nrfiles=4 --size=2m --buffer_pattern=0xab --directory="$NF"
	ok "nrfiles=4 default file_service_type beside fio" &&
		check "nrfiles=4 default file_service_type: fio's blocks per file" \
			test "$(written "$NF")" = "$(written "$TMP/nff")"
else
	skip "nrfiles side by side: no fio"
fi
# filesize=LOW-HIGH: each file's size in the range, a multiple of bs, the
# same on a second run (kept, not laid out again); size= left out is what
# the files hold
rm -rf "$NF" && mkdir -p "$NF"
run bench --name=r --ioengine=psync --rw=read --bs=8k --filesize=1m-3m \
	--nrfiles=5 --directory="$NF" --output-format=json
ok "filesize=1m-3m nrfiles=5" &&
	check "filesize=1m-3m: five sizes in the range, multiples of 8k, not all one" \
		python3 -c '
import os, sys
s = [os.path.getsize(os.path.join(sys.argv[1], f)) for f in os.listdir(sys.argv[1])]
sys.exit(0 if len(s) == 5 and len(set(s)) > 1 and
         all(1048576 - 8192 < x <= 3145728 and x % 8192 == 0 for x in s) else 1)' "$NF" &&
	check "filesize=1m-3m: every byte of the files read once" json_eval \
		"d['jobs'][0]['read']['io_bytes'] == $(cat "$NF"/* | wc -c)"
sizes1=$(ls -l "$NF" | md5sum)
run bench --name=r --ioengine=psync --rw=read --bs=8k --filesize=1m-3m \
	--nrfiles=5 --directory="$NF"
ok "filesize=1m-3m again" &&
	check "filesize=1m-3m again: the same sizes, nothing laid out" \
		test "$sizes1" = "$(ls -l "$NF" | md5sum)" -a \
		-z "$(grep 'Laying out' "$OUT")"
# filesize=LOW-HIGH with clones: each clone's files have sizes of their
# own, and each clone does what its own files hold (fio's per-job file
# set), not clone 0's total
rm -rf "$NF" && mkdir -p "$NF"
run bench --name=r --ioengine=psync --rw=read --bs=8k --filesize=1m-3m \
	--nrfiles=3 --numjobs=4 --directory="$NF" --output-format=json
ok "filesize=1m-3m nrfiles=3 numjobs=4" &&
	check "filesize=1m-3m numjobs=4: each clone's io_bytes is its own files' total" \
		python3 -c '
import json, os, sys
d, nf = sys.argv[1], sys.argv[2]
text = open(d).read()
jobs = json.loads(text[text.index("{"):])["jobs"]
tot = [sum(os.path.getsize(os.path.join(nf, "r.%d.%d" % (c, k))) for k in range(3))
       for c in range(4)]
got = [j["read"]["io_bytes"] for j in jobs]
# some clone holds more than clone 0, or this checks nothing
sys.exit(0 if got == tot and max(tot) > tot[0] else 1)' "$OUT" "$NF"
# size=N% over several files: N% of each file, --filesize's or the size
# the files have (fio's setup_files), aligned down to the block size;
# of files not made yet it is fio's "you need to specify size="
rm -rf "$NF" && mkdir -p "$NF"
run bench --name=p --ioengine=psync --rw=read --bs=4k --filesize=1m \
	--nrfiles=4 --size=25% --directory="$NF" --output-format=json
ok "size=25% filesize=1m nrfiles=4" &&
	check "size=25% filesize=1m nrfiles=4: a quarter of each file, 1 MiB" \
		json_eval 'd["jobs"][0]["read"]["io_bytes"] == 1048576'
rm -rf "$NF" && mkdir -p "$NF"
run bench --name=p --ioengine=psync --rw=read --bs=8k --filesize=1m-3m \
	--nrfiles=3 --directory="$NF"
ok "filesize=1m-3m nrfiles=3: the files laid out"
run bench --name=p --ioengine=psync --rw=read --bs=8k --size=30% \
	--nrfiles=3 --directory="$NF" --output-format=json
ok "size=30% of three files that exist" &&
	check "size=30% nrfiles=3: 30% of each file, aligned down to 8k" \
		python3 -c '
import json, os, sys
d, nf = sys.argv[1], sys.argv[2]
text = open(d).read()
j = json.loads(text[text.index("{"):])["jobs"][0]
want = 0
for k in range(3):
    n = os.path.getsize(os.path.join(nf, "p.0.%d" % k)) * 30 // 100
    want += n - n % 8192
sys.exit(0 if j["read"]["io_bytes"] == want else 1)' "$OUT" "$NF"
rm -rf "$NF" && mkdir -p "$NF"
run bench --name=p --ioengine=psync --rw=read --size=30% --nrfiles=3 \
	--directory="$NF"
failed "size=30% of files not made yet" \
	"^mqblk: p: you need to specify size= \(size=30% of $NF/p\.0\.0, which does not exist yet\)\$" &&
	check "size=30% of files not made yet: none made" test -z "$(ls -A "$NF")"
# side by side with fio: the same I/O, and the same files (fio lays out
# the quarter it reads of each)
if command -v "$FIO" >/dev/null; then
	rm -rf "$NF" "$TMP/nff" && mkdir -p "$NF" "$TMP/nff"
	(cd "$TMP/nff" && "$FIO" --name=p --ioengine=psync --rw=read \
		--filesize=1m --nrfiles=4 --size=25% --output-format=json \
		>"$TMP/fio.json" 2>&1)
	run bench --name=p --ioengine=psync --rw=read --filesize=1m \
		--nrfiles=4 --size=25% --directory="$NF" --output-format=json
	ok "size=25% filesize=1m nrfiles=4, beside fio" &&
		check "size=25% filesize=1m nrfiles=4: fio's io_bytes" \
			python3 -c '
import json, sys
io = []
for p in sys.argv[1:]:
    t = open(p).read()
    io.append(json.loads(t[t.index("{"):])["jobs"][0]["read"]["io_bytes"])
sys.exit(0 if io[0] == io[1] == 1048576 else 1)' "$TMP/fio.json" "$OUT" &&
		check "size=25% filesize=1m nrfiles=4: fio's file names and sizes" \
			test "$(cd "$NF" && find . -type f -printf '%f %s\n' | sort)" = \
			"$(cd "$TMP/nff" && find . -type f -printf '%f %s\n' | sort)"
else
	skip "size=N% nrfiles side by side" "no fio"
fi
# a time_based job over files with a mixed pattern and end_fsync: it ends,
# flushes each file, and unlinks them all
rm -rf "$NF" && mkdir -p "$NF"
run bench --name=m --ioengine=io_uring --rw=randrw --iodepth=8 --size=4m \
	--nrfiles=4 --file_service_type=random:2 --time_based --runtime=1 \
	--end_fsync=1 --unlink=1 --directory="$NF" --output-format=json
ok "nrfiles=4 randrw time_based, end_fsync, unlink" &&
	check "nrfiles=4 time_based: reads, writes, a flush per file, no file left" \
		json_eval 'd["jobs"][0]["read"]["total_ios"] > 0 and d["jobs"][0]["write"]["total_ios"] > 0 and d["jobs"][0]["sync"]["total_ios"] == 4' &&
	check "nrfiles=4 unlink: no file left" test -z "$(ls -A "$NF")"
# verify over several files, as fio verifies each file of a job: every
# block written is read back from its own file, under each service type,
# at the end, as it goes (verify_backlog) and with write lengths that vary
for svc in roundrobin sequential random:2; do
	rm -rf "$NF" && mkdir -p "$NF"
	run bench --name=v --ioengine=psync --rw=randwrite --bs=4k \
		--filesize=256k --nrfiles=3 --file_service_type=$svc \
		--verify=crc32c --directory="$NF" --output-format=json
	ok "nrfiles=3 write+verify, file_service_type=$svc" &&
		check "nrfiles=3 verify, $svc: 192 blocks written, 192 read back, none bad" \
			json_eval 'd["jobs"][0]["write"]["total_ios"] == 192 and d["jobs"][0]["read"]["total_ios"] == 192 and d["jobs"][0]["mqblk"]["verify_errors"] == 0 and d["jobs"][0]["error"] == 0'
done
rm -rf "$NF" && mkdir -p "$NF"
run bench --name=v --ioengine=io_uring --iodepth=8 --rw=randwrite --bs=4k \
	--filesize=256k --nrfiles=3 --file_service_type=roundrobin:5 \
	--verify=md5 --verify_backlog=16 --directory="$NF" --output-format=json
ok "nrfiles=3 verify_backlog=16" &&
	check "nrfiles=3 verify_backlog=16: 192 blocks read back, none bad" \
		json_eval 'd["jobs"][0]["read"]["total_ios"] == 192 and d["jobs"][0]["mqblk"]["verify_errors"] == 0'
rm -rf "$NF" && mkdir -p "$NF"
run bench --name=v --ioengine=psync --rw=randwrite --bsrange=4k-16k \
	--filesize=256k --nrfiles=3 --verify=crc32c --directory="$NF" \
	--output-format=json
ok "nrfiles=3 verify with bsrange=4k-16k" &&
	check "nrfiles=3 bsrange verify: every byte written read back, none bad" \
		json_eval 'd["jobs"][0]["read"]["io_bytes"] == d["jobs"][0]["write"]["io_bytes"] == 3 * 262144 and d["jobs"][0]["mqblk"]["verify_errors"] == 0'
# a byte changed in the 2nd file between a write job and a --verify_only
# job: found, and named with that file and offset (fio's message form);
# the other files check out
rm -rf "$NF" && mkdir -p "$NF"
vjob=(--name=v --ioengine=psync --rw=write --bs=4k --filesize=64k
	--nrfiles=3 --verify=crc32c --directory="$NF")
run bench "${vjob[@]}" --do_verify=0
ok "nrfiles=3 write, do_verify=0"
run bench "${vjob[@]}" --verify_only
ok "nrfiles=3 verify_only over what was written" &&
	check "nrfiles=3 verify_only: 48 blocks checked" has 'issued rwts: total=48,0,0,0'
# flip one payload byte of block 5 of v.0.1 (past its 64-byte header)
python3 -c '
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(5 * 4096 + 100)
    b = f.read(1)
    f.seek(5 * 4096 + 100)
    f.write(bytes([b[0] ^ 0xff]))' "$NF/v.0.1"
run bench "${vjob[@]}" --verify_only
failed "nrfiles=3 verify_only: a byte changed in the 2nd file" \
	"^mqblk: v: verify: bad crc32c 0x[0-9a-f]{8}, wanted 0x[0-9a-f]{8} at file $NF/v\.0\.1 offset 20480, length 4096\$" &&
	check "nrfiles=3 verify_only: one mismatch, in v.0.1 alone" \
		test "$(grep -c 'verify:' "$ERR")" = 1 &&
	check "nrfiles=3 verify_only: err=84" has_re '^v: .*err=84' &&
	check "nrfiles=3 verify_only: verify_errors=1" \
		has_re 'mqblk +: .*verify_errors=1([^0-9]|$)'
run bench --name=v --ioengine=psync --rw=write --size=1m --nrfiles=1025 \
	--directory="$NF"
failed "nrfiles=1025" "nrfiles"

# unified_rw_reporting (fio 3.33's none|mixed|both|0|1|2): mixed reports
# read, write and trim as one "mixed" (JSON: that object alone; normal:
# a "mixed:" line and a MIXED group row; terse: read's fields alone),
# both adds it after them; the JSON keys and the fold's counts as fio's
# (fio's null engine, the same job)
ujob=(--name=u --rw=randrw --size=4m --bs=4k)
ukeys()
{
	python3 -c '
import json, sys
t = open(sys.argv[1]).read()
j = json.loads(t[t.index("{"):])["jobs"][0]
m = j["mixed"]
print([k for k in j if k in ("read", "write", "trim", "sync", "mixed")],
      m["io_bytes"], m["total_ios"], m["clat_ns"].get("N"),
      j.get("read", {}).get("io_bytes", 0) + j.get("write", {}).get("io_bytes", 0) in (0, m["io_bytes"]))' "$1"
}
for m in mixed both 1 2; do
	run bench "${ujob[@]}" --ioengine=null --unified_rw_reporting=$m \
		--output-format=json
	ok "unified_rw_reporting=$m" || continue
	got=$(ukeys "$OUT")
	if command -v "$FIO" >/dev/null; then
		"$FIO" "${ujob[@]}" --ioengine=null --unified_rw_reporting=$m \
			--output-format=json >"$TMP/fio-u.json" 2>/dev/null
		check "unified_rw_reporting=$m: fio's keys and mixed counts ($got)" \
			test "$got" = "$(ukeys "$TMP/fio-u.json")"
	else
		check "unified_rw_reporting=$m: a mixed object" \
			test -n "$got"
	fi
done
run bench "${ujob[@]}" --ioengine=null --unified_rw_reporting=mixed
ok "unified_rw_reporting=mixed, normal report" &&
	check "mixed: one 'mixed:' line, no read or write line" \
		test "$(grep -cE '^  (read|write|mixed):' "$OUT")" = 1 -a \
		"$(grep -cE '^  mixed: IOPS=.*\(4096KiB/' "$OUT")" = 1 &&
	check "mixed: the group row is MIXED with all 4 MiB" \
		grep -qE '^  MIXED: bw=.*io=4096KiB \(4194kB\)' "$OUT"
run bench "${ujob[@]}" --ioengine=null --unified_rw_reporting=both
ok "unified_rw_reporting=both, normal report" &&
	check "both: read, write, then mixed with all 4 MiB" \
		test "$(grep -oE '^  (read|write|mixed):' "$OUT" | tr -d ' \n')" = \
		"read:write:mixed:" -a \
		"$(grep -cE '^  mixed: IOPS=.*\(4096KiB/' "$OUT")" = 1 &&
	check "both: READ, WRITE and MIXED group rows" \
		test "$(grep -oE '^ *(READ|WRITE|MIXED):' "$OUT" | tr -d ' \n')" = \
		"READ:WRITE:MIXED:"
for m in mixed both; do
	run bench "${ujob[@]}" --ioengine=null --unified_rw_reporting=$m \
		--minimal
	ok "unified_rw_reporting=$m --minimal" &&
		check "unified_rw_reporting=$m: fio's terse field count" \
			test "$(awk -F';' '{ print NF }' "$OUT")" = \
			"$([[ $m == mixed ]] && echo 80 || echo 162)"
done
run bench "${ujob[@]}" --ioengine=null --unified_rw_reporting=3
failed "unified_rw_reporting=3" "failed parsing unified_rw_reporting=3"

# buffer_compress_percentage, buffer_compress_chunk, dedupe_percentage: the
# content of the writes, checked as a storage system would see it: gzip's
# ratio on the file written and its share of distinct 4k blocks, beside
# fio 3.33's on the same job (within 3 points of the share asked for, 5
# of fio's: both draw at random, each the same draws on every run)
props()
{
	python3 -c '
import subprocess, sys
b = open(sys.argv[1], "rb").read()
gz = len(subprocess.run(["gzip", "-c"], input=b, capture_output=True).stdout)
blocks = [b[i:i + 4096] for i in range(0, len(b), 4096)]
print("%.1f %.1f" % (100.0 * gz / len(b), 100.0 * len(set(blocks)) / len(blocks)))' "$1"
}
# near POINTS GOT WANT-GZIP WANT-DISTINCT: both within POINTS
near()
{
	python3 -c '
import sys
g = [float(x) for x in sys.argv[2].split()]
w = [float(x) for x in sys.argv[3:]]
sys.exit(0 if all(abs(a - b) <= float(sys.argv[1]) for a, b in zip(g, w)) else 1)' "$@"
}
CD=$TMP/content
for spec in "60 0 512 41 100" "0 30 512 70 70" "40 50 512 31 50" \
	"70 0 4k 31 100"; do
	read -r cp dp chunk wgz wdist <<<"$spec"
	copts=(--name=c --ioengine=psync --rw=write --bs=4k --size=8m
		--buffer_compress_percentage="$cp" --dedupe_percentage="$dp"
		--buffer_compress_chunk="$chunk")
	rm -rf "$CD" && mkdir -p "$CD"
	run bench "${copts[@]}" --directory="$CD"
	ok "compress=$cp dedupe=$dp chunk=$chunk" || continue
	got=$(props "$CD/c.0.0")
	# shellcheck disable=SC2086 # two numbers
	check "compress=$cp dedupe=$dp: gzip to ~$wgz%, ~$wdist% distinct blocks ($got)" \
		near 3 "$got" $wgz $wdist
	if command -v "$FIO" >/dev/null; then
		rm -rf "$CD" && mkdir -p "$CD"
		"$FIO" "${copts[@]}" --directory="$CD" >/dev/null 2>&1
		fgot=$(props "$CD/c.0.0")
		# shellcheck disable=SC2086
		check "compress=$cp dedupe=$dp: as fio's ($got, fio $fgot)" \
			near 5 "$got" $fgot
	fi
done
run bench --name=c --filename=null --buffer_compress_percentage=101
failed "buffer_compress_percentage=101" "buffer_compress_percentage"
run bench --name=c --filename=null --dedupe_percentage=20 --zero_buffers
failed "dedupe_percentage with zero_buffers" "zero_buffers and"

finish
