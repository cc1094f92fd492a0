#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mqblk discover, id-ctrl, id-ns and list against mqblk's own target on
# 127.0.0.1: nvme-cli's layout (normal and JSON), a host the target does
# not allow sees no discovery entry, and bad input (no address, nothing
# listening, an unknown subsystem, unknown options) gives one line and
# exit 1.
# Usage: bash tests/cli/nvme_tools.sh build/mqblk
source "$(dirname "$0")/lib.sh"

NQN=nqn.2026-12.io.mqblk:tools
HOST=nqn.2026-12.io.mqblk:host-a
OTHER=nqn.2026-12.io.mqblk:host-b
DISC=nqn.2014-08.org.nvmexpress.discovery
# start_target (lib.sh) with a discovery port too: DPORT
start_discovery_target()
{
	DPORT=$(free_port)
	start_target --discovery-port "$DPORT" "$@"
}

# json_has KEY...: the last run's stdout is JSON (one object) with every KEY
json_has()
{
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if all(k in d for k in sys.argv[2:]) else 1)' "$OUT" "$@"
}

# json_eval EXPR: python EXPR over d, the last run's JSON, is true
json_eval()
{
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$OUT" "$1"
}

start_discovery_target --ns null:size=64m --allow-host "$HOST" || {
	fail setup "no target"
	finish
}

# ---- discover
run discover -t tcp -a 127.0.0.1 -s "$DPORT" -q "$HOST"
if ok "discover: normal"; then
	check "discover: header line" has_re \
		"^Discovery Log Number of Records 1, Generation counter [0-9]+$"
	check "discover: entry 0" has "=====Discovery Log Entry 0======"
	check "discover: trtype" has "trtype:  tcp"
	check "discover: adrfam" has "adrfam:  ipv4"
	check "discover: subtype" has "subtype: nvme subsystem"
	check "discover: treq" has_re "^treq:    "
	check "discover: portid" has_re "^portid:  [0-9]+$"
	check "discover: trsvcid" has "trsvcid: $PORT"
	check "discover: subnqn" has "subnqn:  $NQN"
	check "discover: traddr" has "traddr:  127.0.0.1"
	check "discover: eflags" has "eflags:  none"
	check "discover: sectype" has "sectype: none"
fi
run discover --transport=tcp --traddr=127.0.0.1 --trsvcid="$DPORT" \
	--hostnqn="$HOST" --output-format=json
if ok "discover: json (long options)"; then
	check "discover json: genctr and one record" json_eval \
		'isinstance(d["genctr"], int) and len(d["records"]) == 1'
	check "discover json: the record's fields" json_eval \
		'd["records"][0] == dict(d["records"][0], trtype="tcp",
		adrfam="ipv4", subtype="nvme subsystem", trsvcid="'"$PORT"'",
		subnqn="'"$NQN"'", traddr="127.0.0.1", eflags="none",
		sectype="none") and isinstance(d["records"][0]["portid"], int)
		and "treq" in d["records"][0]'
fi
run discover -a 127.0.0.1 -s "$DPORT" -q "$HOST" --hdr-digest -o json
ok "discover: --hdr-digest" &&
	check "discover --hdr-digest: one record" json_eval \
		'len(d["records"]) == 1'
run discover -t tcp -a 127.0.0.1 -s "$DPORT" -q "$OTHER"
ok "discover: a host not allowed" &&
	check "discover: a host not allowed sees no entry" has_re \
		"^Discovery Log Number of Records 0, "
run discover -t tcp -a 127.0.0.1 -s "$DPORT" -q "$OTHER" -o json
ok "discover json: a host not allowed" &&
	check "discover json: a host not allowed sees no record" json_eval \
		'd["records"] == []'

# ---- id-ctrl
run id-ctrl "$(uri)"
if ok "id-ctrl: normal"; then
	check "id-ctrl: header" has "NVME Identify Controller:"
	check "id-ctrl: mn" has_re "^mn        : mqblk *$"
	check "id-ctrl: mdts" has_re "^mdts      : 8$"
	check "id-ctrl: cntlid" has_re "^cntlid    : 0x[0-9a-f]+$"
	check "id-ctrl: subnqn" has "subnqn    : $NQN"
	check "id-ctrl: sqes (hex)" has "sqes      : 0x66"
	check "id-ctrl: ioccsz" has_re "^ioccsz    : [0-9]+$"
	check "id-ctrl: power state 0" has_re "^ps +0 : mp:"
fi
run id-ctrl -o json "$(uri)"
if ok "id-ctrl: json"; then
	check "id-ctrl json: nvme-cli's keys" json_has vid ssvid sn mn fr \
		rab ieee cmic mdts cntlid ver oaes ctratt cntrltype fguid \
		oacs lpa sqes cqes maxcmd nn oncs vwc sgls subnqn ioccsz \
		iorcsz icdoff fcatt msdbd ofcs psds
	check "id-ctrl json: values" json_eval \
		'd["mn"].rstrip() == "mqblk" and d["mdts"] == 8 and
		d["subnqn"] == "'"$NQN"'" and d["cntlid"] > 0 and
		d["cntrltype"] == 1 and len(d["psds"]) == 1'
fi
run id-ctrl -H "$(uri)"
ok "id-ctrl -H" && check "id-ctrl -H: sqes spelled out" has \
	"Max SQ Entry Size (64)"
