# SPDX-License-Identifier: MIT
# The guest half of kernel-rdma-host.sh (the job busybox sh runs in the
# guest, the share at /job): `mqblk target` on an rdma port over
# soft-RoCE (rxe loopback on the guest's own address), and the Linux
# kernel's nvme-rdma host against it: discovery, connect with 1 and 2 I/O
# queues, id-ctrl/id-ns, fio crc32c verify of mixed 4..128 KiB writes
# then reads, ext4 (mkfs, mount, write, unmount, fsck clean), the raw
# bad-input client (rejects, bad Connects, MDTS, a bad key, a flood of
# connects, a silent host dropped after KATO), a clean disconnect; the
# target's RDMA counters must move and it must exit 0. Then selective
# signalling with software CQ moderation and the reactor's SRQ, and busy
# polling after the RDMA listener went down and up (mqblk ctl).
# One line per check (guest/rdma.sh's pass and fail); /job/bin has mqblk
# and rdma-bad, /job/lib their libraries.
. /job/rdma.sh
[ -f /job/env ] && . /job/env

MQ=/job/bin/mqblk
NQN=nqn.2026-12.io.mqblk:rdma-interop
SOCK=/tmp/mqblk-stats.sock
CTL=/tmp/mqblk-ctl.sock
TLOG=/job/out/target.log
VERIFY=${RDMA_VERIFY_SIZE:-8M}
: >/job/out/target-all.log

# stat_sum COLUMN...: the columns summed over the target's I/O queues
stat_sum() {
	"$MQ" target --stats --stats-socket $SOCK | awk -v want="$*" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i
			  n = split(want, w, " "); next }
		$col["qid"] > 0 { for (k = 1; k <= n; k++) sum[k] += $col[w[k]] }
		END { for (k = 1; k <= n; k++) printf "%s%d", (k > 1 ? " " : ""), sum[k]
		      print "" }'
}

nvme_dev() {
	for _ in $(seq 100); do
		d=$(ls /sys/block | grep -m1 '^nvme[0-9]*n1$') && [ -b /dev/$d ] &&
			{ echo $d; return 0; }
		sleep 0.1
	done
	return 1
}

# connect NR_IO: the kernel host with NR_IO I/O queues; sets DEV, CTRL
connect() {
	DEV= CTRL=
	if ! nvme connect -t rdma -a "$IP" -s 4420 -n $NQN -i "$1" -k 5 >/tmp/connect.out 2>&1; then
		fail "connect-$1" "$(cat /tmp/connect.out; dmesg | tail -n 20)"
		return 1
	fi
	DEV=$(nvme_dev) || { fail "connect-$1" "no namespace appeared"; return 1; }
	CTRL=${DEV%n1}
	qc=$(cat /sys/class/nvme/$CTRL/queue_count)
	tr=$(cat /sys/class/nvme/$CTRL/transport)
	if [ "$qc" = $(($1 + 1)) ] && [ "$tr" = rdma ]; then
		pass "connect-$1 ($DEV, transport $tr, queue_count $qc)"
	else
		fail "connect-$1" "transport $tr, queue_count $qc, want rdma and $(($1 + 1))"
	fi
}

disconnect() {
	if nvme disconnect -n $NQN >/tmp/disc.out 2>&1 &&
		grep -q "disconnected 1 controller" /tmp/disc.out; then
		pass "disconnect ($1)"
	else
		fail "disconnect ($1)" "$(cat /tmp/disc.out)"
	fi
}

identify() {
	nvme id-ctrl /dev/$CTRL >/tmp/idc 2>&1
	nvme id-ns /dev/$DEV >/tmp/idn 2>&1
	subnqn=$(awk '$1 == "subnqn" { print $3 }' /tmp/idc)
	mdts=$(awk '$1 == "mdts" { print $3 }' /tmp/idc)
	sgls=$(awk '$1 == "sgls" { print $3 }' /tmp/idc)
	nsze=$(awk '$1 == "nsze" { print $3 }' /tmp/idn)
	# 256 MiB of 512-byte blocks; SGLS bit 2: keyed SGLs
	if [ "$subnqn" = $NQN ] && [ "$mdts" = 8 ] && [ "$((nsze))" = 524288 ] &&
		[ $((sgls & 4)) = 4 ]; then
		pass "id-ctrl/id-ns (mdts $mdts, sgls $sgls, nsze $nsze)"
	else
		fail id-ctrl "subnqn '$subnqn' mdts '$mdts' sgls '$sgls' nsze '$nsze'"
	fi
}

