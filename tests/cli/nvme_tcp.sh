#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The NVMe/TCP host driver (nvme-tcp:// URIs) against mqblk's own target
# on 127.0.0.1: data verified at in-capsule, R2T and multi-H2CData sizes,
# with and without digests, 1 and 4 I/O queues, polled; bad URIs and
# refused Connects give one line and exit 1; a target that goes away
# mid-run and comes back is reconnected to with the data intact; one that
# stays away fails the I/O after ctrl_loss_tmo, no hang. Requests past
# MDTS, or past the target's device's limit, are split and verify.
# Usage: bash tests/cli/nvme_tcp.sh build/mqblk
source "$(dirname "$0")/lib.sh"

NQN=nqn.2026-12.io.mqblk:host-test
HOST=nqn.2026-12.io.mqblk:host-a

truncate -s 256M "$TMP/ns2.img"
start_target --ns null:size=256m,memory_backed=1 --ns "$TMP/ns2.img" \
	--allow-host "$HOST" || {
	fail setup "no target"
	finish
}

# Data: write then verify, at sizes that go in-capsule (4k), through one
# R2T (64k) and through R2T split into several H2CData PDUs (1m > 128 KiB
# MAXH2CDATA); two jobs on two queues, each in its own 16 MiB (overlapping
# concurrent writes would make either job's verify meaningless).
for opts in "" "hdr_digest=1&data_digest=1" "nr_io_queues=4"; do
	for bs in 4k 64k 1m; do
		name="verify bs=$bs ${opts:-plain}"
		run bench --filename="$(uri "$opts")" --rw=randwrite --bs=$bs \
			--size=16m --verify=crc32c --do_verify=1 --iodepth=8 \
			--group_reporting --name=a --offset=0 --name=b --offset=16m
		ok "$name" && check "$name: no verify errors" has "verify_errors=0"
	done
done

# Requests past the controller's MDTS (mqblk's target: 1 MiB) are split
# by the host's core into pieces it takes, as the kernel's block layer
# splits to max_hw_sectors: a 4k-2m mix writes and verifies, no io_u error.
run bench --name=big --filename="$(uri)" --rw=randwrite --bsrange=4k-2m \
	--size=32m --verify=crc32c --do_verify=1 --iodepth=8
ok "verify bsrange=4k-2m, past MDTS" &&
	check "bsrange=4k-2m: no verify errors" has "verify_errors=0"
run bench --name=bigp --filename="$(uri)" --hipri --rw=randwrite \
	--bsrange=4k-2m --size=32m --verify=crc32c --do_verify=1 --iodepth=8
ok "verify bsrange=4k-2m, past MDTS, --hipri (pieces polled)" &&
	check "bsrange=4k-2m --hipri: no verify errors" has "verify_errors=0" &&
	check "bsrange=4k-2m --hipri: completions were polled" has_re "polled=[1-9]"

# The second namespace (a file) by nsid=, and the data is in the file.
run bench --name=f --filename="$(uri nsid=2)" --rw=write --bs=128k \
	--size=1m --offset=4m --verify=crc32c --do_verify=1
ok "nsid=2 write+verify"
check "nsid=2: the data is in the target's file" \
	test "$(dd if="$TMP/ns2.img" bs=1M skip=4 count=1 status=none | tr -d '\0' | wc -c)" -gt 0

# Polled (hipri) and the other completion policies
run bench --name=p --filename="$(uri)" --hipri --rw=randread --bs=4k \
	--iodepth=4 --runtime=1 --time_based
ok "read, --hipri (the submitter polls its socket)"
check "--hipri: completions were polled" has_re "polled=[1-9]"
run bench --name=p --filename="$(uri complete=remote)" --rw=randread \
	--bs=4k --iodepth=4 --runtime=1 --time_based
ok "read, complete=remote (interrupt threads take the sockets)"
check "complete=remote: completions were remote" has_re "remote=[1-9]"
# R2T while the send side may still be busy with the request: with
# complete=remote the poll thread handles each R2T while a submitting
# thread sends; the R2T's checks of the request's send state were made
# without the send lock (a data race under TSan, and a spurious "R2T out
# of range" when the R2T came before the sender's bookkeeping). Four jobs
# on their own 8 MiB, 4k-256k writes (in-capsule, one R2T, several
# H2CData), verified.
run_bg bench --name=r2t --filename="$(uri complete=remote)" --rw=write \
	--bsrange=4k-256k --numjobs=4 --iodepth=8 --size=8m \
	--offset_increment=8m --verify=crc32c --do_verify=1 --group_reporting
