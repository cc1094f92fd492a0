# SPDX-License-Identifier: MIT
# job.sh: the guest side of kernel-host.sh (busybox sh, run by /init from
# the 9p share). The kernel's nvme-tcp host talks to the target under test
# at 10.0.2.100:4420 (discovery: :8009); the relay maps both to the host's
# 127.0.0.1. One line per check goes to /job/out/results:
#   PASS name [detail] | FAIL name: why | SKIP name: why | TIME scenario s
# Env (from /job/env): NQN HOSTNQN HOSTID ONLY EXPECT_BYTES ADV_PORT
#   EXTERNAL PATTERN_OFF PATTERN_TOKEN FIO_SIZE SMALL_FIO_SIZE KATO MP
#   NQN2 MANY MANY_NR (the second target, scenario manyns)
. /job/env
OUT=/job/out
RES=$OUT/results
: >"$RES"
TRADDR=10.0.2.100
IOPORT=4420
DISCPORT=8009
IOPORT2=4421 # the second path (multipath scenario)
failed=0

pass() { echo "PASS $*" | tee -a "$RES"; }
fail() { echo "FAIL $1: $2" | tee -a "$RES"; failed=1; }
skip() { echo "SKIP $1: $2" | tee -a "$RES"; }
up() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(up)" 'BEGIN { printf "%.1f", b - a }'; }
selected() { case ",$ONLY," in *",$1,"* | ",all,") return 0 ;; esac; return 1; }
# check NAME CMD...: PASS/FAIL on CMD's status; its output goes to the log.
check() {
	_n=$1
	shift
	if "$@"; then pass "$_n"; else fail "$_n" "$*"; fi
}
log() { echo "--- $*"; }

# The kernel log as it happens: if the guest hangs, the host still has it.
# (Not on the job's stdout/stderr: init's tee would wait for it to end.)
cat /proc/kmsg >"$OUT/kmsg.txt" 2>/dev/null </dev/null &
KMSG_PID=$!
modprobe nvme-tcp || { fail setup "modprobe nvme-tcp"; exit 1; }
modprobe ext4
ID="-q $HOSTNQN -I $HOSTID"