verify() {
	if fio --name=verify --filename=/dev/$DEV --ioengine=libaio --direct=1 \
		--rw=randwrite --bsrange=4k-128k --size=$VERIFY --iodepth=16 \
		--verify=crc32c --verify_fatal=1 --do_verify=1 \
		--output=/tmp/fio.out >/dev/null 2>&1; then
		pass "fio crc32c verify, $VERIFY of 4..128 KiB writes then reads ($1)"
	else
		fail "fio verify ($1)" "$(tail -n 20 /tmp/fio.out; dmesg | tail -n 10)"
	fi
}

ext4() {
	modprobe ext4 2>/dev/null
	mkdir -p /mnt/r
	if mkfs.ext4 -q -F /dev/$DEV >/tmp/mkfs.out 2>&1 &&
		mount -t ext4 /dev/$DEV /mnt/r &&
		dd if=/dev/urandom of=/mnt/r/f bs=64k count=64 2>/dev/null &&
		sum1=$(md5sum </mnt/r/f) && sync && umount /mnt/r &&
		e2fsck -fn /dev/$DEV >/tmp/fsck.out 2>&1 &&
		mount -t ext4 /dev/$DEV /mnt/r && sum2=$(md5sum </mnt/r/f) &&
		umount /mnt/r && [ "$sum1" = "$sum2" ]; then
		pass "ext4: mkfs, mount, write 4 MiB, unmount, fsck clean, read back"
	else
		fail ext4 "$(cat /tmp/mkfs.out /tmp/fsck.out 2>/dev/null; dmesg | tail -n 10)"
		umount /mnt/r 2>/dev/null
	fi
}

step rxe
rxe_up || { fail rxe "no soft-RoCE"; finish; exit 1; }
step target
# start_target NAME [OPTIONS...]: mqblk target on rdma:$IP:4420
start_target() {
	name=$1
	shift
	: >$TLOG
	"$MQ" target --listen rdma:$IP:4420 --nqn $NQN \
		--ns null:size=256m,memory_backed=1 --ns null:size=64m,memory_backed=1 \
		--allow-any-host --stats-socket $SOCK --ctl $CTL -v "$@" >>$TLOG 2>&1 &
	TPID=$!
	for _ in $(seq 100); do
		grep -q "ready" $TLOG && break
		sleep 0.1
	done
	if grep -q ready $TLOG; then pass "target up on rdma:$IP:4420 ($name)"; else
		fail target "$(cat $TLOG)"
		finish
		exit 1
	fi
}

# stop_target NAME: SIGINT; it must exit 0
stop_target() {
	step "stop ($1)"
	kill -INT $TPID
	wait $TPID
	rc=$?
	[ $rc = 0 ] && pass "target exits 0 ($1)" ||
		fail "target exit ($1)" "status $rc: $(tail -n 20 $TLOG)"
	cat $TLOG >>/job/out/target-all.log
}

start_target event-driven
modprobe nvme-rdma
step discover
nvme discover -t rdma -a "$IP" -s 4420 >/tmp/disc 2>&1
if grep -q "trtype: *rdma" /tmp/disc && grep -q "subnqn: *$NQN" /tmp/disc &&
	grep -q "rdma_prtype: *not specified" /tmp/disc &&
	grep -q "rdma_qptype: *connected" /tmp/disc &&
	grep -q "rdma_cms: *rdma-cm" /tmp/disc; then
	pass "discover: an rdma entry for $NQN (connected, not specified, rdma-cm)"
else
	fail discover "$(cat /tmp/disc)"
fi

step "connect 1"
if connect 1; then
	identify
	verify "1 I/O queue"
	set -- $(stat_sum rdma_recvs rdma_sends rdma_signalled rdma_cqes rdma_events rdma_reads rdma_read_bytes rdma_writes rdma_write_bytes)
	if [ "$1" -gt 0 ] && [ "$2" -gt 0 ] && [ "$3" = "$2" ] && [ "$4" -gt 0 ] &&
		[ "$5" -gt 0 ] && [ "$6" -gt 0 ] && [ "$7" -gt 0 ] && [ "$8" -gt 0 ] &&
		[ "$9" -gt 0 ]; then
		pass "I/O queue counters move: recvs $1 sends $2 signalled $3 cqes $4 events $5 reads $6 ($7 B) writes $8 ($9 B)"
	else
		fail counters "recvs $1 sends $2 signalled $3 cqes $4 events $5 reads $6 ($7 B) writes $8 ($9 B)"
	fi
	disconnect "1 I/O queue"
