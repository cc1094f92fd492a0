# SPDX-License-Identifier: MIT
# The guest half of tests/interop/ktls.sh (busybox sh in the QEMU guest
# of tests/interop/lib.sh, Debian's Linux 6.1 with its tls module; the
# share at /job): two `mqblk target`s on TLS ports, kTLS on (--ktls=on,
# port 4420) and off (--ktls=off, port 4421), and mqblk's host against
# them: kTLS both ends (4 KiB and 128 KiB writes verified), then mixed
# (a kTLS host to OpenSSL's records on the target, and the reverse: the
# same TLS on the wire). /proc/net/tls_stat's TlsTxSw/TlsRxSw (sockets
# set up with the kernel's software TLS, each way) are kept before and
# after each run in /job/out/NAME.tls0 and NAME.tls1, the targets'
# handshakes (-v) counted in NAME.hs; the host side checks them. With
# MEASURE=SECONDS, also time-based rows kTLS off vs on (JSON in
# /job/out/m-*.json).
. /job/rdma.sh
[ -f /job/env ] && . /job/env

MQ=/job/bin/mqblk
NQN=nqn.2026-12.io.mqblk:ktls
HOST=nqn.2026-12.io.mqblk:host-ktls

step tls-module
# AES-GCM for the kernel's records: aesni's if the (virtual) CPU has
# AES-NI, else the generic gcm template (either is enough)
for m in aesni_intel ghash-clmulni-intel gcm ctr ghash_generic; do
	modprobe "$m" 2>/dev/null
done
if modprobe tls && [ -r /proc/net/tls_stat ]; then
	pass tls-module "$(grep -E 'TlsTxSw|TlsRxSw' /proc/net/tls_stat | tr -s ' \n' ' ')"
else
	fail tls-module "no tls module in the guest"
	finish
	exit 1
fi

# start_target NAME PORT MODE: a TLS target with kTLS MODE on PORT
start_target() {
	"$MQ" target --listen "tls:$IP:$2" --nqn $NQN \
		--ns null:size=64m,memory_backed=1 --allow-host $HOST \
		--tls-key "$KEY" --ktls="$3" --reactors 1 -v \
		--ctl /tmp/ctl-$1.sock >/job/out/$1.log 2>&1 &
	for _ in $(seq 100); do
		grep -q ready /job/out/$1.log && return 0
		sleep 0.1
	done
	return 1
}

step targets
if start_target t-on 4420 on && start_target t-off 4421 off; then
	pass targets "kTLS on at $IP:4420, off at $IP:4421"
else
	fail targets "$(tail -n 3 /job/out/t-on.log /job/out/t-off.log)"
	finish
	exit 1
fi

# run_bench NAME TARGETLOG PORT HOSTMODE ARGS...: mqblk bench into
# /job/out/NAME.json (stderr NAME.err, status NAME.rc), the tls_stat
# lines before and after, and how many handshakes TARGETLOG gained
run_bench() {
	name=$1 tlog=/job/out/$2.log port=$3 mode=$4
	shift 4
	grep -E 'TlsTxSw|TlsRxSw' /proc/net/tls_stat >/job/out/$name.tls0
	h0=$(grep -c 'TLS 1.3 (' $tlog)
	"$MQ" bench --name="$name" --output-format=json \
		--filename="nvme-tcp://$IP:$port/$NQN?hostnqn=$HOST&tls_key=$KEY&ktls=$mode" \
		"$@" >/job/out/$name.json 2>/job/out/$name.err
	echo $? >/job/out/$name.rc
	grep -E 'TlsTxSw|TlsRxSw' /proc/net/tls_stat >/job/out/$name.tls1
	echo $(($(grep -c 'TLS 1.3 (' $tlog) - h0)) >/job/out/$name.hs
	[ "$(cat /job/out/$name.rc)" = 0 ] && pass "$name-exit" ||
		fail "$name-exit" "$(tail -n 3 /job/out/$name.err)"
}

step both-4k
run_bench both-4k t-on 4420 on --rw=randwrite --bs=4k --size=2m \
	--iodepth=8 --verify=crc32c --do_verify=1 --verify_fatal=1
step both-128k
run_bench both-128k t-on 4420 on --rw=randwrite --bs=128k --size=4m \
	--iodepth=4 --verify=crc32c --do_verify=1 --verify_fatal=1
step mixed-host
run_bench mixed-host t-off 4421 on --rw=randwrite --bsrange=4k-128k \
	--size=2m --iodepth=4 --verify=crc32c --do_verify=1 --verify_fatal=1
step mixed-target
run_bench mixed-target t-on 4420 off --rw=randwrite --bsrange=4k-128k \
	--size=2m --iodepth=4 --verify=crc32c --do_verify=1 --verify_fatal=1

if [ -n "${MEASURE:-}" ]; then
	for row in r4k-qd1:randread:4k:1 r4k-qd32:randread:4k:32 \
		w4k-qd32:randwrite:4k:32 r128k-qd16:read:128k:16 \
		w128k-qd16:write:128k:16; do
		IFS=: read -r rn rw bs qd <<ROW
$row
ROW
		for m in off on; do
			step "measure $rn ktls=$m"
			if [ $m = on ]; then p=4420 t=t-on; else p=4421 t=t-off; fi
			run_bench m-$rn-$m $t $p $m --rw=$rw --bs=$bs \
				--iodepth=$qd --time_based=1 --runtime="$MEASURE" \
				--size=64m
		done
	done
fi

step stop
for p in $(pidof mqblk); do kill -INT "$p"; done
for _ in $(seq 100); do
	pidof mqblk >/dev/null || break
	sleep 0.1
done
pidof mqblk >/dev/null && fail targets-exit "still running 10 s after SIGINT" ||
	pass targets-exit
finish
