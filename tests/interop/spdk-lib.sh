# SPDX-License-Identifier: MIT
# The SPDK set-up the interop scripts against SPDK share (sourced by
# spdk.sh, spdk-tls.sh and spdk-auth.sh after tests/cli/lib.sh): the
# skip when SPDK is not built, hugepages (raised to 1024 and hugetlbfs
# mounted when root; both undone at exit), stopping SPDK processes and
# the files they leave, the EXIT trap, nvmf_tgt started and waited for,
# rpc.py. The caller sets SPDK_DIR first; SPDK_PIDS lists the SPDK
# processes to stop at exit; a function spdk_cleanup_hook, if the caller
# defines one, runs first in the trap (its own helpers to stop).
# shellcheck shell=bash

SPDK_PIDS=()
SPDK_HP_WANT=1024
SPDK_HP_ORIG=
SPDK_HP_MOUNTED=0
SPDK_HP_MKDIR=0
SPDK_RPC=${SPDK_DIR:?set SPDK_DIR before sourcing spdk-lib.sh}/scripts/rpc.py
export LD_LIBRARY_PATH=$SPDK_DIR/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# spdk_require FILE...: exit 77 (skipped) unless every FILE is an
# executable of the SPDK build at SPDK_DIR, or if hugepages are too few
# and not root to raise them. SPDK_BUILD_DOC names where the build
# recipe is (default bench/vs-spdk).
spdk_require()
{
	local f
	for f in "$@"; do
		if [[ ! -x $f ]]; then
			echo "SKIP: SPDK not built at $SPDK_DIR ($f missing; see ${SPDK_BUILD_DOC:-bench/vs-spdk})"
			exit 77
		fi
	done
	if [[ $(id -u) != 0 ]] &&
		(($(cat /proc/sys/vm/nr_hugepages) < SPDK_HP_WANT)); then
		echo "SKIP: SPDK needs $SPDK_HP_WANT hugepages; not root, cannot raise vm.nr_hugepages"
		exit 77
	fi
}

# spdk_stop_pid PID: SIGINT (SPDK apps shut down on it), SIGKILL after
# 10 s; then the hugepage files a killed SPDK process leaves behind and
# the DPDK run directory every one does (its file prefix is spdk_pid<PID>).
spdk_stop_pid()
{
	local p=$1 i
	if kill -0 "$p" 2>/dev/null; then
		kill -INT "$p" 2>/dev/null
		for ((i = 0; i < 100; i++)); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$p" 2>/dev/null
	fi
	wait "$p" 2>/dev/null
	rm -f /dev/hugepages/spdk_pid"$p"map_* 2>/dev/null
	rm -rf /var/run/dpdk/spdk_pid"$p" 2>/dev/null
}

# spdk_forget_pid PID: drop PID from SPDK_PIDS (stopped or reaped), and
# its DPDK run directory
spdk_forget_pid()
{
	local p keep=()
	for p in "${SPDK_PIDS[@]}"; do
		[[ $p != "$1" ]] && keep+=("$p")
	done
	SPDK_PIDS=("${keep[@]}")
	rm -rf /var/run/dpdk/spdk_pid"$1" 2>/dev/null
}

# spdk_stop_all: every SPDK process still listed
spdk_stop_all()
{
	local p
	for p in "${SPDK_PIDS[@]}"; do
		spdk_stop_pid "$p"
	done
	SPDK_PIDS=()
}

# spdk_cleanup: the EXIT trap, whatever the way out. A target of mqblk's
# that does not stop cleanly (lib.sh's stop_target check) fails the
# test, as lib.sh's own trap would have it; outputs are kept when
# anything failed.
# shellcheck disable=SC2317 # run by the EXIT trap
spdk_cleanup()
{
	local rc=$?
	trap - EXIT
	declare -F spdk_cleanup_hook >/dev/null && spdk_cleanup_hook
	spdk_stop_all
	# shellcheck disable=SC2119 # no arguments: TPID and TLOG
	if [[ -n ${TPID:-} ]] && ! stop_target && ((rc == 0)); then
		rc=1
	fi
	if ((SPDK_HP_MOUNTED)); then
		umount /dev/hugepages ||
			echo "$TEST_NAME: could not unmount /dev/hugepages"
		((SPDK_HP_MKDIR)) && rmdir /dev/hugepages
	fi
	[[ -n $SPDK_HP_ORIG ]] && echo "$SPDK_HP_ORIG" >/proc/sys/vm/nr_hugepages
	# shellcheck disable=SC2154 # nr_fail: tests/cli/lib.sh's count
	if ((nr_fail > 0 || rc != 0)); then
		echo "$TEST_NAME: outputs kept in $TMP"
	else
		rm -rf "$TMP"
	fi
	exit "$rc"
}

