# SPDX-License-Identifier: MIT
# kernel-rdma-target-job.sh - the guest job (busybox sh) of
# tests/interop/kernel-rdma-target.sh: mqblk's NVMe/RDMA host against the
# kernel's nvmet-rdma target in one guest, over soft-RoCE looped back to
# the guest's own address. For each target configuration in CONFIGS
# ("SRQ:INLINE[:RINV]" words, default "0:4096 1:16384:1": nvmet_rdma
# loaded with use_srq=SRQ, the port's param_inline_data_size INLINE, the
# host's remote_invalidate=RINV (default 0); the module and the configfs
# tree made again for each):
#   discover  mqblk discover -t rdma: the subsystem's entry, rdma TSAS
#   id-ctrl   the subsystem NQN, IOCCSZ = (64 + INLINE) / 16
#   id-ns     the namespace's size as set up (4 KiB blocks)
#   verify    randwrite 4k..128k (bsrange), crc32c, verified; the verbs
#             counters: a signalled SEND per command, one CQE for it and
#             one for its response, in-capsule writes (up to INLINE) and
#             keyed ones, nothing through a bounce buffer (the bench's
#             buffers are registered once); with RINV every keyed
#             command's window invalidated by the controller (SEND with
#             Invalidate) or by the host
#   read      randread 4k QD16, event-driven: completion events counted,
#             fewer than CQEs
#   cut       a verify running while the subsystem is unlinked from the
#             port (nvmet deletes the controller: the host sees the
#             disconnect) and linked back 3 s later: the host resets,
#             reconnects, resends; the verify is clean
# Event-driven throughout (one vCPU: no --hipri here).
. /job/rdma.sh
# shellcheck disable=SC1091 # written by the host script (iop_env)
[ -f /job/env ] && . /job/env
NQN=${NQN:-nqn.2026-12.io.mqblk:rdma-target}
SIZE_MB=${SIZE_MB:-64}
CONFIGS=${CONFIGS:-"0:4096 1:16384:1"}
VSIZE=${VSIZE:-8m}
CFG=/sys/kernel/config
OUT=/job/out

