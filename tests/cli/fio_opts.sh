#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fio options the seed experiments use, as fio has them: a command-line
# option cut short to a unique prefix (getopt_long_only), disable_lat /
# disable_clat / disable_slat, refill_buffers.
# shellcheck source-path=SCRIPTDIR disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# jq-less: a python expression over the JSON document d
json_eval()
{
	python3 - "$OUT" "$1" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
d = json.loads(text[text.index("{"):])
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}

# --group_report: seed 004's spelling of --group_reporting
run bench --name=g --filename=null --rw=randread --bs=4k --size=4m \
	--numjobs=2 --group_report --output-format=json
ok "--group_report (a prefix of --group_reporting)" &&
	check "--group_report: one merged job for numjobs=2" json_eval \
		'len(d["jobs"]) == 1 and d["jobs"][0]["read"]["total_ios"] == 2048'
run bench --name=g --filename=null --rw=randread --bs=4k --size=4m \
	--iodepth_batch_c=4
failed "--iodepth_batch_c names three options" \
	"option '--iodepth_batch_c' is ambiguous: iodepth_batch_complete_min, iodepth_batch_complete, iodepth_batch_complete_max"
run bench --name=g --filename=null --rw=randread --bs=4k --size=4m \
	--iodepth_batch=4
ok "--iodepth_batch: a whole name wins over the longer ones it begins"
# the run's own options are cut short the same way
run bench --vers
ok "--vers (a prefix of --version)" &&
	check "--vers: prints the version" grep -q '^mqblk-' "$OUT"
run bench --name=g --filename=null --rw=randread --bs=4k --size=4m \
	--output-f=json
ok "--output-f (a prefix of --output-format)" &&
	check "--output-f=json: a JSON report" json_eval \
		'd["jobs"][0]["read"]["total_ios"] == 1024'
run bench --name=g --filename=null --rw=randread --bs=4k --size=4m \
	--outp=x
failed "--outp names two of the run's options" \
	"option '--outp' is ambiguous: output-format, output"
printf '[j]\nfilename=null\nrw=read\nsize=1m\ngroup_report\n' >"$TMP/p.fio"
run bench "$TMP/p.fio"
failed "a job file takes whole names only (as fio's)" "group_report"

# disable_lat / disable_clat / disable_slat: that latency is not measured
for which in lat clat slat; do
	run bench --name=d --filename=null --rw=randread --bs=4k --size=4m \
		--disable_$which=1 --output-format=json
	ok "--disable_$which" &&
		check "--disable_$which: no $which samples, the others measured" \
			json_eval "all((r[k + '_ns']['mean'] == 0) == (k == '$which') for r in [d['jobs'][0]['read']] for k in ('slat', 'clat', 'lat'))"
done

# refill_buffers: one buffer (iodepth 1) written 16 times carries the same
# data every time without it, new data every time with it
for refill in 0 1; do
	rm -f "$TMP/r.img"
	truncate -s 64k "$TMP/r.img"
	run bench --name=r --filename="$TMP/r.img" --rw=write --bs=4k \
		--size=64k --iodepth=1 --refill_buffers=$refill
	ok "refill_buffers=$refill: write"
	distinct=$(python3 -c '
import sys
b = open(sys.argv[1], "rb").read()
print(len({b[i:i + 4096] for i in range(0, len(b), 4096)}))' "$TMP/r.img")
	want=$((refill ? 16 : 1))
	check "refill_buffers=$refill: $want distinct blocks of 16 ($distinct)" \
		test "$distinct" = "$want"
done

finish
