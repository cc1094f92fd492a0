#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Bad input to `mqblk bench`: one "mqblk: ..." line on stderr that names the
# offending token, nothing on stdout, exit status exactly 1; never a crash or
# a hang.
# shellcheck source-path=SCRIPTDIR disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# A valid short run; each case overrides or adds one option.
good=(--name=bad --filename=null --rw=randread --bs=4k --iodepth=4
	--runtime=1 --time_based)

# with OPT...: print good's options with each OPT (--key=val) replacing the
# one of the same key, or added; into the array "args".
with()
{
	local o key keep
	args=()
	for o in "${good[@]}"; do
		keep=1
		for key in "$@"; do
			[[ ${o%%=*} == "${key%%=*}" ]] && keep=0
		done
		((keep)) && args+=("$o")
	done
	args+=("$@")
}

# bad NAME TOKEN-ERE ARGS...: mqblk ARGS must be rejected as described above,
# the message matching TOKEN-ERE (case-insensitive).
bad()
{
	local name=$1 token=$2 why lines
	shift 2
	run "$@"
	why=$(status_problem)
	if [[ -z $why ]] && ((RC != 1)); then
		why="exit status $RC, want 1"
	fi
	if [[ -z $why && -s $OUT ]]; then
		why="wrote to stdout: $(head -c 120 "$OUT" | head -n 1)"
	fi
	lines=$(wc -l <"$ERR")
	if [[ -z $why ]] && [[ ! -s $ERR ]]; then
		why="nothing on stderr"
	elif [[ -z $why ]] && ((lines > 1)); then
		why="$lines lines on stderr, want 1: $(first_err)"
	fi
	if [[ -z $why ]] && ! grep -q '^mqblk: ' "$ERR"; then
		why="stderr does not start with 'mqblk: ': $(first_err)"
	fi
	if [[ -z $why ]] && ! grep -qiE -- "$token" "$ERR"; then
		why="message does not name '$token': $(first_err)"
	fi
	if [[ -n $why ]]; then
		fail "$name" "$why"
	else
		pass "$name"
	fi
}

# Control: the base options are good, so each failure below is the case's.
run bench "${good[@]}"
if ((RC == 0)) && [[ -s $OUT ]]; then
	pass "control-good-options-run"
else
	fail "control-good-options-run" "status $RC: $(first_err)"
fi

with --foo=1
bad unknown-option 'foo' bench "${args[@]}"
with --bs=4q
bad bs-bad-suffix '4q' bench "${args[@]}"
with --size=1x
bad size-bad-suffix '1x' bench "${args[@]}"
with --iodepth=0
bad iodepth-zero 'iodepth' bench "${args[@]}"
with --iodepth=99999999
bad iodepth-huge 'iodepth' bench "${args[@]}"
with --filename=null:blocksize=4096 --bs=1000
bad bs-not-multiple-of-device-block '1000' bench "${args[@]}"
with --size=2k --bs=4k
bad size-smaller-than-bs 'size|2k' bench "${args[@]}"
with --filename=nosuchdriver:x=1
bad uri-unknown-driver 'nosuchdriver' bench "${args[@]}"
with --filename=null:size=abc
bad uri-bad-size 'abc' bench "${args[@]}"
with --filename=null:bogus=1
bad uri-unknown-param 'bogus' bench "${args[@]}"
with --rw=sideways
bad rw-unknown 'sideways' bench "${args[@]}"
with --output-format=xml
bad output-format-unknown 'xml' bench "${args[@]}"
with --runtime=-1
bad runtime-negative 'runtime|-1' bench "${args[@]}"
with --numjobs=0
bad numjobs-zero 'numjobs' bench "${args[@]}"
with --cpus_allowed=100000
bad cpus-allowed-too-large 'CPU 100000 too large' bench "${args[@]}"
with --cpus_allowed=3-1
bad cpus-allowed-backwards 'runs backwards' bench "${args[@]}"
with --cpus_allowed=0,x
bad cpus-allowed-not-a-list 'not a list of CPUs' bench "${args[@]}"
with --cpus_allowed_policy=spread
bad cpus-allowed-policy 'spread' bench "${args[@]}"

# Job files.
printf '[global\nfilename=null\nrw=randread\n\n[job1]\nbs=4k\n' \
	>"$TMP/unterminated.fio"
bad jobfile-unterminated-section 'global|unterminated' \
	bench "$TMP/unterminated.fio"

printf '[job1]\nfilename=null\nrw=randread\nnosuchkey=1\nruntime=1\ntime_based\n' \
	>"$TMP/unknown-key.fio"
bad jobfile-unknown-option 'nosuchkey' bench "$TMP/unknown-key.fio"

: >"$TMP/empty.fio"
bad jobfile-empty 'job|empty' bench "$TMP/empty.fio"

bad jobfile-missing 'no-such-job\.fio' bench "$TMP/no-such-job.fio"

finish