wait "$BPID" || RC=$?
ok "R2T vs send: 4 jobs, complete=remote, 4k-256k writes verified" &&
	check "R2T vs send: no verify errors" has "verify_errors=0"

# flush, trim, write zeroes go through too (fio's trim and fsync)
run bench --name=t --filename="$(uri)" --rw=randtrim --bs=64k --size=8m
ok "randtrim (Dataset Management)"
run bench --name=s --filename="$(uri)" --rw=write --bs=64k --size=8m --fsync=4
ok "write with fsync=4 (Flush)"

# Bad input: one line, exit 1
run bench --name=x --filename="nvme-tcp://127.0.0.1:$PORT/$NQN" --rw=read --bs=4k --size=1m
failed "a host the target does not allow" "refused: status 0x184 \\(host not allowed\\)"
run bench --name=x --filename="nvme-tcp://127.0.0.1:$PORT/nqn.2026-12.io.mqblk:none?hostnqn=$HOST" --rw=read --bs=4k --size=1m
failed "an unknown subsystem" "refused: status 0x182 \\(invalid parameter: subsystem NQN\\)"
run bench --name=x --filename="nvme-tcp://127.0.0.1/$NQN" --rw=read --bs=4k --size=1m
failed "no port in the URI" "no port"
run bench --name=x --filename="$(uri nsid=9)" --rw=read --bs=4k --size=1m
failed "a namespace that does not exist" "namespace 9"
run bench --name=x --filename="$(uri bogus=1)" --rw=read --bs=4k --size=1m
failed "an unknown URI key" "unknown parameter 'bogus'"
DEAD=$(free_port)
run bench --name=x --filename="nvme-tcp://127.0.0.1:$DEAD/$NQN" --rw=read --bs=4k --size=1m
failed "nothing listening" "Connection refused"

# The target is killed and comes back on the same port mid-run: the host
# holds what is outstanding, reconnects (reconnect_delay after the loss,
# then every reconnect_delay), sends it again once, and the job's verify
# of everything it wrote passes (the namespace is the file, which
# outlives the target).
restart_target()
{
	: >"$TLOG"
	"$MQBLK" target --listen "127.0.0.1:$PORT" --nqn "$NQN" \
		--stats-socket "$TMP/stats.sock" \
		--ns null:size=256m,memory_backed=1 --ns "$TMP/ns2.img" \
		--allow-host "$HOST" >"$TLOG" 2>&1 </dev/null &
	TPID=$!
}
run_bg bench --name=back --filename="$(uri "nsid=2&reconnect_delay=1")" \
	--rw=randwrite --bs=4k --size=256m --iodepth=4 --verify=crc32c \
	--do_verify=1
sleep 0.5
kill_target
sleep 1.5
restart_target
wait "$BPID" || RC=$?
if grep -q "reconnected" "$ERR"; then
	pass "target restarted mid-run: the host reconnected"
else
	fail "target restarted mid-run: the host reconnected" "$(first_err)"
fi
# as the kernel's error recovery: the first attempt after reconnect_delay
# (an attempt at once would find a target going away still there)
check "target restarted: the first attempt waits reconnect_delay" \
	test "$(grep -m1 -oE 'reconnecting in [0-9]+ s|reconnect(ed| failed)' "$ERR")" = "reconnecting in 1 s"
# stderr has the reconnect lines, so not ok(): exit 0 and no verify error
check "target restarted: the job completes (exit 0)" test "$RC" = 0
check "target restarted: no verify error" has "verify_errors=0"

