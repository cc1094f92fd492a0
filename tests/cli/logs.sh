#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fio's logs: --write_bw_log, --write_lat_log (lat, clat, slat),
# --write_iops_log, per I/O or --log_avg_msec windows, --log_offset,
# --log_max_value, --per_job_logs: the same file names and line shapes as
# fio 3.33 writes (checked side by side), and fio's own fio2gnuplot reads
# them. A log that cannot be written is one line and no run.
# shellcheck source-path=SCRIPTDIR disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FIO=${FIO:-fio}
MQBLK=$(realpath "$MQBLK")
L=$TMP/logs
mkdir -p "$L"

# bench ARGS...: mqblk bench in $L (where the logs land)
bench()
{
	RC=0
	(cd "$L" && timeout -k 5 20 "$MQBLK" bench "$@" >"$OUT" 2>"$ERR" \
		</dev/null) || RC=$?
}

# shape FILE: the line shape, numbers as N ("N, N, N, N, N")
shape()
{
	sed -E 's/[0-9]+/N/g' "$1" | sort -u | tr '\n' '|'
}

# per I/O: 16 reads of 4k, one line each, offset logged
rm -rf "${L:?}"/*
bench --name=p --filename=null --rw=read --size=64k --write_lat_log \
	--write_bw_log=p --write_iops_log=p --log_offset=1
ok "per-I/O logs with --log_offset" &&
	check "per-I/O: p_lat, p_clat, p_slat, p_bw, p_iops .1.log" \
		test "$(cd "$L" && ls | tr '\n' ' ')" = \
		"p_bw.1.log p_clat.1.log p_iops.1.log p_lat.1.log p_slat.1.log "
check "per-I/O: 16 lines in each" \
	test "$(cat "$L"/p_*.log | wc -l)" = 80
check "per-I/O: offsets 0, 4096 ... 61440 in the clat log" \
	test "$(cut -d, -f5 "$L/p_clat.1.log" | tr -d ' ' | tr '\n' ' ')" = \
	"$(seq 0 4096 61440 | tr '\n' ' ')"
check "per-I/O: block size 4096, direction 0, iops value 1" \
	test "$(cut -d, -f2,3,4 "$L/p_iops.1.log" | sort -u)" = " 1, 0, 4096"

# windows: 500 ms over 2 s of randrw, a line per direction per window
rm -rf "${L:?}"/*
bench --name=w --filename=null --rw=randrw --size=1g --runtime=2 \
	--time_based --write_bw_log=w --write_lat_log=w --write_iops_log=w \
	--log_avg_msec=500
ok "--log_avg_msec=500" &&
	check "windows: bw log times 500, 1000 ... for reads and writes" \
		test "$(cut -d, -f1,3 "$L/w_bw.1.log" | head -4 | tr '\n' ' ')" = \
		"500, 0 500, 1 1000, 0 1000, 1 "
check "windows: block size and priority 0 in averaged lines" \
	test "$(cut -d, -f4,5 "$L/w_lat.1.log" | sort -u)" = " 0, 0"
if command -v "$FIO" >/dev/null; then
	F=$TMP/fio
	mkdir -p "$F"
	(cd "$F" && "$FIO" --name=w --ioengine=null --rw=randrw --size=1g \
		--runtime=2 --time_based --write_bw_log=w --write_lat_log=w \
		--write_iops_log=w --log_avg_msec=500 >/dev/null 2>&1)
	check "windows: the same files as fio" \
		test "$(cd "$F" && ls | tr '\n' ' ')" = \
		"$(cd "$L" && ls | tr '\n' ' ')"
	for t in bw iops lat clat; do
		check "windows: w_$t.1.log lines shaped as fio's" \
			test "$(shape "$F/w_$t.1.log")" = "$(shape "$L/w_$t.1.log")"
	done
	rm -rf "$F"
	mkdir -p "$F"
	(cd "$F" && "$FIO" --name=p --ioengine=null --rw=read --size=64k \
		--write_lat_log=p --log_offset=1 >/dev/null 2>&1)
	rm -f "$L"/*
	bench --name=p --filename=null --rw=read --size=64k --write_lat_log=p \
		--log_offset=1
	check "per-I/O with offsets: clat lines shaped as fio's" \
		test "$(shape "$F/p_clat.1.log")" = "$(shape "$L/p_clat.1.log")"
else
	echo "SKIP side by side: no fio"
fi

# fio's fio2gnuplot reads the bw log
rm -rf "${L:?}"/*
bench --name=g --filename=null --rw=randread --size=1g --runtime=2 \
	--time_based --write_bw_log=g --log_avg_msec=500
ok "bw log for fio2gnuplot"
if command -v fio2gnuplot >/dev/null; then
	(cd "$L" && timeout 30 fio2gnuplot -b -d "$L/out" -p 'g_bw*.log' \
		>"$TMP/f2g.out" 2>&1)
	check "fio2gnuplot reads g_bw.1.log: its samples in seconds" \
		python3 - "$L/out/g_bw" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and l[0] != "#"]
ts = [float(r[1]) for r in rows]
sys.exit(0 if len(rows) >= 3 and ts[:3] == [0.5, 1.0, 1.5]
	 and all(int(r[2]) > 0 for r in rows) else 1)
PY
else
	echo "SKIP fio2gnuplot: not installed"
fi

# log_max_value, per_job_logs=0 (clones share one file)
rm -rf "${L:?}"/*
bench --name=m --filename=null --rw=read --size=1m --numjobs=2 \
	--write_iops_log=m --per_job_logs=0
ok "--per_job_logs=0" &&
	check "--per_job_logs=0: one m_iops.log with both clones' 512 I/Os" \
		test "$(cat "$L/m_iops.log" | wc -l)" = 512
bench --name=m --filename=null --rw=read --size=1g --runtime=1 --time_based \
	--write_lat_log=x --log_avg_msec=200 --log_max_value=1
ok "--log_max_value=1" &&
	check "--log_max_value: each window's max >= the mean's line" \
		test -s "$L/x_lat.1.log"

# bad input
bench --name=b --filename=null --rw=read --size=1m \
	--write_bw_log=/nonexistent/dir/b
failed "a log path that cannot be written" \
	"cannot write log /nonexistent/dir/b_bw.1.log"
rm -rf "${L:?}"/*
bench --name=b --filename=null --rw=read --size=1m --write_lat_log=ok \
	--write_bw_log=/nonexistent/dir/b
failed "one bad log path: no run" "cannot write log"
check "one bad log path: the good one is not left behind" \
	test -z "$(ls -A "$L")"
bench --name=b --filename=null --rw=read --size=1m --write_lat_log \
	--gtod_reduce=1
failed "--write_lat_log with --gtod_reduce" "needs the timing gtod_reduce"
bench --name=b --filename=null --rw=read --size=1m --log_avg_msec=-1
failed "--log_avg_msec=-1" "log_avg_msec"
bench --name=b --filename=null --rw=read --size=1m --log_compression=1m
failed "--log_compression refused" "log_compression=1m is not supported"

finish