run id-ctrl -o json "nvme-tcp://127.0.0.1:$DPORT/$DISC?hostnqn=$OTHER"
ok "id-ctrl: the discovery controller" &&
	check "id-ctrl: discovery controller's type and subnqn" json_eval \
		'd["cntrltype"] == 2 and d["subnqn"] == "'"$DISC"'"'

# ---- id-ns: 64 MiB of 512-byte blocks
run id-ns "$(uri)"
if ok "id-ns: normal"; then
	check "id-ns: header" has "NVME Identify Namespace 1:"
	check "id-ns: nsze = 64 MiB / 512" has "nsze    : 0x20000"
	check "id-ns: ncap" has "ncap    : 0x20000"
	check "id-ns: lbaf 0 in use" has "lbaf  0 : ms:0   lbads:9  rp:0 (in use)"
	check "id-ns: nguid" has_re "^nguid   : [0-9a-f]{32}$"
fi
run id-ns -n 1 --output-format=json "$(uri)"
if ok "id-ns: json"; then
	check "id-ns json: keys" json_has nsze ncap nuse nsfeat nlbaf flbas \
		mc dpc dps nmic rescap fpi dlfeat nvmcap anagrpid eui64 \
		nguid lbafs
	check "id-ns json: nsze and the format" json_eval \
		'd["nsze"] == 131072 and d["lbafs"][0]["ds"] == 9'
fi
run id-ns "$(uri nsid=1)"
ok "id-ns: nsid= in the URI" && check "id-ns: nsid=1" has \
	"NVME Identify Namespace 1:"

# ---- list
run list "$(uri)"
if ok "list"; then
	check "list: nvme list's columns" has_re \
		"^Node +SN +Model +Namespace +Usage +Format +FW Rev *$"
	check "list: one row with the model" test "$(grep -c mqblk "$OUT")" = 1
	check "list: the row" has_re \
		"^nvme-tcp://127\.0\.0\.1:$PORT/.* +mqblk +1 +67\.11  MB /  67\.11  MB +512   B \+  0 B "
fi
run list -o json "$(uri)"
ok "list: json" && check "list json: one device" json_eval \
	'len(d["Devices"]) == 1 and d["Devices"][0]["ModelNumber"] ==
	"mqblk" and d["Devices"][0]["PhysicalSize"] == 64 << 20 and
	d["Devices"][0]["SectorSize"] == 512'

# ---- bad input: one line on stderr, exit 1
run discover -t tcp -s "$DPORT"
failed "discover: no -a" "no address"
DEAD=$(free_port)
run discover -t tcp -a 127.0.0.1 -s "$DEAD"
failed "discover: nothing listening" "Connection refused"
run discover -t fc -a 127.0.0.1 -s "$DPORT"
failed "discover: a transport other than tcp or rdma" "transport 'fc'"
run discover -t rdma -g -a 127.0.0.1 -s "$DPORT"
failed "discover: digests with rdma" "digests are NVMe/TCP's"
# no RDMA device here (soft-RoCE runs in the interop guest only): said by
# name, whichever way mqblk was built
run discover -t rdma -a 127.0.0.1 -s "$DPORT"
failed "discover: rdma without an RDMA device" \
	"(nvme-rdma: 127.0.0.1:$DPORT: (no RDMA connection manager|address resolution)|built without rdma-core)"
check "discover: rdma without an RDMA device: one line" \
	test "$(wc -l <"$ERR")" = 1
run id-ctrl "nvme-rdma://127.0.0.1:$PORT/$NQN"
failed "id-ctrl: rdma without an RDMA device" \
	"(nvme-rdma: 127.0.0.1:$PORT: (no RDMA connection manager|address resolution)|built without rdma-core)"
run discover -a 127.0.0.1 -s "$DPORT" --bogus
failed "discover: unknown option" "unknown option '--bogus'"
run discover -a 127.0.0.1 -s "$DPORT" -o yaml
failed "discover: unknown output format" "output format 'yaml'"
run id-ctrl "nvme-tcp://127.0.0.1:$PORT/nqn.2026-12.io.mqblk:none?hostnqn=$HOST"
failed "id-ctrl: an unknown subsystem" "refused: status 0x182"
run id-ctrl "nvme-tcp://127.0.0.1:$PORT/$NQN?hostnqn=$OTHER"
failed "id-ctrl: a host not allowed" "status 0x184"
run id-ctrl "nvme-tcp://127.0.0.1:$DEAD/$NQN?hostnqn=$HOST"
failed "id-ctrl: nothing listening" "Connection refused"
run id-ctrl
failed "id-ctrl: no URI" "no controller"
run id-ctrl null
failed "id-ctrl: not an nvme-tcp URI" "not an nvme-tcp:// or nvme-rdma:// URI"
run id-ctrl -x "$(uri)"
failed "id-ctrl: unknown option" "unknown option '-x'"
run id-ns -n zero "$(uri)"
failed "id-ns: bad -n" "bad namespace id 'zero'"
run list
failed "list: no URI" "no namespace"
run list "$(uri)" "nvme-tcp://127.0.0.1:$DEAD/$NQN"
failed "list: one URI fails" "Connection refused"
check "list: the good URI is still listed" has "mqblk"
for cmd in discover id-ctrl id-ns list; do
	run "$cmd" --help
	ok "$cmd --help" && check "$cmd --help: usage" has "usage: mqblk $cmd"
done

finish