# In-capsule data follows the port's inline_data_size (IOCCSZ): a write up
# to it goes in the capsule, a larger one through R2T. The target's r2ts
# column counts R2Ts, read while a job runs (a queue's row goes with it).
# stats_sum COLUMN...: the I/O queues' (qid > 0) sums of the named
# `mqblk target --stats` columns, found by the header's names ("queues"
# counts the rows)
stats_sum()
{
	"$MQBLK" target --stats --stats-socket "$TMP/stats.sock" |
		awk -v want="$*" '
			NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i
				  n = split(want, w, " "); next }
			$col["qid"] > 0 { for (k = 1; k <= n; k++)
					  sum[k] += w[k] == "queues" ? 1 : $col[w[k]] }
			END { for (k = 1; k <= n; k++)
				      printf "%s%d", (k > 1 ? " " : ""), sum[k]
			      print "" }'
}
# inline_check SIZE BS: a target with --inline-data-size SIZE, BS writes
inline_check()
{
	local name="inline-data-size=$1, bs=$2"

	stop_target
	start_target --inline-data-size "$1" --ns null:size=256m,memory_backed=1 \
		--allow-host "$HOST"
	run id-ctrl "$(uri)"
	ok "$name: id-ctrl" &&
		check "$name: ioccsz is (64 + $1) / 16" has_re \
			"^ioccsz    : $(((64 + $1) / 16))\$"
	run_bg bench --name=ic --filename="$(uri)" --rw=randwrite --bs="$2" \
		--size=16m --iodepth=4 --runtime=3 --time_based
	# once the target has taken writes (the device may take a while to
	# open on a loaded machine), and a little more
	wait_writes 16 200
	sleep 0.3
	R2TS=$(stats_sum r2ts)
	wait "$BPID" || RC=$?
	check "$name: the run completes" test "$RC" = 0
	run bench --name=icv --filename="$(uri)" --rw=randwrite --bs="$2" \
		--size=16m --iodepth=4 --verify=crc32c --do_verify=1
	ok "$name: write and verify" &&
		check "$name: no verify errors" has "verify_errors=0"
}
inline_check 131072 128k
check "inline-data-size=131072: 128k writes go in the capsule, no R2T" \
	test "$R2TS" = 0
inline_check 131072 256k
check "inline-data-size=131072: 256k writes need R2Ts ($R2TS)" \
	test "$R2TS" -gt 0
inline_check 0 4k
check "inline-data-size=0: even 4k writes need R2Ts ($R2TS)" \
	test "$R2TS" -gt 0
# Response coalescing: completions wait for --coalesce-count of them or
# --coalesce-usecs, then go in one send. Timer completions (50 us apart
# at random) go out as they come without it (how many share a send then
# depends on how often the loaded machine runs the target's reactor: a
# stalled reactor batches on its own, the last CI run saw 0.117 sends per
# completion, so that ratio is shown, not compared); with it the sends per
# completion are at most 1/16 and the target counts the flushes it held.
# Counted, not timed.
# sends_per_cqe: the I/O queues' sends/cqes (and held) mid-run
sends_per_cqe()
{
	local s c h

	read -r s c h <<<"$(stats_sum sends cqes held)"
	if ((c)); then
		awk -v s="$s" -v c="$c" -v h="$h" \
			'BEGIN { printf "%.3f %d %d\n", s / c, c, h }'
	else
		echo "none 0 0"
	fi
}
coalesce_run()
{
	stop_target
	start_target --ns null:size=256m,irqmode=2,completion_nsec=50000 \
		--allow-host "$HOST" "$@"
	# long enough for any machine, and ended (SIGINT) once measured: a
	# 4 s run on a loaded machine once ended before 2,000 completions
	# were seen mid-run (its device was slow to open), and the stats had
	# no queue left to read
	run_bg bench --name=co --filename="$(uri)" --rw=randread --bs=4k \
		--iodepth=16 --runtime=60 --time_based
	# mid-run, once 2,000 completions went out (counted, not slept)
	for _ in $(seq 1000); do
		sleep 0.05
		read -r RATIO CQES HELD <<<"$(sends_per_cqe)"
		((CQES >= 2000)) && break
		kill -0 "$BPID" 2>/dev/null || break
	done
	# to mqblk itself: timeout (BPID) would pass it on to its whole
	# group too, and a second SIGINT takes its default action
	kill -INT "$(pgrep -P "$BPID" -x mqblk)" 2>/dev/null
	wait "$BPID" || RC=$?
	# 128: ended by that SIGINT, as fio ends on one
	if ((RC && RC != 128)); then
		fail "coalescing $*: the run completes" "exit $RC: $(tail -n 3 "$ERR" | tr "\n" " ")"
	else
		pass "coalescing $*: the run completes"
	fi
}
coalesce_run
BASE_RATIO=$RATIO
check "no coalescing: nothing held ($HELD)" test "$HELD" = 0
coalesce_run --coalesce-count 16 --coalesce-usecs 5000
check "coalesce 16/5000us: flushes were held ($HELD)" test "$HELD" -gt 0
check "coalesce 16/5000us: sends per completion $RATIO <= 1/16 + 10% ($BASE_RATIO without, $CQES completions)" \
	python3 -c "import sys; sys.exit(not float('$RATIO') <= 1.1 / 16)"
