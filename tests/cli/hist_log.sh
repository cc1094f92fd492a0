#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fio's histogram log (--write_hist_log, --log_hist_msec,
# --log_hist_coarseness): NAME_clat_hist.N.log with fio 3.33's line
# ("time, direction, block size, " and 1856 >> coarseness bucket counts,
# each the I/Os since the direction's last line), checked beside fio's own
# file; fio's fiologparser_hist.py (shipped by Debian's fio package in its
# docs) reads mqblk's unchanged; and Debian's fio_generate_plots (gnuplot)
# draws mqblk's bw/iops/lat logs into its SVG files.
# shellcheck source-path=SCRIPTDIR disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FIO=${FIO:-fio}
MQBLK=$(realpath "$MQBLK")
# Debian's python3, where python3-numpy and python3-pandas install
PY=${PY:-/usr/bin/python3}
H=$TMP/hist
mkdir -p "$H"

# bench DIR ARGS...: mqblk bench in DIR (where its logs land)
bench()
{
	RC=0
	(cd "$1" && shift && timeout -k 5 30 "$MQBLK" bench "$@" >"$OUT" \
		2>"$ERR" </dev/null) || RC=$?
}

# fields FILE: the distinct field counts of FILE's lines
fields()
{
	awk -F, '{ print NF }' "$1" | sort -u | tr '\n' ' '
}

# 2000 reads a second for 2 s, a histogram line every 250 ms
mkdir -p "$H/m"
bench "$H/m" --name=h --filename=null --rw=randread --runtime=2 \
	--time_based --rate_iops=2000 --write_hist_log --log_hist_msec=250 \
	--output-format=json+ --output=h.json
ok "--write_hist_log --log_hist_msec=250" &&
	check "the file is fio's h_clat_hist.1.log" \
		test "$(cd "$H/m" && LC_ALL=C ls | tr '\n' ' ')" = \
		"h.json h_clat_hist.1.log "
L=$H/m/h_clat_hist.1.log
check "every line: time, direction, bs and 1856 buckets" \
	test "$(fields "$L")" = "1859 "
check "at least 3 lines, times rising, reads of 4096 bytes" \
	python3 - "$L" <<'PY'
import sys
rows = [[int(x) for x in l.split(",")] for l in open(sys.argv[1])]
ts = [r[0] for r in rows]
sys.exit(0 if len(rows) >= 3 and ts == sorted(ts) and len(set(ts)) == len(ts)
         and all(r[1] == 0 and r[2] == 4096 for r in rows) else 1)
PY
check "the buckets: each I/O once, in the json+ report's buckets" \
	python3 - "$L" "$H/m/h.json" <<'PY'
import json, sys
rows = [[int(x) for x in l.split(",")] for l in open(sys.argv[1])]
rep = json.load(open(sys.argv[2]))
r = rep["jobs"][0]["read"]
total = r["total_ios"]
logged = sum(sum(row[3:]) for row in rows)
# the report's non-empty buckets, by index (fio's plat_idx_to_val)
def val(i):
    if i < 128:
        return i
    eb = (i >> 6) - 1
    return (1 << (eb + 6)) + ((i % 64) * (1 << eb)) + (1 << eb) // 2
vals = {val(i) for i in range(1856)}
used = set()
for row in rows:
    used |= {val(i) for i, c in enumerate(row[3:]) if c}
bins = {int(k) for k in r["clat_ns"]["bins"]}
# lines stop at the last full window: most I/Os, never more than all
sys.exit(0 if 0 < logged <= total and logged >= total // 2
         and used <= bins else 1)
PY

# coarseness 3: 232 buckets a line, the same counts summed 8 by 8
bench "$H/m" --name=c --filename=null --rw=randread --runtime=1 \
	--time_based --rate_iops=2000 --write_hist_log=c --log_hist_msec=200 \
	--log_hist_coarseness=3
ok "--log_hist_coarseness=3" &&
	check "coarseness 3: 3 + 232 fields a line" \
		test "$(fields "$H/m/c_clat_hist.1.log")" = "235 "

# no --log_hist_msec: fio's empty file
bench "$H/m" --name=e --filename=null --rw=read --size=1m --write_hist_log
ok "--write_hist_log alone" &&
	check "without --log_hist_msec the file is there and empty" \
		bash -c "test -e '$H/m/e_clat_hist.1.log' && ! test -s '$H/m/e_clat_hist.1.log'"

# --per_job_logs=0: the clones share NAME_clat_hist.log
bench "$H/m" --name=p --filename=null --rw=randread --runtime=1 \
	--time_based --rate_iops=1000 --numjobs=2 --write_hist_log=p \
	--log_hist_msec=200 --per_job_logs=0
ok "--per_job_logs=0" &&
	check "--per_job_logs=0: one p_clat_hist.log" \
		test -s "$H/m/p_clat_hist.log" -a ! -e "$H/m/p_clat_hist.1.log"

