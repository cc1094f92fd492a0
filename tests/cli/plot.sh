#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `mqblk plot` on real runs: mqblk bench's json+ reports with their logs
# (averaged windows and per-I/O), a --status-interval report with no
# logs, and fio's own json+ report and logs. The page is opened in
# headless Chromium: a screenshot is taken (a non-empty PNG), each chart's
# <svg id=...> is in the DOM it built, and the page logs nothing to the
# console (a page that does is caught: the check is tried on one). Bad
# input (a missing file, not a report, no jobs, a bad log line, no
# gnuplot) is one line, exit 1, and no page nor temporary file left.
# shellcheck source-path=SCRIPTDIR disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FIO=${FIO:-fio}
MQBLK=$(realpath "$MQBLK")
P=$TMP/plot
mkdir -p "$P/a" "$P/b" "$P/s" "$P/f" "$P/tmp"
# mqblk plot's temporary directories land here: checked empty after
export TMPDIR=$P/tmp

# bench DIR ARGS...: mqblk bench in DIR (where its logs land)
bench()
{
	RC=0
	(cd "$1" && shift && timeout -k 5 30 "$MQBLK" bench "$@" >"$OUT" \
		2>"$ERR" </dev/null) || RC=$?
}

# plot ARGS...: mqblk plot, from $P
plot()
{
	RC=0
	(cd "$P" && timeout -k 5 60 "$MQBLK" plot "$@" >"$OUT" 2>"$ERR" \
		</dev/null) || RC=$?
}

# bad NAME ERE PAGE: exit 1, one line on stderr matching ERE, no PAGE and
# no PAGE.tmp, nothing left in TMPDIR
bad()
{
	local why
	why=$(status_problem)
	[[ -z $why ]] && ((RC != 1)) && why="exit status $RC, want 1"
	[[ -z $why ]] && (($(wc -l <"$ERR") != 1)) &&
		why="$(wc -l <"$ERR") lines on stderr: $(first_err)"
	[[ -z $why ]] && ! grep -qE -- "^mqblk plot: .*$2" "$ERR" &&
		why="stderr lacks /$2/: $(first_err)"
	[[ -z $why && -e $3 ]] && why="$3 was written"
	[[ -z $why && -e $3.tmp ]] && why="$3.tmp was left behind"
	[[ -z $why && -n $(ls -A "$TMPDIR") ]] &&
		why="left in TMPDIR: $(ls -A "$TMPDIR" | head -n 1)"
	if [[ -n $why ]]; then
		fail "$1" "$why"
		return 1
	fi
	pass "$1"
}

# svg_ids PAGE: the ids of the <svg> elements in PAGE (or a DOM dump)
svg_ids()
{
	grep -oE '<svg id="[^"]*"' "$1" | sed -E 's/.*id="([^"]*)"/\1/' |
		tr '\n' ' '
}

if ! command -v gnuplot >/dev/null; then
	skip_setup "mqblk plot" "no gnuplot (scripts/deps installs gnuplot-nox)"
	finish
fi

# run a: averaged logs (100 ms windows), json+
bench "$P/a" --name=r --filename=null --rw=randread --runtime=2 \
	--time_based --write_bw_log=a --write_iops_log=a --write_lat_log=a \
	--log_avg_msec=100 --output-format=json+ --output=a.json
ok "run a: json+ and averaged logs"
# run b: per-I/O logs at 5000 IOPS, json+; the same job name
bench "$P/b" --name=r --filename=null --rw=randread --runtime=2 \
	--time_based --rate_iops=5000 --write_bw_log=b --write_iops_log=b \
	--write_lat_log=b --output-format=json+ --output=b.json
ok "run b: json+ and per-I/O logs"
check "run b: its per-I/O clat log is there" test -s "$P/b/b_clat.1.log"

plot -o page.html --threshold 5% a/a.json b/b.json
ok "plot of a against b" &&
	check "plot prints the page's name" test "$(cat "$OUT")" = page.html
check "the page is written, no page.html.tmp left" \
	test -s "$P/page.html" -a ! -e "$P/page.html.tmp"