# nvme_ns: the first nvmeXnY block device (only one controller is
# connected at a time).
nvme_ns() {
	for _b in /sys/block/nvme*; do
		case ${_b##*/} in nvme*c*) ;; nvme*n*) echo "${_b##*/}"; return ;; esac
	done
}

# connect NAME ARGS...: connect to the I/O port with ARGS added; sets CTRL
# (nvmeN) and DEV (/dev/nvmeXnY). Returns 1 (after a FAIL line) if either
# is missing.
connect() {
	_n=$1
	shift
	CTRL=
	DEV=
	log "nvme connect -t tcp -a $TRADDR -s $IOPORT -n $NQN $ID $*"
	# shellcheck disable=SC2086
	if ! timeout 120 nvme connect -t tcp -a "$TRADDR" -s "$IOPORT" -n "$NQN" $ID "$@"; then
		fail "$_n-connect" "nvme connect $*"
		return 1
	fi
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NQN" ] && CTRL=${c##*/}
	done
	for _ in $(seq 300); do
		d=$(nvme_ns)
		[ -n "$d" ] && [ -b "/dev/$d" ] && DEV=/dev/$d && break
		sleep 0.1
	done
	if [ -z "$CTRL" ] || [ -z "$DEV" ]; then
		fail "$_n-connect" "no controller or namespace (ctrl='$CTRL' ns='$DEV')"
		return 1
	fi
	pass "$_n-connect" "$CTRL $DEV queue_count=$(cat /sys/class/nvme/$CTRL/queue_count 2>/dev/null)"
}

disconnect() {
	if timeout 60 nvme disconnect -n "$NQN"; then
		pass "$1-disconnect"
	else
		fail "$1-disconnect" "nvme disconnect -n $NQN"
	fi
	# The namespace must go away before the next connect.
	for _ in $(seq 100); do
		[ -z "$(nvme_ns)" ] && return 0
		sleep 0.1
	done
	fail "$1-disconnect" "namespace still present"
}

# field FILE NAME: the value of "NAME : value" in nvme-cli output.
field() {
	awk -v k="$2" '{ n = $0; sub(/[ \t]*:.*/, "", n) }
		n == k { v = $0; sub(/^[^:]*:[ \t]*/, "", v); sub(/[ \t]+$/, "", v); print v; exit }' "$1"
}

# fio_verify NAME SIZE ARGS...: write then verify with crc32c.
fio_verify() {
	_n=$1
	_s=$2
	shift 2
	_t=$(up)
	if timeout 900 fio --name="$_n" --filename="$DEV" --ioengine=libaio --direct=1 \
		--size="$_s" --verify=crc32c --do_verify=1 --verify_fatal=1 \
		--output-format=json --output="$OUT/$_n.json" "$@" >"$OUT/$_n.log" 2>&1; then
		pass "$_n" "$_s in $(since "$_t") s"
	else
		fail "$_n" "fio (see $_n.log / $_n.json)"
		cat "$OUT/$_n.log"
		tail -n 40 "$OUT/$_n.json"
	fi
}

identify() {
	_n=$1
	nvme id-ctrl "/dev/$CTRL" >"$OUT/$_n-id-ctrl.txt" 2>&1
	nvme id-ns "$DEV" >"$OUT/$_n-id-ns.txt" 2>&1
	mn=$(field "$OUT/$_n-id-ctrl.txt" mn)
	sn=$(field "$OUT/$_n-id-ctrl.txt" sn)
	fr=$(field "$OUT/$_n-id-ctrl.txt" fr)
	mdts=$(field "$OUT/$_n-id-ctrl.txt" mdts)
	if [ -n "$mn" ] && [ -n "$sn" ] && [ -n "$fr" ]; then
		pass "$_n-id-ctrl" "mn='$mn' sn='$sn' fr='$fr' mdts=$mdts"
	else
		fail "$_n-id-ctrl" "empty model/serial/firmware: mn='$mn' sn='$sn' fr='$fr'"
	fi
	if [ "${mdts:-0}" -gt 0 ] 2>/dev/null; then
		pass "$_n-mdts" "$mdts"
	elif [ "$EXTERNAL" = 1 ]; then
		skip "$_n-mdts" "mdts=$mdts accepted from an external target (0 = no limit)"
	else
		fail "$_n-mdts" "mdts='$mdts', want > 0"
	fi
	nsze=$(field "$OUT/$_n-id-ns.txt" nsze)
	flbas=$(field "$OUT/$_n-id-ns.txt" flbas)
	nlbaf=$(field "$OUT/$_n-id-ns.txt" nlbaf)
	fmt=$(($(printf %d "$flbas") & 15))
	lbads=$(grep -E "^lbaf +$fmt *:" "$OUT/$_n-id-ns.txt" | sed -n 's/.*lbads:\([0-9]*\).*/\1/p')
	if [ -z "$nsze" ] || [ -z "$lbads" ] || [ "$fmt" -gt "$(printf %d "$nlbaf")" ]; then
		fail "$_n-id-ns" "nsze='$nsze' flbas='$flbas' nlbaf='$nlbaf' lbads='$lbads'"
		cat "$OUT/$_n-id-ns.txt"
		return
	fi
	bytes=$(($(printf %d "$nsze") * (1 << lbads)))
	if [ "$bytes" = "$EXPECT_BYTES" ] && [ "$lbads" -ge 9 ] && [ "$lbads" -le 16 ]; then
		pass "$_n-id-ns" "nsze=$nsze lbads=$lbads = $bytes bytes"
	else
		fail "$_n-id-ns" "nsze=$nsze lbads=$lbads = $bytes bytes, want $EXPECT_BYTES"
	fi
	sysbytes=$(($(cat /sys/block/${DEV#/dev/}/size) * 512))
	check "$_n-blockdev-size" [ "$sysbytes" = "$EXPECT_BYTES" ]
}

# ---------------------------------------------------------------------
scenario_discover() {
	log "nvme discover -t tcp -a $TRADDR -s $DISCPORT"
	# shellcheck disable=SC2086
	if ! timeout 120 nvme discover -t tcp -a "$TRADDR" -s "$DISCPORT" $ID >"$OUT/discover.txt" 2>&1; then
		fail discover "nvme discover failed"
		cat "$OUT/discover.txt"
		return
	fi
	cat "$OUT/discover.txt"
	if grep -qE "^subnqn: +$NQN\$" "$OUT/discover.txt"; then
		pass discover "$NQN listed"
	else
		fail discover "$NQN not in the discovery log"
	fi
	# The entry for our subsystem: its trsvcid should be the I/O port the
	# target listens on (the guest reaches it as 10.0.2.100:4420 anyway).
	svc=$(awk -v q="$NQN" '/^=====Discovery Log Entry/ { s = "" }
		/^trsvcid:/ { s = $2 } /^subnqn:/ && $2 == q { print s; exit }' "$OUT/discover.txt")
	if [ -z "$ADV_PORT" ]; then
		skip discover-trsvcid "external target (advertises trsvcid '$svc')"
	elif [ "$svc" = "$ADV_PORT" ]; then
		pass discover-trsvcid "$svc"
	else
		fail discover-trsvcid "trsvcid '$svc', want $ADV_PORT"
	fi
}

# connect_variant NAME QUEUES [ARGS...]
connect_variant() {
	_v=$1
	_q=$2
	shift 2
	_t=$(up)
	connect "$_v" --nr-io-queues="$_q" "$@" || return
	check "$_v-live" [ "$(cat /sys/class/nvme/$CTRL/state)" = live ]
	qc=$(cat "/sys/class/nvme/$CTRL/queue_count")
	check "$_v-queue-count" [ "$qc" = $((_q + 1)) ]
	identify "$_v"
	fio_verify "$_v-fio" "$SMALL_FIO_SIZE" --rw=randwrite --bs=4k --iodepth=16
	disconnect "$_v"
	echo "TIME $_v $(since "$_t")" >>"$RES"
}

scenario_connect() {
	connect_variant q1 1
	connect_variant q2 2
	connect_variant digest 2 --hdr-digest --data-digest
}

scenario_fio() {
	connect fio --nr-io-queues=2 || return
	fio_verify fio-verify "$FIO_SIZE" --rw=randwrite --bsrange=4k-1m --iodepth=8 \
		--randrepeat=0
	disconnect fio
}

# ext4_sizes_ok: every file listed in /tmp/ext4.sizes ("NAME BYTES") is in
# /mnt/data with that size; if not, 1 with the first mismatch in ext4_bad.
ext4_sizes_ok() {
	ext4_bad=
	while read -r _f _want; do
		_got=$(wc -c <"/mnt/data/$_f" 2>/dev/null) || _got=missing
		_got=$(echo $_got)
		if [ "$_got" != "$_want" ]; then
			ext4_bad="$_f is $_got bytes, want $_want"
			return 1
		fi
	done </tmp/ext4.sizes
	[ -s /tmp/ext4.sizes ] || { ext4_bad="no files listed"; return 1; }
}

scenario_ext4() {
	connect ext4 --nr-io-queues=2 || return
	if ! mkfs.ext4 -F -q "$DEV"; then
		fail ext4-mkfs "mkfs.ext4 $DEV"
		disconnect ext4
		return
	fi
	pass ext4-mkfs
	mkdir -p /mnt
	if ! mount -t ext4 "$DEV" /mnt; then
		fail ext4-mount "mount $DEV"
		disconnect ext4
		return
	fi
	# Files of assorted sizes, random content, and their checksums; the
	# write step passes only if every command of it succeeded and every
	# file has the size written.
	wrote=1
	why=
	mkdir /mnt/data || { wrote=0; why="mkdir /mnt/data"; }
	i=0
	: >/tmp/ext4.sizes
	for kib in 1 4 13 64 300 1024 4096 16384; do
		[ $wrote = 1 ] || break
		if ! head -c $((kib * 1024)) /dev/urandom >/mnt/data/f$i; then
			wrote=0
			why="writing f$i ($kib KiB)"
		fi
		echo "f$i $((kib * 1024))" >>/tmp/ext4.sizes
		i=$((i + 1))
	done
	[ $wrote = 1 ] && ! ext4_sizes_ok && { wrote=0; why="sizes: $ext4_bad"; }
	if [ $wrote = 1 ] && ! (cd /mnt/data && sha256sum f*) >/tmp/ext4.sums; then
		wrote=0
		why="sha256sum of the files"
	fi
	if [ $wrote = 1 ] && [ "$(wc -l </tmp/ext4.sums)" != 8 ]; then
		wrote=0
		why="$(wc -l </tmp/ext4.sums) checksums, want 8"
	fi
	if [ $wrote = 1 ] && ! cp /tmp/ext4.sums /mnt/sums; then
		wrote=0
		why="cp of the checksums"
	fi
	if ! umount /mnt; then
		fail ext4-umount "umount"
		wrote=0
		why="${why:-umount}"
	fi
	if [ $wrote = 1 ]; then
		pass ext4-write "$(wc -l </tmp/ext4.sums) files, sizes checked"
	else
		fail ext4-write "$why"
	fi
	check ext4-fsck e2fsck -fn "$DEV"
	disconnect ext4
	connect ext4-again --nr-io-queues=1 || return
	if mount -t ext4 "$DEV" /mnt; then
		if ! ext4_sizes_ok; then
			fail ext4-verify "sizes after reconnect: $ext4_bad"
		elif [ "$(ls /mnt/data | wc -l)" != 8 ]; then
			fail ext4-verify "$(ls /mnt/data | wc -l) files after reconnect, want 8"
		elif (cd /mnt/data && sha256sum -c /tmp/ext4.sums) && cmp /tmp/ext4.sums /mnt/sums; then
			pass ext4-verify "sizes and checksums match after reconnect"
		else
			fail ext4-verify "checksums differ after reconnect"
		fi
		umount /mnt || fail ext4-umount "umount after verify"
	else
		fail ext4-mount "second mount"
	fi
	# A known pattern at a known offset of the raw namespace; the host
	# then looks for it in the backing file.
	yes "mqblk-interop-$PATTERN_TOKEN" | head -c 1048576 >/tmp/pattern
	if dd if=/tmp/pattern of="$DEV" bs=1048576 seek="$PATTERN_OFF" oflag=seek_bytes,direct conv=notrunc,fsync 2>/dev/null &&
		nvme flush "$DEV" >/dev/null 2>&1 &&
		dd if="$DEV" bs=1048576 skip="$PATTERN_OFF" count=1 iflag=skip_bytes,direct 2>/dev/null | cmp - /tmp/pattern; then
		pass ext4-pattern "1 MiB at byte $PATTERN_OFF written, flushed, read back"
		echo written >"$OUT/pattern-written"
	else
		fail ext4-pattern "dd/flush/read-back of the pattern at byte $PATTERN_OFF"
	fi
	disconnect ext4-again
}

# Keep-alive: the host freezes this VM past KATO (QEMU "stop"); the target
# must drop the controller; after "cont" the kernel reconnects and I/O
# resumes.
scenario_keepalive() {
	connect ka --nr-io-queues=1 --keep-alive-tmo="$KATO" --ctrl-loss-tmo=120 \
		--reconnect-delay=2 || return
	check ka-kato [ "$(cat /sys/class/nvme/$CTRL/kato 2>/dev/null)" = "$KATO" ]
	cntlid=$(cat "/sys/class/nvme/$CTRL/cntlid")
	head -c 1048576 /dev/urandom >/tmp/ka.data
	dd if=/tmp/ka.data of="$DEV" bs=1048576 oflag=direct conv=notrunc 2>/dev/null ||
		fail ka-write "1 MiB before the freeze"
	echo "cntlid=$cntlid" >/job/ready-for-freeze
	log "waiting for the host to freeze and thaw this VM"
	n=0
	while [ ! -e /job/thawed ]; do
		n=$((n + 1))
		if [ $n -gt 3000 ]; then
			fail ka-thaw "no /job/thawed from the host"
			disconnect ka
			return
		fi
		sleep 0.1
	done
	_t=$(up)
	# The kernel notices the dropped connection, then reconnects.
	saw=""
	ok=0
	n=0
	while [ $n -lt 600 ]; do
		st=$(cat "/sys/class/nvme/$CTRL/state" 2>/dev/null)
		[ "$st" != live ] && case " $saw " in *" $st "*) ;; *) saw="$saw $st" ;; esac
		if [ "$st" = live ] && { [ -n "$saw" ] || dmesg | grep -q 'Successfully reconnected'; }; then
			ok=1
			break
		fi
		n=$((n + 1))
		sleep 0.1
	done
	new=$(cat "/sys/class/nvme/$CTRL/cntlid" 2>/dev/null)
	if [ $ok = 1 ]; then
		pass ka-reconnect "states:$saw -> live in $(since "$_t") s, cntlid $cntlid -> $new"
	else
		fail ka-reconnect "state '$st' (seen:$saw) 60 s after thaw"
		dmesg | grep -i nvme | tail -n 20
	fi
	if timeout 60 dd if="$DEV" bs=1048576 count=1 iflag=direct 2>/dev/null | cmp - /tmp/ka.data; then
		pass ka-io "1 MiB read back after the reconnect"
	else
		fail ka-io "read after reconnect failed or differs"
	fi
	disconnect ka
}

# path_state PORT: the ANA state of the namespace's path through the
# controller connected to TRADDR:PORT ("" if none).
path_state() {
	for _c in /sys/class/nvme/nvme*; do
		[ "$(cat "$_c/subsysnqn" 2>/dev/null)" = "$NQN" ] || continue
		case ",$(cat "$_c/address" 2>/dev/null)," in
		*",trsvcid=$1,"*) ;;
		*) continue ;;
		esac
		for _p in "$_c"/nvme*c*n*; do
			[ -e "$_p/ana_state" ] && cat "$_p/ana_state" && return
		done
	done
}

# Two paths to the subsystem: the target's two --listen ports. The host
# then makes ANA group 1 inaccessible on the second port (mqblk ctl);
# the kernel gets the ANA change event, reads the log, and its path
# states follow while I/O goes on through the first path.
scenario_multipath() {
	if [ "$MP" != 1 ]; then
		skip multipath "external target: no second port"
		return
	fi
	connect mp1 --nr-io-queues=1 || return
	log "nvme connect -t tcp -a $TRADDR -s $IOPORT2 -n $NQN (second path)"
	# shellcheck disable=SC2086
	if ! timeout 120 nvme connect -t tcp -a "$TRADDR" -s "$IOPORT2" -n "$NQN" $ID --nr-io-queues=1; then
		fail mp2-connect "nvme connect -s $IOPORT2"
		disconnect mp
		return
	fi
	pass mp2-connect
	# the second controller's namespace scan may still be running (many
	# namespaces under TCG): until it is listed, at most 60 s
	for _ in $(seq 120); do
		nvme list-subsys >"$OUT/list-subsys.txt" 2>&1
		live=$(grep -E "trsvcid=($IOPORT|$IOPORT2)" "$OUT/list-subsys.txt" | grep -c ' live')
		[ "$live" = 2 ] && break
		sleep 0.5
	done
	cat "$OUT/list-subsys.txt"
	check mp-two-live-paths [ "$live" = 2 ]
	s1= s2=
	for _ in $(seq 100); do
		s1=$(path_state $IOPORT)
		s2=$(path_state $IOPORT2)
		[ "$s1" = optimized ] && [ "$s2" = optimized ] && break
		sleep 0.1
	done
	check mp-ana-before [ "$s1/$s2" = optimized/optimized ]
	fio_verify mp-fio-before "$SMALL_FIO_SIZE" --rw=randwrite --bs=4k --iodepth=8
	touch /job/ana-request
	n=0
	while [ ! -e /job/ana-done ] && [ $n -lt 600 ]; do
		n=$((n + 1))
		sleep 0.1
	done
	_t=$(up)
	for _ in $(seq 300); do
		s1=$(path_state $IOPORT)
		s2=$(path_state $IOPORT2)
		[ "$s2" = inaccessible ] && break
		sleep 0.1
	done
	if [ "$s1/$s2" = optimized/inaccessible ]; then
		pass mp-ana-after "port $IOPORT optimized, port $IOPORT2 inaccessible after $(since "$_t") s"
	else
		fail mp-ana-after "ana_state '$s1' (port $IOPORT) '$s2' (port $IOPORT2)"
		dmesg | grep -i nvme | tail -n 20
	fi
	fio_verify mp-fio-after "$SMALL_FIO_SIZE" --rw=randwrite --bs=4k --iodepth=8
	disconnect mp
}

# request NAME: ask the host side for NAME (it runs `mqblk ctl ...` and
# answers /job/NAME-done), at most 60 s
request() {
	touch "/job/$1-request"
	_n=0
	while [ ! -e "/job/$1-done" ] && [ $_n -lt 600 ]; do
		_n=$((_n + 1))
		sleep 0.1
	done
	[ -e "/job/$1-done" ]
}

# A namespace added and removed on the running target (mqblk ctl add-ns,
# remove-ns): the kernel gets Namespace Attribute Changed, reads the
# Changed Namespace List and its /dev/nvmeXn2 appears, then goes, with no
# reconnect.
scenario_livens() {
	if [ "$MP" != 1 ]; then
		skip livens "external target: no control socket"
		return
	fi
	connect live --nr-io-queues=1 || return
	_new=${DEV%n*}n2
	_resets=$(dmesg | grep -cE 'nvme.*: creating|nvme.*reconnect')
	if ! request ns-add; then
		fail live-add "the host side did not answer ns-add"
		disconnect live
		return
	fi
	_t=$(up)
	for _ in $(seq 200); do
		[ -b "$_new" ] && break
		sleep 0.1
	done
	if [ -b "$_new" ]; then
		pass live-add "$_new appeared $(since "$_t") s after mqblk ctl add-ns"
		_sz=$(blockdev --getsize64 "$_new" 2>/dev/null)
		check live-add-size [ "$_sz" = 67108864 ]
		check live-add-read dd if="$_new" of=/dev/null bs=4k count=16 iflag=direct
	else
		fail live-add "no $_new 20 s after mqblk ctl add-ns"
		dmesg | grep -i nvme | tail -n 10
	fi
	if ! request ns-remove; then
		fail live-remove "the host side did not answer ns-remove"
		disconnect live
		return
	fi
	_t=$(up)
	for _ in $(seq 200); do
		[ -b "$_new" ] || break
		sleep 0.1
	done
	if [ -b "$_new" ]; then
		fail live-remove "$_new still there 20 s after mqblk ctl remove-ns"
	else
		pass live-remove "$_new gone $(since "$_t") s after mqblk ctl remove-ns"
	fi
	check live-first-ns-stays [ -b "$DEV" ]
	check live-no-reconnect [ "$(dmesg | grep -cE 'nvme.*: creating|nvme.*reconnect')" = "$_resets" ]
	disconnect live
}

# nvme_ok NAME ARGS...: `nvme ARGS` must exit 0 (as against nvmet); its
# output is kept in out/nvme-NAME.txt.
nvme_ok() {
	_n=$1
	shift
	if timeout 60 nvme "$@" >"$OUT/nvme-$_n.txt" 2>&1; then
		pass "cli-$_n" "nvme $*"
	else
		fail "cli-$_n" "nvme $* (exit $?): $(head -n 3 "$OUT/nvme-$_n.txt" | tr '\n' ' ' | tr -cd '[:print:]')"
	fi
}

# nvme-cli's read-only commands, each as a user would type it.
scenario_nvmecli() {
	connect cli --nr-io-queues=1 || return
	_c=/dev/$CTRL
	_nsid=$(cat "/sys/block/${DEV#/dev/}/nsid" 2>/dev/null || echo 1)
	nvme_ok list list
	nvme_ok list-subsys list-subsys
	nvme_ok list-ns list-ns "$_c"
	nvme_ok id-ctrl id-ctrl "$_c"
	nvme_ok id-ns id-ns "$DEV"
	nvme_ok ns-descs ns-descs "$DEV"
	nvme_ok ana-log ana-log "$_c"
	nvme_ok error-log error-log "$_c"
	nvme_ok smart-log smart-log "$_c"
	nvme_ok fw-log fw-log "$_c"
	nvme_ok effects-log effects-log "$_c"
	# the properties a fabrics controller has: CAP, VS, CC, CSTS
	for _p in 0x0 0x8 0x14 0x1c; do
		nvme_ok "get-property-$_p" get-property "$_c" --offset=$_p -H
	done
	# show-regs reads every PCIe register offset as a property; those
	# fabrics lacks get Invalid Field with DNR (nvmet's answer too),
	# which nvme-cli 2.3 takes as an error (and then frees its buffer
	# twice): it fails so against nvmet as well
	if timeout 60 nvme show-regs "$_c" >"$OUT/nvme-show-regs.txt" 2>&1; then
		pass cli-show-regs "nvme show-regs $_c"
	elif grep -q '^get-property: ' "$OUT/nvme-show-regs.txt"; then
		skip cli-show-regs "$(nvme version | head -n 1) stops at the first register fabrics lacks (Invalid Field with DNR, as nvmet answers); the four properties above read"
	else
		fail cli-show-regs "nvme show-regs $_c: $(head -n 3 "$OUT/nvme-show-regs.txt" | tr '\n' ' ' | tr -cd '[:print:]')"
	fi
	# every feature nvmet's Get Features answers: volatile write cache,
	# number of queues, async event configuration, keep alive timer,
	# the 128-bit host identifier, namespace write protection
	for _f in 0x06 0x07 0x0b 0x0f; do
		nvme_ok "get-feature-$_f" get-feature "$_c" --feature-id=$_f
	done
	nvme_ok get-feature-0x81 get-feature "$_c" --feature-id=0x81 --cdw11=1 --data-len=16
	nvme_ok get-feature-0x84 get-feature "$_c" --feature-id=0x84 --namespace-id="$_nsid"
	# every log page the controller has, at the length nvme-cli's own
	# commands ask (error log: 64 entries)
	for _l in 1:4096 2:512 3:512 4:4096 5:4096 12:4096; do
		nvme_ok "get-log-${_l%%:*}" get-log "$_c" --log-id="${_l%%:*}" --log-len="${_l#*:}"
	done
	# shellcheck disable=SC2086
	nvme_ok discover discover -t tcp -a "$TRADDR" -s "$DISCPORT" $ID
	disconnect cli
}

# A second target with MANY_NR namespaces, half of them in ANA group 2:
# every one appears, the ANA groups are right, and the disconnect's
# shutdown is answered (the target's log is checked on the host).
scenario_manyns() {
	if [ "$MANY" != 1 ]; then
		skip manyns "no second target (external target)"
		return
	fi
	_t=$(up)
	log "nvme connect -t tcp -a $TRADDR -s 4422 -n $NQN2 --nr-io-queues=1"
	# shellcheck disable=SC2086
	if ! timeout 300 nvme connect -t tcp -a "$TRADDR" -s 4422 -n "$NQN2" $ID --nr-io-queues=1; then
		fail many-connect "nvme connect -s 4422 -n $NQN2"
		return
	fi
	_mc=
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NQN2" ] && _mc=${c##*/}
	done
	_n=0
	for _ in $(seq 600); do
		_n=$(ls -d /sys/class/nvme/"$_mc"/nvme*c*n* 2>/dev/null | wc -l)
		[ "$_n" = "$MANY_NR" ] && break
		sleep 0.2
	done
	if [ "$_n" = "$MANY_NR" ]; then
		pass many-connect "$_mc: $_n namespaces in $(since "$_t") s"
	else
		fail many-connect "$_mc: $_n namespaces, want $MANY_NR"
	fi
	_g1=0 _g2=0
	for _p in /sys/class/nvme/"$_mc"/nvme*c*n*; do
		case $(cat "$_p/ana_grpid" 2>/dev/null) in
		1) _g1=$((_g1 + 1)) ;;
		2) _g2=$((_g2 + 1)) ;;
		esac
	done
	check many-ana-groups [ "$_g1/$_g2" = "$((MANY_NR - MANY_NR / 2))/$((MANY_NR / 2))" ]
	echo "ANA groups: $_g1 in 1, $_g2 in 2"
	_t=$(up)
	_k=$(dmesg | wc -l)
	if timeout 120 nvme disconnect -n "$NQN2"; then
		pass many-disconnect "in $(since "$_t") s"
	else
		fail many-disconnect "nvme disconnect -n $NQN2"
	fi
	if dmesg | tail -n +$((_k + 1)) | grep -E 'Property Set error|shutdown timeout|I/O tag .* timeout'; then
		fail many-shutdown-host "the host logged a shutdown problem (above)"
	else
		pass many-shutdown-host "no Property Set error or shutdown timeout in dmesg"
	fi
}

# ---------------------------------------------------------------------
for s in discover connect fio ext4 keepalive multipath livens nvmecli manyns; do
	if selected "$s"; then
		log "scenario $s"
		t=$(up)
		"scenario_$s"
		echo "TIME $s $(since "$t")" >>"$RES"
	fi
done

timeout 60 nvme disconnect-all && pass disconnect-all || fail disconnect-all "nvme disconnect-all"
dmesg >"$OUT/dmesg.txt"
if grep -qE 'BUG:|WARNING:|Oops|Call Trace' "$OUT/dmesg.txt"; then
	fail dmesg "kernel warning or oops (see dmesg.txt)"
	grep -E -A5 'BUG:|WARNING:|Oops' "$OUT/dmesg.txt"
else
	pass dmesg "no kernel warnings"
fi
kill "$KMSG_PID" 2>/dev/null
exit $failed
