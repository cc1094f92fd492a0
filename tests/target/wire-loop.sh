#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# target-wire with namespace 2 on a block device: a loop device over a
# 16 MiB file (root, as the uring loop tests). Usage: wire-loop.sh WIRE MQBLK
set -euo pipefail

wire=${1:?usage: $0 WIRE_BINARY MQBLK_BINARY}
mqblk=${2:?usage: $0 WIRE_BINARY MQBLK_BINARY}
if ((EUID != 0)) || ! command -v losetup >/dev/null; then
	echo "wire-loop: needs root and losetup: skipped"
	exit 77
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
loop=$(losetup -f --show "$dir/backing.img")
WIRE_NS2=$loop "$wire" "$mqblk"