check "TMPDIR cleaned up after a page" test -z "$(ls -A "$TMPDIR")"
check "every chart is an inline <svg> with its id" \
	test "$(svg_ids "$P/page.html")" = \
	"plot-iops plot-bw plot-lat plot-clat-hist plot-compare "
check "each chart's SVG is titled by the chart, not \"Gnuplot\"" \
	test "$(grep -c '<title>Gnuplot</title>' "$P/page.html")" = 0 -a \
	"$(grep -c '<title>IOPS over time</title>' "$P/page.html")" = 1
check "no XML prologue or doctype of gnuplot's inside the page" \
	test "$(grep -c -e '<?xml' -e '<!DOCTYPE svg' "$P/page.html")" = 0
check "no script in the page" \
	test "$(grep -ci '<script' "$P/page.html")" = 0
# svg_of ID PAGE: chart ID's SVG in PAGE
svg_of()
{
	sed -n "/<svg id=\"$1\"/,/<\\/svg>/p" "$2"
}
# gnuplot writes each line's name in its key as <text>NAME</text>
check "IOPS over time: run a's and run b's lines overlaid" \
	test "$(svg_of plot-iops "$P/page.html" |
		grep -cE '<text>(a|b): r read</text>')" = 2
check "bandwidth over time: both runs" \
	test "$(svg_of plot-bw "$P/page.html" |
		grep -cE '<text>(a|b): r read</text>')" = 2
check "latency: a's window means, b's p50/p99/p99.9 per interval" \
	test "$(svg_of plot-lat "$P/page.html" |
		grep -cE '<text>(a: r read clat window mean|b: r read clat p(50|99|99.9))</text>')" = 4
check "clat distribution: a line per run" \
	test "$(svg_of plot-clat-hist "$P/page.html" |
		grep -cE '<text>(a|b): r read</text>')" = 2
check "compare chart: a bar per metric, named" \
	test "$(svg_of plot-compare "$P/page.html" |
		grep -cE '<text>r read (iops|bw_bytes|clat_mean_ns|clat_p99_ns|clat_p99.99_ns)</text>')" = 5
check "ids inside each chart are prefixed by its own (no clash)" \
	test "$(grep -oE " id=['\"][^'\"]*['\"]" "$P/page.html" |
		sort | uniq -d | wc -l)" = 0
# what compare says, drawn, and its table: b is 5000 IOPS against
# millions, far past 5 %
check "compare's table is in the page with b's IOPS regression" \
	grep -qE '^r +0  read   iops .*REGRESSION' "$P/page.html"
check "the runs table lists both runs" \
	test "$(grep -cE '<tr><td class="l">(a|b)</td>' "$P/page.html")" = 2

# the page in a real browser
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
# chrome PAGE: headless Chromium; DOM on $OUT, its log on $ERR, a
# screenshot in $P/shot.png
chrome()
{
	local url=file://$1
	rm -f "$P/shot.png"
	RC=0
	timeout -k 5 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--user-data-dir="$P/chrome" --window-size=1100,4000 \
		--virtual-time-budget=3000 --enable-logging=stderr --v=0 \
		--screenshot="$P/shot.png" "$url" >/dev/null 2>"$ERR.shot" \
		</dev/null || RC=$?
	((RC == 0)) || return 0
	timeout -k 5 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--user-data-dir="$P/chrome" --virtual-time-budget=3000 \
		--enable-logging=stderr --v=0 --dump-dom "$url" >"$OUT" \
		2>"$ERR" </dev/null || RC=$?
	cat "$ERR.shot" >>"$ERR"
}
# console: what the page logged to the console (Chromium's CONSOLE lines)
console()
{
	grep -E 'CONSOLE|Uncaught|Failed to load' "$ERR" || true
}
if [[ -n $CHROMIUM ]]; then
	chrome "$P/page.html"
	if ((RC != 0)); then
		fail "Chromium opens the page" "status $RC: $(tail -n 1 "$ERR")"
	else
		pass "Chromium opens the page"
		check "a screenshot was taken: a PNG, not empty" \
			bash -c "test -s '$P/shot.png' &&
				head -c 8 '$P/shot.png' | od -An -c | grep -q 'P   N   G'"
		check "each chart's <svg> is in the DOM Chromium built" \
			test "$(svg_ids "$OUT")" = \
			"plot-iops plot-bw plot-lat plot-clat-hist plot-compare "
		check "the page logs nothing to the console" \
			test -z "$(console)"
		# the console check catches a page that does log
		printf '<!DOCTYPE html><html><body><script>%s</script></body></html>\n' \
			'console.error("planted"); nosuch();' >"$P/noisy.html"
		chrome "$P/noisy.html"
		check "the console check sees a page's errors" \
			test -n "$(console)"
	fi
