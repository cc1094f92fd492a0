#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Files as fio makes them: a file engine with no --filename measures fio's
# jobname.jobnum.filenum in --directory, laid out first, never the null
# device; no engine and no filename runs the null device and says so; a
# bare --filename that does not exist yet is laid out too. Names, sizes
# and the "Laying out" lines are checked against fio itself.
# shellcheck source-path=SCRIPTDIR disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FIO=${FIO:-fio}
MQBLK=$(realpath "$MQBLK")

json_eval()
{
	python3 - "$OUT" "$1" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
d = json.loads(text[text.index("{"):])
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}

# distinct 4 KiB blocks in a file
distinct_blocks()
{
	python3 -c '
import sys
b = open(sys.argv[1], "rb").read()
print(len({b[i:i + 4096] for i in range(0, len(b), 4096)}))' "$1"
}

# sizes NAME...: "name:size" for each file of a directory, sorted
sizes()
{
	(cd "$1" && find . -maxdepth 1 -type f -printf '%f:%s\n' | sort)
}

D=$TMP/d
mkdir -p "$D"

# the issue's case: libaio and no --filename is fio's file, not null
run bench --name=mydisk --ioengine=libaio --direct=1 --rw=randread \
	--size=1m --iodepth=4 --numjobs=2 --directory="$D" --eta=never
ok "libaio, no --filename: runs" &&
	check "two clones, two files of 1 MiB (mydisk.0.0, mydisk.1.0)" \
		test "$(sizes "$D" | tr '\n' ' ')" = \
		"mydisk.0.0:1048576 mydisk.1.0:1048576 "
check "fio's 'Laying out IO file' line per clone" \
	test "$(grep -c '^mydisk: Laying out IO file (1 file / 1MiB)$' "$OUT")" = 2
check "the report names libaio, not the null device" \
	has 'ioengine=libaio, iodepth=4'
check "no null-device note for a file engine" \
	bash -c "! grep -q 'null device' '$OUT'"
check "a laid-out file holds data (256 distinct blocks)" \
	test "$(distinct_blocks "$D/mydisk.0.0")" = 256

# a second run finds the files in place: nothing laid out again
run bench --name=mydisk --ioengine=libaio --rw=randread --size=1m \
	--numjobs=2 --directory="$D" --output-format=json
ok "second run over the same files" &&
	check "second run: every block read once per clone" json_eval \
		'[j["read"]["total_ios"] for j in d["jobs"]] == [256, 256]'
check "JSON job options: directory as given, no filename (as fio)" json_eval \
	"'filename' not in d['jobs'][0]['job options'] and d['jobs'][0]['job options']['directory'] == '$D'"
check "second run: nothing laid out (json has no text before it)" \
	bash -c "! grep -q 'Laying out' '$OUT'"

