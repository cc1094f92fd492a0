# SPDX-License-Identifier: MIT
# target-job.sh: the guest side of kernel-target.sh (busybox sh, run by
# /init from the 9p share as /job/job.sh). The Linux kernel's nvmet-tcp
# TARGET on 0.0.0.0:4420 (slirp hostfwd brings the host's
# 127.0.0.1:HOSTPORT to 10.0.2.15:4420), configured through configfs:
#   nsid 1: null_blk, memory_backed=1, NULLB_MB MiB, NULLB_BS-byte blocks
#   nsid 2: a brd ramdisk (/dev/ram0) of RAM_MB MiB; if brd will not load,
#           a file on tmpfs (nvmet's file backend)
#   nsid 3: a 16 MiB file on tmpfs, which the host may have resized while
#           it runs: /job/resize (new size in MiB) -> truncate, nvmet's
#           revalidate_size (a Namespace Attribute Changed event), then
#           /job/resized
# and a second port (4421, hostfwd 127.0.0.1:HOSTPORT2) to the same
# subsystem, whose ANA state and link the host changes by request (req).
# Only HOSTNQN may connect (attr_allow_any_host=0). Then it writes
# /job/ready (the namespaces' sizes) and waits for /job/done from the host
# (at most WAIT_S s), then saves the kernel log and the block devices'
# stats. One line per check to /job/out/results (PASS/FAIL name: why).
# Env (from /job/env): NQN HOSTNQN NULLB_MB NULLB_BS RAM_MB WAIT_S
. /job/env
OUT=/job/out
RES=$OUT/results
: >"$RES"
CFG=/sys/kernel/config
failed=0

pass() { echo "PASS $*" | tee -a "$RES"; }
fail() { echo "FAIL $1: $2" | tee -a "$RES"; failed=1; }
up() { cut -d' ' -f1 /proc/uptime; }
die() {
	fail "$1" "$2"
	dmesg | tail -n 30
	dmesg >"$OUT/dmesg.txt"
	echo "setup failed: $1: $2" >/job/setup-failed
	exit 1
}

cat /proc/kmsg >"$OUT/kmsg.txt" 2>/dev/null </dev/null &
KMSG_PID=$!

t0=$(up)
modprobe configfs || die setup "modprobe configfs"
grep -q " $CFG configfs" /proc/mounts || mount -t configfs none "$CFG" ||
	die setup "mount configfs"
modprobe nvmet || die setup "modprobe nvmet"
modprobe nvmet-tcp || die setup "modprobe nvmet-tcp"
modprobe null_blk nr_devices=0 || die setup "modprobe null_blk"

# nsid 1: null_blk through its configfs (memory_backed keeps the data)
d=$CFG/nullb/nullb0
mkdir "$d" &&
	echo "$NULLB_MB" >"$d/size" &&
	echo "$NULLB_BS" >"$d/blocksize" &&
	echo 1 >"$d/memory_backed" &&
	echo 1 >"$d/power" || die setup "null_blk nullb0 (${NULLB_MB} MiB, memory_backed)"
for _ in $(seq 50); do [ -b /dev/nullb0 ] && break; sleep 0.1; done
[ -b /dev/nullb0 ] || die setup "no /dev/nullb0"
DEV1=/dev/nullb0

# nsid 2: brd, else a tmpfs file
if modprobe brd rd_nr=1 rd_size=$((RAM_MB * 1024)) max_part=0 && [ -b /dev/ram0 ]; then
	DEV2=/dev/ram0
	KIND2=brd
else
	mkdir -p /ramfs && mount -t tmpfs -o size=$((RAM_MB + 16))m tmpfs /ramfs &&
		truncate -s "${RAM_MB}M" /ramfs/ns2.img || die setup "tmpfs file for nsid 2"
	DEV2=/ramfs/ns2.img
	KIND2=tmpfs-file
fi

# nsid 3: a file the host asks to have resized
mkdir -p /ns3 && mount -t tmpfs -o size=64m tmpfs /ns3 &&
	truncate -s 16M /ns3/ns3.img || die setup "tmpfs file for nsid 3"
DEV3=/ns3/ns3.img