else
	skip_setup "Chromium opens the page" "no chromium (scripts/deps installs it)"
fi

# --status-interval reports and no logs: the charts over time from them
bench "$P/s" --name=st --filename=null --rw=randread --runtime=3 \
	--time_based --status-interval=1 --output-format=json --output=s.json
ok "run s: --status-interval=1 json"
check "run s: several reports in the file" \
	test "$(grep -c '^{' "$P/s/s.json")" -ge 3
plot -o s.html s/s.json
ok "plot of a --status-interval run"
check "status run: over-time charts from its reports, no distribution" \
	test "$(svg_ids "$P/s.html")" = "plot-iops plot-bw plot-lat "
check "status run: no clat bins said so (not json+)" \
	grep -q 'id="plot-clat-hist-none"' "$P/s.html"
check "status run: the percentiles are labelled cumulative" \
	grep -q '<text>st read clat p99 (cumulative)</text>' "$P/s.html"

# --log-dir: a report moved away from its logs
mkdir -p "$P/moved"
cp "$P/a/a.json" "$P/moved/a.json"
plot -o m.html moved/a.json
ok "plot of a report without its logs" &&
	check "without its logs: no IOPS chart, and why" \
		grep -q 'id="plot-iops-none"' "$P/m.html"
plot -o m.html --log-dir a moved/a.json
ok "--log-dir: the logs found there" &&
	check "--log-dir: IOPS, bandwidth and latency over time drawn" \
		test "$(svg_ids "$P/m.html")" = \
		"plot-iops plot-bw plot-lat plot-clat-hist "
plot -o m2.html --log-dir nowhere moved/a.json
bad "--log-dir that does not exist" "--log-dir nowhere: No such file" \
	"$P/m2.html"
plot -o m2.html --log-dir=a/a.json moved/a.json
bad "--log-dir that is a file" "--log-dir a/a.json: not a directory" \
	"$P/m2.html"

# numjobs=2 without group_reporting: two entries of one name, each
# thread's log file; one line per direction, the threads summed
mkdir -p "$P/n"
bench "$P/n" --name=c --filename=null --rw=randread --runtime=1 \
	--time_based --rate_iops=2000 --numjobs=2 --write_iops_log=c \
	--log_avg_msec=100 --output-format=json --output=c.json
ok "run n: numjobs=2, a log per thread" &&
	check "run n: c_iops.1.log and c_iops.2.log" \
		test -s "$P/n/c_iops.1.log" -a -s "$P/n/c_iops.2.log"
plot -o n.html n/c.json
ok "plot of a numjobs=2 run"
check "numjobs=2: one IOPS line for the job, not one per entry" \
	test "$(svg_of plot-iops "$P/n.html" | grep -c '<text>c read</text>')" = 1

# fio's own report and logs
if command -v "$FIO" >/dev/null; then
	(cd "$P/f" && timeout -k 5 30 "$FIO" --name=fj --ioengine=null \
		--rw=randrw --size=1g --runtime=2 --time_based \
		--write_iops_log=fj --write_lat_log=fj --log_avg_msec=200 \
		--output-format=json+ --output=f.json >/dev/null 2>&1)
	plot -o f.html f/f.json
	ok "plot of fio's json+ report and logs"
	check "fio's run: IOPS (its log), latency (its log), distribution" \
		test "$(svg_ids "$P/f.html")" = \
		"plot-iops plot-lat plot-clat-hist "
	check "fio's run: reads and writes drawn" \
		test "$(grep -cE '<text>fj (read|write)</text>' "$P/f.html")" = 4
	# fio's --status-interval JSON: a report a second in one file
	(cd "$P/f" && timeout -k 5 30 "$FIO" --name=fs --ioengine=null \
		--rw=randread --size=1g --runtime=3 --time_based \
		--status-interval=1 --output-format=json --output=fs.json \
		>/dev/null 2>&1)
	plot -o fs.html f/fs.json
	ok "plot of fio's --status-interval report"
	check "fio's status reports: IOPS, bandwidth, percentiles over time" \
		test "$(svg_ids "$P/fs.html")" = "plot-iops plot-bw plot-lat "
	check "fio's status reports: p50, p99, p99.9 drawn" \
		test "$(grep -cE '<text>fs read clat p(50|99|99.9) \(cumulative\)</text>' "$P/fs.html")" = 3