# fewer in flight than the count: each completion waits out the time
stop_target
start_target --ns null:size=256m,memory_backed=1 --allow-host "$HOST" \
	--coalesce-count 32 --coalesce-usecs 200
run bench --name=cov --filename="$(uri)" --rw=randwrite --bs=4k --size=4m \
	--iodepth=4 --verify=crc32c --do_verify=1
ok "coalesce 32/200us at QD4: write and verify" &&
	check "coalesce 32/200us at QD4: no verify errors" has "verify_errors=0"
run target --listen 127.0.0.1:1 --nqn "$NQN" --ns null: --coalesce-count 8
failed "--coalesce-count without --coalesce-usecs" \
	"--coalesce-count and --coalesce-usecs go together"
run target --listen 127.0.0.1:1 --nqn "$NQN" --ns null: --coalesce-count 1 \
	--coalesce-usecs 5
failed "--coalesce-count 1" "--coalesce-count: \"1\" is out of range"

# MSG_ZEROCOPY sends (reads' C2HData of 16 KiB and more): data intact;
# signalled reads the error queue after each zero-copy send (a pass per
# send, whether or not the kernel is done with it yet); unsignalled only
# when the kernel flags a notification (EPOLLERR), so each pass finds at
# least one, and one read covers all sends since (the kernel merges unread
# ones). How many notifications a pass finds depends on timing (under
# TSan nearly one per send), so the tests assert the passes, not the
# ratio. On loopback the kernel copies every one (zc_copied), as it says.
zc_run()
{
	stop_target
	start_target --ns null:size=256m,memory_backed=1 --allow-host "$HOST" \
		--zerocopy "$1"
	run bench --name=zcw --filename="$(uri)" --rw=write --bs=64k \
		--size=16m --iodepth=8
	ok "zerocopy $1: fill"
	run_bg bench --name=zc --filename="$(uri)" --rw=randread --bs=64k \
		--size=16m --iodepth=8 --runtime=2 --time_based
	sleep 1.2
	read -r ZC_SENDS ZC_POLLS ZC_READS ZC_COPIED ZC_QUEUES <<<"$(stats_sum zc_sends zc_polls zc_reads zc_copied queues)"
	wait "$BPID" || RC=$?
	check "zerocopy $1: the run completes" test "$RC" = 0
	run bench --name=zcv --filename="$(uri)" --rw=randwrite --bs=64k \
		--size=16m --iodepth=8 --verify=crc32c --do_verify=1
	ok "zerocopy $1: write and verify" &&
		check "zerocopy $1: no verify errors" has "verify_errors=0"
}
zc_run signalled
# the stats are read mid-run: a queue may be between its send and the
# pass after it, or inside a pass, so each side allows one per queue
check "zerocopy signalled: zero-copy sends ($ZC_SENDS), notifications read ($ZC_READS)" \
	test "$ZC_SENDS" -gt 0 -a "$ZC_READS" -gt 0
check "zerocopy signalled: loopback copied them ($ZC_COPIED of $ZC_SENDS)" \
	test "$ZC_COPIED" -gt 0
check "zerocopy signalled: a pass over the error queue per send ($ZC_POLLS passes, $ZC_SENDS sends, $ZC_QUEUES queues)" \
	test $((ZC_POLLS + ZC_QUEUES)) -ge "$ZC_SENDS"