# beside fio 3.33
if command -v "$FIO" >/dev/null; then
	mkdir -p "$H/f"
	(cd "$H/f" && timeout -k 5 30 "$FIO" --name=h --ioengine=null \
		--rw=randread --size=1g --runtime=2 --time_based \
		--rate_iops=2000 --write_hist_log=h --log_hist_msec=250 \
		>/dev/null 2>&1)
	check "the same file name as fio's" \
		test "$(cd "$H/f" && ls)" = "h_clat_hist.1.log"
	check "the same fields a line as fio's" \
		test "$(fields "$H/f/h_clat_hist.1.log")" = "$(fields "$L")"
	check "lines shaped as fio's (time, 0, 4096, numbers)" \
		test "$(cut -d, -f2,3 "$H/f/h_clat_hist.1.log" | sort -u)" = \
		"$(cut -d, -f2,3 "$L" | sort -u)"
else
	skip_setup "side by side with fio" "no fio"
fi

# fio's fiologparser_hist.py reads mqblk's log unchanged
PARSER_GZ=/usr/share/doc/fio/fiologparser_hist.py.gz
if [[ ! -s $PARSER_GZ ]]; then
	skip_setup "fiologparser_hist.py" "no $PARSER_GZ (Debian's fio)"
elif ! "$PY" -c 'import numpy, pandas' 2>/dev/null; then
	skip_setup "fiologparser_hist.py" \
		"no numpy/pandas for $PY (python3-numpy, python3-pandas)"
else
	zcat "$PARSER_GZ" >"$TMP/fiologparser_hist.py"
	RC=0
	timeout 60 "$PY" "$TMP/fiologparser_hist.py" --interval 500 "$L" \
		>"$OUT" 2>"$ERR" || RC=$?
	ok "fiologparser_hist.py reads mqblk's h_clat_hist.1.log"
	check "its table: a row per 500 ms, min <= median <= p99 <= max" \
		"$PY" - "$OUT" "$H/m/h.json" <<'PY'
import json, sys
lines = [l.strip() for l in open(sys.argv[1]) if l.strip()]
head = [c.strip() for c in lines[0].split(",")]
rows = [[float(x) for x in l.split(",")] for l in lines[1:]]
c = {n: head.index(n) for n in ("end-time", "samples", "min", "median",
                                "99%", "max")}
clat = json.load(open(sys.argv[2]))["jobs"][0]["read"]["clat_ns"]
ok = len(rows) >= 2 and all(
    r[c["samples"]] > 0 and
    r[c["min"]] <= r[c["median"]] <= r[c["99%"]] <= r[c["max"]] and
    # the log's values are the report's ns, within a bucket's width
    clat["min"] * 0.9 <= r[c["median"]] <= clat["max"] * 1.1
    for r in rows)
ends = [r[c["end-time"]] for r in rows]
sys.exit(0 if ok and ends == sorted(ends) else 1)
PY
fi

# Debian's fio_generate_plots draws mqblk's logs with gnuplot
if ! command -v gnuplot >/dev/null; then
	skip_setup "fio_generate_plots" "no gnuplot (gnuplot-nox)"
elif ! command -v fio_generate_plots >/dev/null; then
	skip_setup "fio_generate_plots" "not installed (Debian's fio)"
else
	mkdir -p "$H/g"
	bench "$H/g" --name=g --filename=null --rw=randread --runtime=2 \
		--time_based --write_bw_log=g --write_iops_log=g \
		--write_lat_log=g --log_avg_msec=200
	ok "logs for fio_generate_plots"
	RC=0
	(cd "$H/g" && timeout 60 fio_generate_plots mqblk >"$OUT" 2>"$ERR" \
		</dev/null) || RC=$?
	if ((RC != 0)); then
		fail "fio_generate_plots on mqblk's logs" "status $RC: $(tail -n 1 "$OUT")"
	else
		pass "fio_generate_plots on mqblk's logs"
	fi
	for t in lat iops slat clat bw; do
		check "fio_generate_plots drew mqblk-$t.svg with a line of data" \
			grep -q 'gnuplot_plot_1' "$H/g/mqblk-$t.svg"
	done
fi

# bad input
bench "$H/m" --name=b --filename=null --rw=read --size=1m \
	--write_hist_log --log_hist_msec=100 --log_hist_coarseness=7
failed "--log_hist_coarseness=7" "log_hist_coarseness"
bench "$H/m" --name=b --filename=null --rw=read --size=1m \
	--write_hist_log --log_hist_msec=-5
failed "--log_hist_msec=-5" "log_hist_msec"
bench "$H/m" --name=b --filename=null --rw=read --size=1m \
	--write_hist_log --log_hist_msec=100 --gtod_reduce=1
failed "--write_hist_log with --gtod_reduce" \
	"write_hist_log logs the clat histogram, which gtod_reduce turns off"
bench "$H/m" --name=b --filename=null --rw=read --size=1m \
	--write_hist_log --log_hist_msec=100 --clat_percentiles=0
failed "--write_hist_log with --clat_percentiles=0" "clat_percentiles=0"
rm -f "$H/m"/b_*
bench "$H/m" --name=b --filename=null --rw=read --size=1m \
	--write_hist_log=/nonexistent/dir/b --log_hist_msec=100
failed "a hist log that cannot be written" \
	"cannot write log /nonexistent/dir/b_clat_hist.1.log"

finish
