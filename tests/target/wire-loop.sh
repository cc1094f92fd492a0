#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# target-wire with namespace 2 on a block device: a loop device over a
# 16 MiB file (root, as the uring loop tests). Usage: wire-loop.sh WIRE MQBLK
# Without root or losetup it skips ("SKIP: why", exit 77), but under
# CI=true (root, scripts/deps run) that is a failure; a kernel with no loop
# driver at all is a skip even there.
set -euo pipefail

wire=${1:?usage: $0 WIRE_BINARY MQBLK_BINARY}
mqblk=${2:?usage: $0 WIRE_BINARY MQBLK_BINARY}

# skip_setup WHY: what root or scripts/deps would have given
skip_setup()
{
	if [[ ${CI:-} == true ]]; then
		echo "FAIL: skipped under CI=true, where it must run: $1"
		exit 1
	fi
	echo "SKIP: $1"
	exit 77
}

if ((EUID != 0)); then
	skip_setup "not root (a loop device needs root)"
fi
if ! command -v losetup >/dev/null; then
	skip_setup "no losetup (util-linux, scripts/deps)"
fi
dir=$(mktemp -d)
loop=
cleanup()
{
	[[ -n $loop ]] && losetup -d "$loop" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
truncate -s 16M "$dir/backing.img"
if ! loop=$(losetup -f --show "$dir/backing.img" 2>"$dir/losetup.err"); then
	loop=
	if [[ ! -e /sys/devices/virtual/misc/loop-control && ! -e /dev/loop-control ]]; then
		echo "SKIP: this kernel has no loop driver (no loop-control device)"
		exit 77
	fi
	echo "FAIL: losetup -f --show: $(head -n 1 "$dir/losetup.err")"
	exit 1
fi
WIRE_NS2=$loop "$wire" "$mqblk"