else
	skip_setup "plot of fio's report" "no fio"
fi

# bad input: one line, exit 1, nothing written
rm -f "$P/x.html"
plot -o x.html nosuch.json
bad "a missing report" "nosuch.json: No such file" "$P/x.html"
echo 'not json at all' >"$P/t.txt"
plot -o x.html t.txt
bad "not a report" "t.txt: not a JSON report" "$P/x.html"
echo '{"fio version": "fio-3.33", "disk_util": []}' >"$P/nojobs.json"
plot -o x.html nojobs.json
bad "JSON without jobs" 'no "jobs" array' "$P/x.html"
echo '{"fio version": "fio-3.33", "jobs": []}' >"$P/empty.json"
plot -o x.html empty.json
bad "no jobs" "has no jobs" "$P/x.html"
head -c 300 "$P/a/a.json" >"$P/cut.json"
plot -o x.html cut.json
bad "a truncated report" "does not end" "$P/x.html"
mkdir -p "$P/bl"
cp "$P/a/a.json" "$P/bl/a.json"
cp "$P/a/a_iops.1.log" "$P/bl/a_iops.1.log"
echo '100, 5, x, 0, 0' >>"$P/bl/a_iops.1.log"
plot -o x.html bl/a.json
bad "a bad log line: file and line named" \
	"a_iops.1.log:[0-9]+: not a fio log line" "$P/x.html"
plot -o x.html a/a.json b/b.json c.json
bad "three sides" "one more argument" "$P/x.html"
plot -o x.html --threshold=lots a/a.json b/b.json
bad "a bad --threshold" "bad --threshold 'lots'" "$P/x.html"
plot -o x.html --threshold 5% a/a.json
bad "--threshold with one side" "--threshold needs two sides" "$P/x.html"
plot -o x.html --threshold=5 a/a.json,b/b.json
bad "--threshold with one side of two runs" "--threshold needs two sides" \
	"$P/x.html"
plot -o x.html --bogus a/a.json
bad "an unknown option" "unknown option '--bogus'" "$P/x.html"
plot -o nodir/x.html a/a.json
bad "a page that cannot be written" "cannot write nodir/x.html.tmp" \
	"$P/nodir/x.html"
mkdir -p "$P/nognuplot"
ln -sf "$(command -v true)" "$P/nognuplot/true"
RC=0
(cd "$P" && timeout 20 env PATH="$P/nognuplot" "$MQBLK" plot -o x.html \
	a/a.json >"$OUT" 2>"$ERR" </dev/null) || RC=$?
bad "no gnuplot: named" "gnuplot not found in PATH" "$P/x.html"
# a gnuplot that fails: its message, and the temporary files go
printf '#!/bin/sh\necho "plot.gp line 3: something broke" >&2\nexit 1\n' \
	>"$P/nognuplot/gnuplot"
chmod +x "$P/nognuplot/gnuplot"
RC=0
(cd "$P" && timeout 20 env PATH="$P/nognuplot" "$MQBLK" plot -o x.html \
	a/a.json >"$OUT" 2>"$ERR" </dev/null) || RC=$?
bad "gnuplot failing: its first line, nothing left" \
	"gnuplot failed \(status 1\): plot.gp line 3: something broke" \
	"$P/x.html"

plot --help
ok "plot --help" && check "--help names the charts" \
	grep -q 'latency percentiles over time' "$OUT"

finish