S=$CFG/nvmet/subsystems/$NQN
mkdir "$S" || die setup "subsystem $NQN"
echo 0 >"$S/attr_allow_any_host"
H=$CFG/nvmet/hosts/$HOSTNQN
mkdir "$H" && ln -s "$H" "$S/allowed_hosts/$HOSTNQN" || die setup "allowed host $HOSTNQN"
nsid=0
for dev in $DEV1 $DEV2 $DEV3; do
	nsid=$((nsid + 1))
	mkdir "$S/namespaces/$nsid" &&
		printf %s "$dev" >"$S/namespaces/$nsid/device_path" &&
		# a tmpfs file takes no O_DIRECT: nvmet's buffered file I/O
		case $dev in /dev/*) : ;; *) echo 1 >"$S/namespaces/$nsid/buffered_io" ;; esac &&
		echo 1 >"$S/namespaces/$nsid/enable" || die setup "namespace $nsid ($dev)"
done
P=$CFG/nvmet/ports/1
mkdir "$P" &&
	echo tcp >"$P/addr_trtype" &&
	echo ipv4 >"$P/addr_adrfam" &&
	echo 0.0.0.0 >"$P/addr_traddr" &&
	echo 4420 >"$P/addr_trsvcid" || die setup "port"
ln -s "$S" "$P/subsystems/$NQN" || die setup "linking the subsystem to the port"
netstat -ltn 2>/dev/null | grep -q ':4420 ' || die setup "nothing listens on :4420"
# A second path to the same subsystem (the host's multipath scenarios):
# port 2 on 4421; each port has ANA group 1 (every namespace is in it),
# optimized until the host asks otherwise.
P2=$CFG/nvmet/ports/2
mkdir "$P2" &&
	echo tcp >"$P2/addr_trtype" &&
	echo ipv4 >"$P2/addr_adrfam" &&
	echo 0.0.0.0 >"$P2/addr_traddr" &&
	echo 4421 >"$P2/addr_trsvcid" &&
	ln -s "$S" "$P2/subsystems/$NQN" || die setup "port 2 (4421)"
netstat -ltn 2>/dev/null | grep -q ':4421 ' || die setup "nothing listens on :4421"

bytes() {
	case $1 in
	/dev/*) echo $(($(cat "/sys/block/${1#/dev/}/size") * 512)) ;;
	*) stat -c %s "$1" ;;
	esac
}
lbs() {
	case $1 in
	/dev/*) cat "/sys/block/${1#/dev/}/queue/logical_block_size" ;;
	*) echo 512 ;; # nvmet's file backend: 512 (its blksize_shift is 9)
	esac
}
B1=$(bytes $DEV1)
B2=$(bytes $DEV2)
pass target-setup "nsid 1 $DEV1 $B1 bytes (lba $(lbs $DEV1)), nsid 2 $DEV2 ($KIND2) $B2 bytes (lba $(lbs $DEV2)), in $(awk -v a="$t0" -v b="$(up)" 'BEGIN { printf "%.1f", b - a }') s"
{
	for f in "$P"/addr_* "$P"/param_* "$S"/attr_*; do
		[ -r "$f" ] && echo "${f##*/}=$(cat "$f" 2>/dev/null)"
	done
	netstat -ltn | grep ':4420 '
} >"$OUT/target-config.txt" 2>&1
# Everything nvmet says from now on is on the console too.
dmesg -n 7
printf 'NS1_BYTES=%s\nNS2_BYTES=%s\nNS1_LBA=%s\nNS2_LBA=%s\nNS2_KIND=%s\nNS3_BYTES=%s\n' \
	"$B1" "$B2" "$(lbs $DEV1)" "$(lbs $DEV2)" "$KIND2" "$(bytes $DEV3)" >/job/ready.tmp
mv /job/ready.tmp /job/ready
echo "--- target ready; waiting for /job/done (at most $WAIT_S s)"