fi

step "connect 2"
if connect 2; then
	ext4
	verify "2 I/O queues"
	busy=$("$MQ" target --stats --stats-socket $SOCK |
		awk 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		     $col["qid"] > 0 && $col["rdma_recvs"] > 0 { n++ } END { print n + 0 }')
	[ "$busy" = 2 ] && pass "both I/O queues carried commands" ||
		fail "2 I/O queues" "$busy of them carried commands"
	disconnect "2 I/O queues"
fi

if [ -x /job/bin/rdma-bad ]; then
	step "bad input"
	/job/bin/rdma-bad "$IP" 4420 $NQN >/tmp/bad.out 2>&1
	rc=$?
	sed 's/^/# rdma-bad: /' /tmp/bad.out
	if [ $rc = 0 ]; then pass "bad input ($(grep -c '^ok' /tmp/bad.out) checks)"; else
		fail "bad input" "$(grep '^not ok' /tmp/bad.out | tr '\n' ';')"
	fi
	if grep -q "keep-alive timeout" $TLOG; then
		pass "keep-alive: a silent host's controller dropped after KATO"
	else
		fail keep-alive "no keep-alive timeout in the target's log"
	fi
	rej=$(grep -c "refused" $TLOG)
	ctlrej=$("$MQ" ctl $CTL stats | awk '$1 == "port" && $2 == 1 {
		for (i = 3; i < NF; i++) if ($i == "rejects") print $(i + 1) }')
	[ "$rej" -ge 18 ] && [ "$ctlrej" = "$rej" ] &&
		pass "$rej refused connects, logged and counted on the port (ctl stats)" ||
		fail rejects "$rej refused connects logged, ctl stats says '$ctlrej'"
fi

stop_target event-driven

# Selective signalling (one SEND in 8), software CQ moderation (soft-RoCE
# has none: 16 completions or 200 us) and the reactor's SRQ: the same
# verify, fewer signalled SENDs than SENDs, moderation timers firing.
step "selective signalling, moderation, SRQ"
start_target "signal 1 in 8, moderation 16,200, srq" \
	--rdma-signal-every 8 --rdma-cq-moderation 16,200 --rdma-srq
if connect 1; then
	verify "selective signalling, moderation, SRQ"
	set -- $(stat_sum rdma_sends rdma_signalled rdma_cqes rdma_events rdma_mod_timers)
	# one in 8, and every SEND of a stopping target: at most 1/8 + 1
	if [ "$1" -gt 0 ] && [ $(($2 * 8)) -le $(($1 + 8)) ] && [ "$5" -gt 0 ] &&
		[ "$4" -lt "$3" ]; then
		pass "sends $1, signalled $2, cqes $3, events $4, moderation timers $5"
	else
		fail "selective/moderated counters" "sends $1, signalled $2, cqes $3, events $4, moderation timers $5"
	fi
	grep -q "the reactor's SRQ, moderation software" $TLOG &&
		pass "queues on the reactor's SRQ with software moderation" ||
		fail srq "$(grep 'rdma queue' $TLOG)"
	disconnect "selective signalling"
fi
stop_target "signal 1 in 8"

# Busy polling (one reactor: the CQs polled every pass, no completion
# channel), and the RDMA listener closed and opened again by the control
# socket (port-down, port-up) before the host comes; the target stopped
# while the host is still connected.
step "busy-poll, port down and up"
start_target "busy-poll" --busy-poll --reactors 1
if "$MQ" ctl $CTL port-down 1 >/tmp/ctl.out 2>&1 &&
	! nvme discover -t rdma -a "$IP" -s 4420 >/dev/null 2>&1 &&
	"$MQ" ctl $CTL port-up 1 >>/tmp/ctl.out 2>&1; then
	pass "ctl port-down refuses RDMA connects, port-up takes them again"
else
	fail "port down/up" "$(cat /tmp/ctl.out)"
fi
if connect 1; then
	RDMA_V=$VERIFY
	VERIFY=4M
	verify "busy-poll"
	VERIFY=$RDMA_V
	set -- $(stat_sum rdma_cqes rdma_events)
	[ "$1" -gt 0 ] && [ "$2" = 0 ] &&
		pass "busy-poll: $1 CQEs polled, no completion events" ||
		fail busy-poll "cqes $1 events $2"
fi
# stopped with the host still connected: the target closes its queues
# and exits 0; the host is then told to give up
stop_target "busy-poll, host connected"
[ -n "$DEV" ] && nvme disconnect -n $NQN >/dev/null 2>&1
finish
