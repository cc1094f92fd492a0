#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `mqblk ctl SOCKET ns-set NQN NSID KEY=VALUE` (mqblk_dev_set_param): a
# running target's null namespace (irqmode=2) made slow and fast again
# under a connected host, and the one-line refusals: a key the driver
# cannot change live, a device with no timer, a namespace or subsystem
# that is not there, a bad value, malformed words.
# Usage: bash tests/cli/ns_set.sh build/mqblk
# shellcheck source-path=SCRIPTDIR disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

NQN=nqn.2026-12.io.mqblk:ns-set
HOST=nqn.2026-12.io.mqblk:ns-set-host
CTL=$TMP/ctl.sock

start_target --ns null:size=16m,irqmode=2,completion_nsec=10000 \
	--ns null:size=16m --allow-host "$HOST" --reactors 1 --ctl "$CTL" || {
	fail setup "no target"
	finish
}

# clat FIELD: min or max completion latency (ns) of the last JSON run
clat()
{
	python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["jobs"][0]["read"]["clat_ns"][sys.argv[2]])' "$OUT" "$1"
}

# reads: 4 QD1 reads of namespace 1 through the connected host
reads()
{
	run bench --name=slow --filename="$(uri nsid=1)" --rw=randread --bs=4k \
		--size=1m --number_ios=4 --output-format=json
}

run ctl "$CTL" ns-set "$NQN" 1 completion_nsec=300000000
ok "ns-set: completion_nsec raised to 300 ms"
reads
# a lower bound: no request can complete before its timer. 285 ms, not
# 300: host and target each calibrate their TSC clock apart, and the
# host's 300 ms has read as 299.6 (0.14 % apart, seen here)
ok "slow: reads complete" &&
	check "slow: no read faster than 300 ms, to 5 % (min $(clat min) ns)" \
		test "$(clat min)" -ge 285000000
check "the target logs the change" grep -q "$NQN namespace 1: completion_nsec=300000000" "$TLOG"
run ctl "$CTL" ns-set "$NQN" 1 completion_nsec=10000
ok "ns-set: back to 10 us"
reads
ok "fast: reads complete" &&
	check "fast: reads no longer wait 300 ms (min $(clat min) ns)" \
		test "$(clat min)" -lt 300000000

# refusals by the target: exit 1, one line
run ctl "$CTL" ns-set "$NQN" 2 completion_nsec=1
failed "refused: a null device without a timer" "irqmode=0; only irqmode=2"
run ctl "$CTL" ns-set "$NQN" 1 irqmode=1
failed "refused: a key null cannot change live" "irqmode: the null driver changes only completion_nsec live"
run ctl "$CTL" ns-set "$NQN" 3 completion_nsec=1
failed "refused: no such namespace" "has no namespace 3"
run ctl "$CTL" ns-set nqn.2026-12.io.mqblk:nobody 1 completion_nsec=1
failed "refused: no such subsystem" "no subsystem nqn.2026-12.io.mqblk:nobody"
run ctl "$CTL" ns-set "$NQN" 1 completion_nsec=fast
failed "refused: a value that is no number" "bad value 'fast' for completion_nsec"
run ctl "$CTL" ns-set "$NQN" 1 completion_nsec=20000000000
failed "refused: a value past 10 s" "completion_nsec"

# refused before sending: exit 2
for words in "ns-set $NQN 0 completion_nsec=1" "ns-set $NQN 1 completion_nsec" \
	"ns-set $NQN 1 =5" "ns-set $NQN 1" "ns-set $NQN x1 completion_nsec=1"; do
	# shellcheck disable=SC2086 # the words are split on purpose
	run ctl "$CTL" $words
	check "refused before sending: '$words' (exit 2, one line)" \
		test "$RC" = 2 -a "$(wc -l <"$ERR")" = 1
done
reads
ok "the target still serves after the refusals"
finish