# req K: the host's K-th request (/job/req.K, one line), answered by
# /job/ack.K: "ana PORTID STATE" sets port PORTID's ANA group 1 (nvmet
# sends the controllers on it an ANA change event), "unlink PORTID"
# takes the subsystem off the port (nvmet deletes its controllers there
# and refuses new ones), "link PORTID" puts it back.
req() {
	set -- $(cat "/job/req.$1")
	case $1 in
	ana) echo "$3" >"$CFG/nvmet/ports/$2/ana_groups/1/ana_state" &&
		pass "req-ana-$2-$3" "port $2 group 1: $(cat "$CFG/nvmet/ports/$2/ana_groups/1/ana_state")" ||
		fail "req-ana-$2-$3" "writing $3 to port $2's ana_state" ;;
	unlink) rm "$CFG/nvmet/ports/$2/subsystems/$NQN" &&
		pass "req-unlink-$2" "subsystem off port $2" ||
		fail "req-unlink-$2" "unlinking port $2" ;;
	link) ln -s "$S" "$CFG/nvmet/ports/$2/subsystems/$NQN" &&
		pass "req-link-$2" "subsystem back on port $2" ||
		fail "req-link-$2" "linking port $2" ;;
	*) fail req "unknown request '$*'" ;;
	esac
}
k=1
n=0
while [ ! -e /job/done ] && [ $n -lt $((WAIT_S * 10)) ]; do
	while [ -s /job/req.$k ]; do
		req $k
		touch /job/ack.$k
		k=$((k + 1))
	done
	if [ -s /job/resize ] && [ ! -e /job/resized ]; then
		mb=$(cat /job/resize)
		if truncate -s "${mb}M" $DEV3 &&
			echo 1 >"$S/namespaces/3/revalidate_size"; then
			pass ns3-resize "nsid 3 resized to $mb MiB ($(bytes $DEV3) bytes), revalidated"
		else
			fail ns3-resize "resizing nsid 3 to $mb MiB"
		fi
		touch /job/resized
	fi
	sleep 0.1
	n=$((n + 1))
done
[ -e /job/done ] || fail host-done "no /job/done from the host in $WAIT_S s"

# The host wrote 1 MiB of "mqblk-nsN-TOKEN|" to each namespace at byte
# MARK_OFF (/job/markers: MARK_OFF TOKEN): each must be in its own
# backing device, and not in the other (nsid went where it should).
rd() {
	case $1 in
	/dev/*) dd if="$1" bs=1048576 skip=$((MARK_OFF >> 20)) count=1 iflag=direct 2>/dev/null ;;
	*) dd if="$1" bs=1048576 skip=$((MARK_OFF >> 20)) count=1 2>/dev/null ;;
	esac
}
if [ -s /job/markers ]; then
	read -r MARK_OFF TOKEN </job/markers
	for n in 1 2; do
		if [ $n = 1 ]; then dev=$DEV1 other=$DEV2; else dev=$DEV2 other=$DEV1; fi
		mine=$(rd "$dev" | grep -a -o "mqblk-ns$n-$TOKEN|" | wc -l)
		theirs=$(rd "$other" | grep -a -o "mqblk-ns$n-$TOKEN|" | wc -l)
		if [ "$mine" -gt 0 ] && [ "$theirs" = 0 ]; then
			pass "ns$n-backing" "the host's marker for nsid $n is in $dev at byte $MARK_OFF ($mine copies), not in $other"
		else
			fail "ns$n-backing" "marker for nsid $n at byte $MARK_OFF: $mine copies in $dev, $theirs in $other"
		fi
	done
else
	echo "--- no /job/markers from the host: backing check skipped"
fi

# What the target did: block device stats, and its log.
{
	for dev in $DEV1 $DEV2; do
		case $dev in /dev/*) echo "${dev#/dev/} stat: $(cat "/sys/block/${dev#/dev/}/stat")" ;; esac
	done
} >"$OUT/target-stats.txt"
cat "$OUT/target-stats.txt"
# A line of our own first: it flushes a message nvmet left without its
# newline (e.g. "out of commands ... opcode: 127") into the log.
echo "interop: the host is done" >/dev/kmsg
sleep 0.5
dmesg >"$OUT/dmesg.txt"
if grep -qE 'BUG:|WARNING:|Oops|Call Trace' "$OUT/dmesg.txt"; then
	fail dmesg "kernel warning or oops (see dmesg.txt)"
	grep -E -A5 'BUG:|WARNING:|Oops' "$OUT/dmesg.txt"
else
	pass dmesg "no kernel warnings"
fi
kill "$KMSG_PID" 2>/dev/null
exit $failed