zc_run unsignalled
check "zerocopy unsignalled: zero-copy sends ($ZC_SENDS), notifications read ($ZC_READS)" \
	test "$ZC_SENDS" -gt 0 -a "$ZC_READS" -gt 0
check "zerocopy unsignalled: every pass finds a notification ($ZC_POLLS passes, $ZC_READS read, $ZC_QUEUES queues)" \
	test "$ZC_POLLS" -le $((ZC_READS + ZC_QUEUES))
run target --listen 127.0.0.1:1 --nqn "$NQN" --ns null: --zerocopy sometimes
failed "--zerocopy with a bad mode" \
	"--zerocopy: \"sometimes\": expected off, signalled or unsignalled"

# max_queue_size: CAP.MQES + 1 and MAXCMD; the host sizes its queues to it
stop_target
start_target --max-queue-size 16 --ns null:size=256m,memory_backed=1 \
	--allow-host "$HOST"
run id-ctrl "$(uri)"
ok "max-queue-size=16: id-ctrl" &&
	check "max-queue-size=16: maxcmd 16" has_re "^maxcmd    : 16$"
run bench --name=mq --filename="$(uri)" --rw=randwrite --bs=4k --size=4m \
	--iodepth=64 --verify=crc32c --do_verify=1
ok "max-queue-size=16: iodepth 64 through 16-entry queues" &&
	check "max-queue-size=16: no verify errors" has "verify_errors=0"
run target --listen 127.0.0.1:1 --nqn "$NQN" --ns null: \
	--inline-data-size 131073
failed "--inline-data-size past 128 KiB" \
	"--inline-data-size: \"131073\" is out of range \\(0..131072\\)"

# A busy-polling target (SPDK's style) and a polling host
stop_target
start_target --busy-poll --ns null:size=256m,memory_backed=1 \
	--ns "$TMP/ns2.img" --allow-host "$HOST"
run bench --name=bp --filename="$(uri)" --hipri --rw=randwrite --bs=64k \
	--size=16m --verify=crc32c --do_verify=1 --iodepth=4
ok "--busy-poll target, --hipri host: write and verify" &&
	check "--busy-poll: no verify error" has "verify_errors=0"

# A namespace slower than the host's timeout: each first timeout sends an
# Abort (mqblk's target, as nvmet, aborts nothing), the second resets the
# controller and sends the command again, at most 5 times, then EIO
stop_target
start_target --ns "null:size=16m,irqmode=2,completion_nsec=3000000000" \
	--allow-host "$HOST"
run bench --name=slow --filename="$(uri "timeout=300&reconnect_delay=1")" \
	--rw=randread --bs=4k --iodepth=1 --number_ios=1
failed "a command that always times out: Abort, reset, ... then EIO" \
	"qid 1: command [0-9]+ timed out: Abort sent, the controller did not abort it" \
	"timed out: resetting the controller" "Input/output error" &&
	check "an Abort before each of the 6 resets" \
		test "$(grep -c 'timed out: Abort sent' "$ERR")" = 6
stop_target
start_target --ns null:size=256m,memory_backed=1 --ns "$TMP/ns2.img" \
	--allow-host "$HOST"

# The target goes away for good: after ctrl_loss_tmo the held I/O fails,
# the run ends with an error, no hang
run_bg bench --name=gone --filename="$(uri "ctrl_loss_tmo=2&reconnect_delay=1")" \
	--rw=randread --bs=4k --iodepth=8 --runtime=30 --time_based
sleep 1
kill_target
wait "$BPID" || RC=$?
failed "target gone for good: I/O errors after ctrl_loss_tmo, exit 1, no hang" \
	"ctrl_loss_tmo" "Input/output error"

# A namespace whose device takes 64 KiB at most (null max_sectors=128):
# the target's core splits what the host sends it (mqblk's target has no
# MDTS setting of its own: it always reports 1 MiB).
start_target --ns null:size=256m,memory_backed=1,max_sectors=128 \
	--allow-host "$HOST"
run bench --name=small --filename="$(uri)" --rw=randwrite \
	--bsrange=4k-256k --size=32m --verify=crc32c --do_verify=1 --iodepth=8
ok "verify bsrange=4k-256k to a device of max_sectors=128" &&
	check "max_sectors=128: no verify errors" has "verify_errors=0"
stop_target

finish