# zero_buffers: the layout writes zeroes
rm -f "$D"/*
run bench --name=z --ioengine=psync --rw=read --size=256k \
	--zero_buffers --directory="$D"
ok "zero_buffers layout" &&
	check "zero_buffers: one distinct (zero) block" \
		test "$(distinct_blocks "$D/z.0.0")" = 1

# a write-only job: the file is made and sized, then written
run bench --name=w --ioengine=sync --rw=write --size=512k --directory="$D"
ok "write job on a new file" &&
	check "write job: w.0.0 is 512 KiB" test "$(stat -c %s "$D/w.0.0")" = 524288

# --unlink: the files are gone after the run
rm -f "$D"/*
run bench --name=u --ioengine=psync --rw=randwrite --size=256k --unlink=1 \
	--numjobs=2 --directory="$D"
ok "--unlink=1 runs" &&
	check "--unlink=1: no file left" test -z "$(ls -A "$D")"

# filesize: the file's size; size defaults to it
run bench --name=fs --ioengine=psync --rw=read --filesize=128k \
	--directory="$D" --output-format=json
ok "--filesize alone" &&
	check "--filesize=128k: 32 reads of a 128 KiB file" json_eval \
		'd["jobs"][0]["read"]["total_ios"] == 32' &&
	check "--filesize=128k: fs.0.0 is 128 KiB" \
		test "$(stat -c %s "$D/fs.0.0")" = 131072
rm -f "$D"/*

# create_on_open: made at open, not laid out
run bench --name=c --ioengine=psync --rw=write --size=64k \
	--create_on_open=1 --directory="$D"
ok "create_on_open=1, write" &&
	check "create_on_open: no 'Laying out' line" \
		bash -c "! grep -q 'Laying out' '$OUT'" &&
	check "create_on_open: c.0.0 made" test -f "$D/c.0.0"
rm -f "$D"/*
run bench --name=c --ioengine=psync --rw=read --size=64k \
	--create_on_open=1 --directory="$D"
failed "create_on_open with a job that reads a new file" \
	'create_on_open: .*c\.0\.0 would be created empty'
check "create_on_open refused: nothing left" test -z "$(ls -A "$D")"

# a bare --filename (fio's examples/fio-rand-read.fio) is laid out in the
# working directory
(cd "$D" && timeout -k 5 20 "$MQBLK" bench --name=r --filename=rand-file \
	--rw=randread --size=256k --eta=never >"$OUT" 2>"$ERR" </dev/null)
RC=$?
ok "bare --filename that does not exist" &&
	check "bare --filename: laid out in the working directory" \
		test "$(stat -c %s "$D/rand-file")" = 262144 &&
	check "bare --filename: fio's layout line" \
		has 'r: Laying out IO file (1 file / 0MiB)'
# a path with a file engine is laid out; with no engine, missing is an
# error, as before
run bench --name=q --filename="$D/q.img" --ioengine=libaio --rw=read \
	--size=128k
ok "--filename=PATH with libaio, missing: laid out" &&
	check "PATH with libaio: 128 KiB laid out" \
		test "$(stat -c %s "$D/q.img")" = 131072
run bench --name=q --filename="$D/q2.img" --rw=read --size=128k
failed "--filename=PATH, no engine, missing: still an error" \
	"q2.img: No such file or directory"
check "no engine: nothing made" test ! -e "$D/q2.img"
rm -f "$D"/*
# size=N% of a file named by --filename
truncate -s 4m "$TMP/pct.img"
run bench --name=p --filename="$TMP/pct.img" --rw=read --size=25% \
	--output-format=json
ok "size=25% of a 4 MiB file" &&
	check "size=25%: 1 MiB read (256 I/Os)" json_eval \
		'd["jobs"][0]["read"]["total_ios"] == 256'

# no engine, no filename: the null device, said plainly
run bench --name=n --rw=read --size=1m
ok "no engine, no filename: runs" &&
	check "no engine, no filename: the report says it is the null device" \
		has "n: no --filename and no --ioengine: this job runs on mqblk's null device"
run bench --name=n --rw=read --size=1m --output-format=json
check "no engine, no filename, JSON: runs" test "$RC" = 0
check "JSON only: the note goes to stderr" \
	grep -q "runs on mqblk's null device" "$ERR"
run bench --name=n --ioengine=null --rw=read --size=1m
ok "ioengine=null: runs" &&
	check "ioengine=null asked for: no note" \
		bash -c "! grep -q 'null device' '$OUT'"

# bad input: one line, exit 1, nothing left behind
rm -f "$D"/*
run bench --name=a --ioengine=psync --rw=read --directory="$D"
failed "file engine, no size" '^mqblk: a: you need to specify size=$'
run bench --name=a --ioengine=psync --rw=read --size=2 --directory="$D"
failed "size below a block, as fio refuses it" \
	'^mqblk: a: size too small, must not be less than minimum block size: 2 < 4096$'
run bench --name=a --ioengine=psync --rw=read --size=2 --bs=1 --nrfiles=3 \
	--directory="$D"
failed "size spread over more files than it has bytes" \
	'^mqblk: a: size=2 over nrfiles=3 leaves each file no byte$'
run bench --name=a --ioengine=psync --rw=read --size=1m \
	--directory="$TMP/nonexistent"
failed "--directory that does not exist" \
	"directory=.*nonexistent is not a directory"
run bench --name=a --ioengine=psync --rw=read --size=1m --directory=/etc/hostname
failed "--directory that is a file" "/etc/hostname is not a directory"
run bench --name=a --ioengine=psync --rw=read --filesize=1p --directory="$D"
failed "--filesize larger than the disk" "laying out .* needs .* free"
check "--filesize too large: no file left" test -z "$(ls -A "$D")"
run bench --name=a --ioengine=psync --rw=read --size=1m --nrfiles=2 \
	--filename="$D/x"
failed "--nrfiles=2 with a --filename refused with the reason" \
	"nrfiles=2: more files than one are fio's jobname files"
run bench --name=a --ioengine=psync --rw=read --size=1m \
	--file_service_type=foo
failed "--file_service_type=foo" "failed parsing file_service_type=foo"
run bench --name=a --ioengine=psync --rw=read --filesize=0-2m
failed "--filesize range from 0" "filesize=0-2m: must be above 0"
run bench --name=a --filename=null --rw=read --size=1m --directory="$D"
failed "--directory with the null device" "directory is for files"
run bench --name=a --filename=null --rw=read --size=101%
failed "size=101%" "size=101%: the percentage must be 1 to 100"
run bench --name=a --filename=null --rw=read --unlink=1
failed "--unlink with the null device" "unlink is for files"
check "bad input: nothing left in the directory" test -z "$(ls -A "$D")"

# fio's list of files, filename=a:b: every clone does I/O to all of them,
# size= over their number from the start of each (the rest untouched),
# no size= all each holds; a block device's size is its own
L=$TMP/list
mkdir -p "$L/d"
# written_mib FILE: "blocks written in its first MiB, after it"
written_mib()
{
	python3 -c '
import sys
b, z = open(sys.argv[1], "rb").read(), bytes(4096)
nz = [b[i:i + 4096] != z for i in range(0, len(b), 4096)]
print(sum(nz[:256]), sum(nz[256:]))' "$1"
}
truncate -s 4m "$L/a" "$L/b"
run bench --name=l --filename="$L/a:$L/b" --rw=randwrite --bs=4k --size=2m \
	--output-format=json
ok "filename=a:b randwrite size=2m" &&
	check "filename=a:b: 2 MiB written" \
		json_eval 'd["jobs"][0]["write"]["io_bytes"] == 2097152' &&
	check "filename=a:b: all of a's first MiB, none after" \
		test "$(written_mib "$L/a")" = "256 0" &&
	check "filename=a:b: all of b's first MiB, none after" \
		test "$(written_mib "$L/b")" = "256 0"
if command -v "$FIO" >/dev/null; then
	rm -f "$L/a" "$L/b"
	truncate -s 4m "$L/a" "$L/b"
	"$FIO" --name=l --filename="$L/a:$L/b" --rw=randwrite --bs=4k \
		--size=2m --output=/dev/null
	check "filename=a:b: fio writes the same blocks" \
		test "$(written_mib "$L/a") $(written_mib "$L/b")" = "256 0 256 0"
fi
rm -f "$L/a" "$L/b"
truncate -s 1m "$L/a" && truncate -s 4m "$L/b"
run bench --name=l --filename="$L/a:$L/b" --rw=read --bs=4k \
	--output-format=json
ok "filename=a:b, no size=" &&
	check "filename=a:b, no size=: all both files hold (1 + 4 MiB)" \
		json_eval 'd["jobs"][0]["read"]["io_bytes"] == 5242880' &&
	check "filename=a:b: the option as given in the JSON" \
		json_eval "d['jobs'][0]['job options']['filename'] == '$L/a:$L/b'"
run bench --name=l --filename="$L/a:$L/b" --rw=read --bs=4k --size=4m
failed "filename=a:b, size= more than a file holds" \
	"^mqblk: l: size 4194304 over 2 files is 2097152 bytes of each past offset 0, and $L/a holds 1048576 bytes\$"
run bench --name=l --filename="$L/a:$L/b" --rw=read --bs=4k --size=2m \
	--numjobs=2 --output-format=json
ok "filename=a:b numjobs=2" &&
	check "filename=a:b numjobs=2: each clone 2 MiB, of the same files" \
		json_eval '[j["read"]["io_bytes"] for j in d["jobs"]] == [2097152] * 2' &&
	check "filename=a:b numjobs=2: no files of the clones' own" \
		test "$(find "$L" -maxdepth 1 -type f | wc -l)" = 2
# bare names in --directory, laid out; '\:' is a colon in a name
run bench --name=l --filename='x:y\:z' --directory="$L/d" --ioengine=psync \
	--rw=randwrite --bs=4k --size=2m --verify=crc32c --output-format=json
ok "filename='x:y\\:z' --directory, verify" &&
	check "filename='x:y\\:z': x and y:z laid out, 1 MiB each" \
		test "$(sizes "$L/d")" = "$(printf 'x:1048576\ny:z:1048576')" &&
	check "filename='x:y\\:z': verified" \
		json_eval 'd["jobs"][0]["error"] == 0 and d["jobs"][0]["read"]["io_bytes"] == 2097152'
run bench --name=l --filename="$L/a:$L/b" --nrfiles=3 --size=1m
failed "filename=a:b nrfiles=3" \
	"^mqblk: l: nrfiles=3, and filename '$L/a:$L/b' lists 2 files\$"
run bench --name=l --filename="$L/a:$L/a" --size=1m
failed "filename=a:a" "^mqblk: l: filename '$L/a:$L/a' lists $L/a twice\$"
run bench --name=l --filename="$L/a:" --size=1m
failed "filename=a:" "^mqblk: l: filename '$L/a:': file 2 of its list has no name\$"
# a path that exists as written is one file, colons and all (a by-path
# name: /dev/disk/by-path/pci-0000:00:1f.2-ata-1)
truncate -s 1m "$L/p:q"
run bench --name=l --filename="$L/p:q" --rw=read --bs=4k --output-format=json
ok "filename=DIR/p:q, which exists" &&
	check "filename=DIR/p:q: one file, read whole (1 MiB)" \
		json_eval 'd["jobs"][0]["read"]["io_bytes"] == 1048576'
# the options that become URI keys go on every file of the list
run bench --name=l --filename="$L/a:$L/b?scheduler=none" --rw=read \
	--size=1m --ioscheduler=mq-deadline
failed "filename=a:b?scheduler=none --ioscheduler=mq-deadline" \
	"conflicts with scheduler=none in filename '$L/b\?scheduler=none'"
# a driver's URI is one device, colons and all
run bench --name=l --filename='stripe:chunk=64k,members=2,member=null:size=1g' \
	--rw=read --size=1m
ok "stripe:...member=null:size=1g is one device"
# block devices: their sizes from the kernel (loop devices)
if [[ -e /dev/loop-control ]] && truncate -s 8m "$L/la" "$L/lb" &&
	LA=$(losetup -f --show "$L/la") && LB=$(losetup -f --show "$L/lb"); then
	run bench --name=l --filename="$LA:$LB" --rw=randwrite --bs=4k \
		--direct=1 --verify=crc32c --output-format=json
	ok "filename=LOOP1:LOOP2 randwrite verify" &&
		check "filename=LOOP1:LOOP2: 16 MiB written and verified" \
			json_eval 'd["jobs"][0]["write"]["io_bytes"] == 16777216 and d["jobs"][0]["read"]["io_bytes"] == 16777216 and d["jobs"][0]["error"] == 0'
	losetup -d "$LA" "$LB"
else
	skip "filename=LOOP1:LOOP2" "no loop devices here"
fi

# side by side with fio: the same files, the same layout lines
if command -v "$FIO" >/dev/null; then
	F=$TMP/fio M=$TMP/mq
	mkdir -p "$F" "$M"
	"$FIO" --name=side --ioengine=psync --rw=randread --size=2m \
		--numjobs=3 --directory="$F" >"$TMP/fio.out" 2>&1
	run bench --name=side --ioengine=psync --rw=randread --size=2m \
		--numjobs=3 --directory="$M" --eta=never
	ok "side by side: mqblk runs" &&
		check "side by side: the same file names and sizes as fio" \
			test "$(sizes "$F")" = "$(sizes "$M")" &&
		check "side by side: the same 'Laying out' lines as fio" \
			test "$(grep 'Laying out' "$TMP/fio.out")" = \
			"$(grep 'Laying out' "$OUT")"
else
	echo "SKIP side by side: no fio"
fi

finish
