# SPDX-License-Identifier: MIT
# The guest half of `bench/seeds/run 001 --transport=rdma` (busybox sh in
# the QEMU guest of tests/interop/lib.sh, the share at /job): seed 001's
# matrix over NVMe/RDMA on soft-RoCE, `mqblk target` on rdma:$IP:4420 and
# `mqblk bench` (nvme-rdma://) in the same guest. For each mode in MODES
# (sig-mod sig-nomod nosig-mod nosig-nomod: the target's response SENDs
# signalled every one or one in $SIG, x CQ moderation $MOD on or off),
# each rw in RWS, jobs in JOBS and bs in SIZES: a fresh target, a run of
# RT seconds of 001-moderation.fio, the target's --stats (snapshots every
# 0.5 s, the last with all the I/O queues) into /job/out/TAG.stats and the
# bench's JSON into /job/out/TAG.out. With VERIFY=1 (the test), each mode
# first writes and verifies 8 MiB of 4..64 KiB blocks (crc32c) on a
# memory-backed namespace: a slot or buffer reused before its SEND or
# RDMA WRITE completed would show as a verify error.
. /job/rdma.sh
[ -f /job/env ] && . /job/env

MQ=/job/bin/mqblk
NQN=nqn.2026-12.io.mqblk:seed001
SOCK=/tmp/seed001.sock
: "${MODES:=sig-mod sig-nomod nosig-mod nosig-nomod}" "${RWS:=read write}"
: "${JOBS:=4 8}" "${SIZES:=512 4k 64k}" "${RT:=3}" "${SIG:=32}" "${MOD:=32,16}"

rxe_up && pass rxe-up || { fail rxe-up "$(rdma link show 2>&1)"; finish; exit; }

# target TAG ARGS...: a fresh target on rdma:$IP:4420 (one reactor,
# event-driven: two busy pollers on one vCPU would measure the tick)
target() {
	tag=$1
	shift
	rm -f $SOCK
	"$MQ" target --listen "rdma:$IP:4420" --nqn $NQN --allow-any-host \
		--reactors 1 --stats-socket $SOCK "$@" >/job/out/$tag.tgt.log 2>&1 &
	TPID=$!
	# up to 60 s: an ASan build in this emulated guest on a loaded
	# machine once took over the 10 s this was
	for _ in $(seq 600); do
		[ -S $SOCK ] && return 0
		kill -0 $TPID 2>/dev/null || break
		sleep 0.1
	done
	# one that is still starting goes: left, it took the port and the
	# stats socket of the next run's target
	kill -KILL $TPID 2>/dev/null
	wait $TPID 2>/dev/null
	fail "$tag-target" "not up in 60 s: $(tail -n 5 /job/out/$tag.tgt.log)"
	return 1
}

stop_target() {
	kill -INT $TPID 2>/dev/null
	wait $TPID
	rc=$?
	[ $rc = 0 ] || fail "$1-target-exit" "status $rc: $(tail -n 5 /job/out/$1.tgt.log)"
}

# snap TAG: the target's stats into TAG.stats if they list at least as
# many I/O queues and commands as the last kept (the queues go from the
# stats when the host disconnects, so the last snapshot before that is
# the one kept)
snap() {
	"$MQ" target --stats --stats-socket $SOCK >/tmp/snap 2>/dev/null || return 0
	set -- "$1" $(awk 'NR > 1 && $2 > 0 { q++; c += $5 } END { print q + 0, c + 0 }' /tmp/snap)
	if [ "$2" -ge "$NQ" ] && [ "$2" -gt 0 ] && [ "$3" -ge "$NC" ]; then
		NQ=$2
		NC=$3
		cp /tmp/snap /job/out/$1.stats
	fi
}

mode_args() {
	ARGS=
	case $1 in sig-*) ARGS="--rdma-signal-every 1" ;; nosig-*) ARGS="--rdma-signal-every $SIG" ;; esac
	case $1 in *-mod) ARGS="$ARGS --rdma-cq-moderation $MOD" ;; esac
}

for mode in $MODES; do
	mode_args $mode
	if [ "${VERIFY:-0}" = 1 ]; then
		tag=$mode-verify
		# shellcheck disable=SC2086 # ARGS: words
		if target $tag --ns null:size=64m,memory_backed=1 $ARGS; then
			if "$MQ" bench --name=v --filename="nvme-rdma://$IP:4420/$NQN?nr_io_queues=2" \
				--rw=randwrite --bsrange=4k-64k --size=8m --iodepth=32 --numjobs=2 \
				--offset_increment=8m --verify=crc32c --do_verify=1 --verify_fatal=1 \
				--group_reporting --output-format=json >/job/out/$tag.out 2>/job/out/$tag.err; then
				pass "$tag" "8 MiB x 2 jobs of 4..64 KiB writes verified ($ARGS)"
			else
				fail "$tag" "$(tail -n 5 /job/out/$tag.err)"
			fi
			stop_target $tag
		fi
	fi
	for rw in $RWS; do
		for jobs in $JOBS; do
			for bs in $SIZES; do
				tag=$mode-$rw-$bs-$jobs
				# shellcheck disable=SC2086
				target $tag --ns null:size=1g $ARGS || continue
				step "$tag ($ARGS)"
				# QD (the test): that iodepth instead of the
				# job file's 128
				if [ -n "${QD:-}" ]; then
					set -- --name=seed001 --iodepth=$QD --direct=1 --time_based \
						--group_reporting --thread
				else
					set -- /job/001-moderation.fio
				fi
				"$MQ" bench --filename="nvme-rdma://$IP:4420/$NQN?nr_io_queues=2" \
					--rw=$rw --bs=$bs --numjobs=$jobs --runtime=$RT \
					--output-format=json "$@" \
					>/job/out/$tag.out 2>/job/out/$tag.err &
				BPID=$!
				NQ=0
				NC=0
				while kill -0 $BPID 2>/dev/null; do
					snap $tag
					sleep 0.5
				done
				if wait $BPID; then
					pass "$tag"
				else
					echo "$tag" >>/job/out/failed
					fail "$tag" "$(head -n 3 /job/out/$tag.err)"
				fi
				stop_target $tag
			done
		done
	done
done
finish
