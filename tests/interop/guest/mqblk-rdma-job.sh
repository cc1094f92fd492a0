# SPDX-License-Identifier: MIT
# The guest half of tests/interop/mqblk-rdma.sh (busybox sh in the QEMU
# guest of tests/interop/lib.sh, the share at /job): `mqblk target` with
# one memory-backed null namespace on rdma:$IP:4420 (port 1) and TCP
# $IP:4421 (port 2), event-driven, driven by `mqblk ctl`; mqblk's host
# against it: nvme-rdma:// alone, then a round-robin multipath device of
# one RDMA and one TCP path, then the same with port 1 and then port 2
# cut (port-down) and brought back (port-up) mid-verify. Each bench's
# JSON goes to /job/out/NAME.json and its stderr to /job/out/NAME.err;
# the host side checks the counters in them.
. /job/rdma.sh
[ -f /job/env ] && . /job/env

MQ=/job/bin/mqblk
NQN=nqn.2026-12.io.mqblk:mqblk-rdma
CTL=/tmp/mqblk-ctl.sock
TLOG=/job/out/target.log
MP="nvme-rdma://$IP:4420,tcp:$IP:4421/$NQN?iopolicy=round-robin"

step rxe
rxe_up || { fail rxe "no soft-RoCE: $(rdma link show 2>&1)"; finish; exit 1; }

step target
"$MQ" target --listen rdma:$IP:4420 --listen $IP:4421 --nqn $NQN \
	--ns null:size=64m,memory_backed=1 --allow-any-host --reactors 1 \
	--ctl $CTL >$TLOG 2>&1 &
TPID=$!
for _ in $(seq 100); do
	[ -S $CTL ] && break
	kill -0 $TPID 2>/dev/null || break
	sleep 0.1
done
if [ -S $CTL ]; then pass target "up on rdma:$IP:4420 and $IP:4421"; else
	fail target "$(tail -n 5 $TLOG)"
	finish
	exit 1
fi

# run_bench NAME ARGS...: mqblk bench with JSON output into /job/out/NAME.json
# (stderr: NAME.err); its exit status in NAME.rc
run_bench() {
	name=$1
	shift
	"$MQ" bench --name="$name" --output-format=json "$@" \
		>/job/out/$name.json 2>/job/out/$name.err
	echo $? >/job/out/$name.rc
}

# (2) nvme-rdma alone: 4 MiB of 4..64 KiB writes, crc32c verified
step rdma-verify
run_bench rdma --filename="nvme-rdma://$IP:4420/$NQN" --rw=randwrite \
	--bsrange=4k-64k --size=4m --iodepth=8 --verify=crc32c --do_verify=1 \
	--verify_fatal=1
[ "$(cat /job/out/rdma.rc)" = 0 ] && pass rdma-verify-exit ||
	fail rdma-verify-exit "$(tail -n 3 /job/out/rdma.err)"

# (3a) the multipath device, both paths up: round-robin over both
step mpath-verify
run_bench mp --filename="$MP" --rw=randwrite --bsrange=4k-64k --size=4m \
	--iodepth=8 --verify=crc32c --do_verify=1 --verify_fatal=1
[ "$(cat /job/out/mp.rc)" = 0 ] && pass mpath-verify-exit ||
	fail mpath-verify-exit "$(tail -n 3 /job/out/mp.err)"

# writes_on: the writes the target has taken on the I/O queues of the
# controllers connected through port 1 and through port 2, as "N1 N2"
# (one `mqblk ctl stats`: the ctrl lines name each controller's port,
# the queue table follows)
writes_on() {
	"$MQ" ctl $CTL stats | awk '
		$1 == "ctrl" && $5 == "port" { port[$2] = $6; next }
		$1 == "ctrl" && $2 == "qid" { for (i = 1; i <= NF; i++) col[$i] = i; next }
		col["writes"] && ($1 in port) && $2 > 0 { w[port[$1]] += $col["writes"] }
		END { print w[1] + 0, w[2] + 0 }'
}

# cut_path NAME PORT: a time-based verify over the multipath device
# (reconnect every second, ctrl_loss_tmo 20 s) with PORT cut (port-down)
# once both ports' controllers have taken writes from it (the device is
# open and round-robin is sending on both paths) and back (port-up) a
# second later
cut_path() {
	name=$1
	port=$2
	step "$name: port $port down mid-verify"
	"$MQ" bench --name="$name" --output-format=json \
		--filename="$MP&reconnect_delay=1&ctrl_loss_tmo=20" \
		--rw=randwrite --bs=4k --size=8m --iodepth=16 --verify=crc32c \
		--do_verify=1 --verify_fatal=1 --runtime=${CUT_RT:-4} --time_based \
		>/job/out/$name.json 2>/job/out/$name.err &
	bpid=$!
	flowing=0
	for _ in $(seq 200); do
		kill -0 $bpid 2>/dev/null || break
		# shellcheck disable=SC2046 # two numbers
		set -- $(writes_on)
		if [ "$1" -ge 64 ] && [ "$2" -ge 64 ]; then
			flowing=1
			break
		fi
		sleep 0.1
	done
	[ $flowing = 1 ] && pass "$name-io-flowing" "writes on port 1: $1, port 2: $2" ||
		fail "$name-io-flowing" "the target saw no writes on both ports before the job ended: $(tail -n 3 /job/out/$name.err)"
	step "$name: port-down $port"
	if "$MQ" ctl $CTL port-down $port >/job/out/$name.ctl 2>&1; then
		pass "$name-port-down" "$(head -n 1 /job/out/$name.ctl)"
	else
		fail "$name-port-down" "$(cat /job/out/$name.ctl)"
	fi
	sleep 1
	if "$MQ" ctl $CTL port-up $port >>/job/out/$name.ctl 2>&1; then
		pass "$name-port-up"
	else
		fail "$name-port-up" "$(tail -n 1 /job/out/$name.ctl)"
	fi
	wait $bpid
	echo $? >/job/out/$name.rc
	[ "$(cat /job/out/$name.rc)" = 0 ] && pass "$name-exit" ||
		fail "$name-exit" "status $(cat /job/out/$name.rc): $(tail -n 3 /job/out/$name.err)"
}

# (3b) the RDMA port cut, (3c) the TCP port cut
cut_path cut-rdma 1
cut_path cut-tcp 2

# (4) the target ends on SIGINT with status 0
step target-exit
kill -INT $TPID
wait $TPID
rc=$?
[ $rc = 0 ] && pass target-exit || fail target-exit "status $rc: $(tail -n 5 $TLOG)"
finish