# counter NAME LOG: NAME=N from the bench's nvme-rdma line (0 if none;
# recvs=DONE/POSTED gives DONE)
counter() {
	v=$(grep -m1 '^ *nvme-rdma *:' "$2" | tr ' ;' '\n\n' | grep "^$1=" | head -n1 | cut -d= -f2)
	v=${v%%/*}
	echo "${v:-0}"
}

# bench_clean LOG RC: exit 0, err=0, no errors/timeouts/verify errors
# (else prints why, status 1)
bench_clean() {
	[ "$2" = 0 ] || { echo "exit status $2: $(grep -m2 '^mqblk' "$1" | tr '\n' ' ')"; return 1; }
	grep -q 'err= *0' "$1" || { echo "no job report"; return 1; }
	if grep -qE 'err= *[1-9]|(errors|timeouts|verify_errors)=[1-9]' "$1"; then
		echo "$(grep -oE 'err= *[1-9][0-9]*|(errors|timeouts|verify_errors)=[1-9][0-9]*' "$1" | sort -u | tr '\n' ' ')"
		return 1
	fi
	return 0
}

# target_down: the subsystem, port, null_blk device and nvmet_rdma gone,
# so the next configuration loads the module with its own use_srq.
target_down() {
	rm -f $CFG/nvmet/ports/1/subsystems/$NQN
	rmdir $CFG/nvmet/ports/1 2>/dev/null
	echo 0 >$CFG/nvmet/subsystems/$NQN/namespaces/1/enable 2>/dev/null
	rmdir $CFG/nvmet/subsystems/$NQN/namespaces/1 $CFG/nvmet/subsystems/$NQN 2>/dev/null
	echo 0 >$CFG/nullb/nullb0/power 2>/dev/null
	rmdir $CFG/nullb/nullb0 2>/dev/null
	i=0
	while [ $i -lt 50 ] && grep -q '^nvmet_rdma ' /proc/modules; do
		rmmod nvmet_rdma 2>/dev/null || sleep 0.1
		i=$((i + 1))
	done
	! grep -q '^nvmet_rdma ' /proc/modules
}

run_config() {
	srq=$1 inl=$2 rinv=${3:-0} t="srq$1-inline$2"
	[ "$rinv" = 1 ] && t="$t-rinv"
	U="nvme-rdma://$IP:4420/$NQN"
	# the bench's URIs: remote invalidation asked for or not
	B="$U?remote_invalidate=$rinv"
	step "$t: nvmet-rdma use_srq=$srq, inline $inl"
	NVMET_RDMA_OPTS="use_srq=$srq" nvmet_rdma_up "$NQN" "$SIZE_MB" 4420 "$inl" ||
		{ fail "$t-setup" "nvmet-rdma set-up failed"; return; }
	yn=N
	[ "$srq" = 1 ] && yn=Y
	[ "$(cat /sys/module/nvmet_rdma/parameters/use_srq)" = $yn ] ||
		fail "$t-setup" "nvmet_rdma's use_srq is not $yn"

	# ---- discover, id-ctrl, id-ns
	mqblk discover -t rdma -a "$IP" -s 4420 >$OUT/$t-disc.log 2>&1
	rc=$?
	if [ $rc = 0 ] && grep -q "^subnqn:  $NQN$" $OUT/$t-disc.log &&
		grep -q "^trtype:  rdma$" $OUT/$t-disc.log &&
		grep -q "^rdma_qptype: connected$" $OUT/$t-disc.log &&
		grep -q "^rdma_cms:    rdma-cm$" $OUT/$t-disc.log; then
		pass "$t-discover" "an rdma entry for $NQN at $IP:4420"
	else
		fail "$t-discover" "rc=$rc: $(head -c 300 $OUT/$t-disc.log)"
	fi
	mqblk id-ctrl "$U" >$OUT/$t-idctrl.log 2>&1
	rc=$?
	ioccsz=$(((64 + inl) / 16))
	if [ $rc = 0 ] && grep -q "^subnqn *: $NQN$" $OUT/$t-idctrl.log &&
		grep -qE "^ioccsz +: $ioccsz$" $OUT/$t-idctrl.log; then
		pass "$t-id-ctrl" "subnqn, ioccsz $ioccsz"
	else
		fail "$t-id-ctrl" "rc=$rc, want ioccsz $ioccsz: $(grep -E '^(subnqn|ioccsz)|mqblk' $OUT/$t-idctrl.log | tr '\n' ' ')"
	fi
	mqblk id-ns "$U" >$OUT/$t-idns.log 2>&1
	rc=$?
	nsze=$(grep -m1 -E '^nsze +:' $OUT/$t-idns.log | awk '{print $3}')
	want=$((SIZE_MB * 256))
	if [ $rc = 0 ] && [ -n "$nsze" ] && [ "$((nsze))" = "$want" ]; then
		pass "$t-id-ns" "nsze $nsze ($SIZE_MB MiB of 4 KiB blocks)"
	else
		fail "$t-id-ns" "rc=$rc nsze=$nsze, want $want: $(head -c 200 $OUT/$t-idns.log)"
	fi

	# ---- verify
	step "$t: verify"
	mqblk bench --eta=never --name=v --filename="$B&nr_io_queues=1" \
		--rw=randwrite --bsrange=4k-128k --size=$VSIZE --iodepth=8 \
		--verify=crc32c --do_verify=1 --verify_fatal=1 >$OUT/$t-verify.log 2>&1
	rc=$?
	l=$OUT/$t-verify.log
	if why=$(bench_clean $l $rc); then
		sends=$(counter sends $l) sig=$(counter signalled $l)
		rcv=$(counter recvs $l) cqes=$(counter cqes $l)
		incap=$(counter incapsule $l) keyed=$(counter keyed $l)
		bounced=$(counter bounced $l)
		rinvs=$(counter remote_inv $l) linvs=$(counter local_inv $l)
		want_inv=0
		[ "$rinv" = 1 ] && want_inv=$keyed
		if [ "$sends" -gt 0 ] && [ "$sig" = "$sends" ] && [ "$rcv" = "$sends" ] &&
			[ "$cqes" = $((sends + rcv + linvs)) ] && [ "$incap" -gt 0 ] &&
			[ "$keyed" -gt 0 ] && [ "$bounced" = 0 ] &&
			[ $((rinvs + linvs)) = "$want_inv" ]; then
			pass "$t-verify" "$VSIZE randwrite 4k-128k crc32c verified; sends=$sends signalled=$sig recvs=$rcv cqes=$cqes incapsule=$incap keyed=$keyed bounced=0 remote_inv=$rinvs local_inv=$linvs"
		else
			fail "$t-verify" "counters: $(grep -m1 'nvme-rdma *:' $l)"
		fi
	else
		fail "$t-verify" "$why"
	fi

	# ---- read
	step "$t: randread"
	mqblk bench --eta=never --name=r --filename="$B&nr_io_queues=1" \
		--rw=randread --bs=4k --size=${SIZE_MB}m --iodepth=16 \
		--runtime=3 --time_based >$OUT/$t-read.log 2>&1
	rc=$?
	l=$OUT/$t-read.log
	if why=$(bench_clean $l $rc); then
		ev=$(counter events $l) cqes=$(counter cqes $l)
		if [ "$ev" -gt 0 ] && [ "$ev" -le "$cqes" ]; then
			pass "$t-read" "randread 4k QD16 3 s: $(grep -m1 -oE 'IOPS=[^,]*' $l), cqes=$cqes events=$ev"
		else
			fail "$t-read" "events: $(grep -m1 'nvme-rdma *:' $l)"
		fi
	else
		fail "$t-read" "$why"
	fi

	# ---- cut: the port loses the subsystem mid-verify and gets it back
	step "$t: cut"
	nc0=$(dmesg | grep -c 'creating nvm controller')
	mqblk bench --eta=never --name=c \
		--filename="$B&nr_io_queues=1&reconnect_delay=1" \
		--rw=randwrite --bsrange=4k-16k --size=$VSIZE --iodepth=8 \
		--verify=crc32c --do_verify=1 --verify_fatal=1 \
		--rate_iops=150 >$OUT/$t-cut.log 2>&1 &
	bp=$!
	# the cut once the host is connected (nvmet logs its controller)
	# and writing
	i=0
	while [ $i -lt 300 ] && [ "$(dmesg | grep -c 'creating nvm controller')" -le "$nc0" ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 2
	nvmet_rdma_unlink "$NQN" || fail "$t-cut" "unlink failed"
	sleep 3
	nvmet_rdma_link "$NQN" || fail "$t-cut" "link failed"
	wait $bp
	rc=$?
	l=$OUT/$t-cut.log
	if why=$(bench_clean $l $rc); then
		if grep -q 'resetting the controller' $l; then
			pass "$t-cut" "subsystem unlinked 3 s mid-verify: reset, reconnected, verified clean ($(grep -c 'reconnect failed' $l) refused reconnects meanwhile)"
		else
			fail "$t-cut" "no reset seen (the cut missed the run?): $(tail -n 3 $l | tr '\n' ' ')"
		fi
	else
		fail "$t-cut" "$why: $(grep -m4 '^mqblk' $l | tr '\n' ' ' | head -c 400)"
	fi
	target_down || fail "$t-teardown" "nvmet_rdma did not unload"
}

step "rxe"
rxe_up || { fail rxe "soft-RoCE did not come up"; finish; exit 1; }
for cfg in $CONFIGS; do
	# shellcheck disable=SC2046 # SRQ INLINE [RINV], on purpose
	run_config $(echo "$cfg" | tr ':' ' ')
done
finish