# spdk_setup: the trap, then (root) hugepages raised and hugetlbfs
# mounted where they are not
spdk_setup()
{
	local n
	trap spdk_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	[[ $(id -u) == 0 ]] || return 0
	n=$(cat /proc/sys/vm/nr_hugepages)
	if ((n < SPDK_HP_WANT)); then
		SPDK_HP_ORIG=$n
		echo "$SPDK_HP_WANT" >/proc/sys/vm/nr_hugepages
		n=$(cat /proc/sys/vm/nr_hugepages)
		((n >= SPDK_HP_WANT)) ||
			echo "$TEST_NAME: only $n hugepages (wanted $SPDK_HP_WANT)"
	fi
	if ! mountpoint -q /dev/hugepages; then
		[[ -d /dev/hugepages ]] || SPDK_HP_MKDIR=1
		mkdir -p /dev/hugepages
		mount -t hugetlbfs nodev /dev/hugepages || {
			echo "FAIL setup: cannot mount hugetlbfs on /dev/hugepages"
			exit 1
		}
		SPDK_HP_MOUNTED=1
	fi
}

# spdk_rpc SOCK ARGS...: SPDK's rpc.py on that socket, 30 s at most
spdk_rpc()
{
	local sock=$1
	shift
	timeout -k 5 30 python3 "$SPDK_RPC" -s "$sock" -t 20 "$@" </dev/null
}

# spdk_start NAME SOCK PROGRAM ARGS...: an SPDK app in the background
# with its RPC socket at SOCK (-r), output in $TMP/NAME.out, its PID in
# SPDK_PID and SPDK_PIDS; waits (30 s at most) until its RPC answers and
# its subsystems are initialised (a --json config applied). 1 if it
# exited or never answered.
spdk_start()
{
	local name=$1 sock=$2 i
	shift 2
	rm -f "$sock"
	echo "$* -r $sock" >"$TMP/$name.cmd"
	"$@" -r "$sock" >"$TMP/$name.out" 2>&1 </dev/null &
	SPDK_PID=$!
	SPDK_PIDS+=("$SPDK_PID")
	for ((i = 0; i < 300; i++)); do
		kill -0 "$SPDK_PID" 2>/dev/null || return 1
		[[ -S $sock ]] && spdk_rpc "$sock" framework_wait_init \
			>/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

# spdk_wait_listen PORT PID: until 127.0.0.1:PORT listens (10 s at
# most); 1 if it does not or PID exited
spdk_wait_listen()
{
	local i
	for ((i = 0; i < 200; i++)); do
		ss -ltn | grep -q "127.0.0.1:$1 " && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# spdk_run NAME SECONDS PROGRAM ARGS...: run an SPDK program to its end
# (its PID known to the trap meanwhile), output in $TMP/NAME.out; stopped
# (spdk_stop_pid) if still running after SECONDS, then RC is 124; else
# RC is its status.
# shellcheck disable=SC2034 # RC: for the caller, as lib.sh's run sets it
spdk_run()
{
	local name=$1 secs=$2 pid i
	shift 2
	echo "$*" >"$TMP/$name.cmd"
	"$@" >"$TMP/$name.out" 2>&1 </dev/null &
	pid=$!
	SPDK_PIDS+=("$pid")
	for ((i = 0; i < secs * 10; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	RC=0
	if kill -0 "$pid" 2>/dev/null; then
		spdk_stop_pid "$pid"
		RC=124
	else
		wait "$pid" || RC=$?
	fi
	spdk_forget_pid "$pid"
}
