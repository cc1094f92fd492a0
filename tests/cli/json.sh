#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `mqblk bench --output-format=json|json+ [--output=FILE]` writes fio's JSON:
# checked by the kind of python a fio user already has for fio's output.
# shellcheck source-path=SCRIPTDIR disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

base=(--name=j --filename=null --rw=randread --bs=4k --iodepth=16
	--runtime=1 --time_based)

# pycheck PREFIX MODE FILE: python3 checks FILE as MODE, printing PASS/FAIL
# lines named PREFIX-*; counts them into ours.
pycheck()
{
	local line
	while IFS= read -r line; do
		case $line in
		PASS\ *) pass "$1-${line#PASS }" ;;
		FAIL\ *)
			line=${line#FAIL }
			fail "$1-${line%%: *}" "${line#*: }"
			;;
		*) echo "$line" ;;
		esac
	done < <(python3 - "$2" "$3" <<'PY' 2>&1
import json
import sys

mode, path = sys.argv[1], sys.argv[2]


def check(name, fn, why="false"):
    try:
        ok = fn()
    except Exception as e:  # a missing key is a failed check, not a crash
        ok, why = False, "%s: %s" % (type(e).__name__, e)
    print(("PASS %s" % name) if ok else ("FAIL %s: %s" % (name, why)))


def number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


try:
    with open(path) as f:
        d = json.load(f)
except Exception as e:
    print("FAIL parse: %s: %s" % (type(e).__name__, e))
    sys.exit(0)
print("PASS parse")

if mode in ("json", "json+"):
    check("fio-version", lambda: "fio version" in d)
    check("read-iops", lambda: d["jobs"][0]["read"]["iops"] > 0)
    check("clat-p99", lambda: number(
        d["jobs"][0]["read"]["clat_ns"]["percentile"]["99.000000"]))
    check("job-options", lambda: isinstance(d["jobs"][0]["job options"], dict))
    check("total-ios-is-io-bytes-over-bs", lambda:
          d["jobs"][0]["read"]["total_ios"] > 0 and
          d["jobs"][0]["read"]["total_ios"] ==
          d["jobs"][0]["read"]["io_bytes"] // 4096 and
          d["jobs"][0]["read"]["io_bytes"] % 4096 == 0)
if mode == "json+":
    check("clat-bins", lambda: isinstance(
        d["jobs"][0]["read"]["clat_ns"]["bins"], dict) and
        len(d["jobs"][0]["read"]["clat_ns"]["bins"]) > 0)
if mode == "randrw":
    r = d["jobs"][0]["read"]["total_ios"]
    w = d["jobs"][0]["write"]["total_ios"]
    check("has-read", lambda: r > 0)
    check("has-write", lambda: w > 0)
    share = 100.0 * r / (r + w) if r + w else 0
    check("read-share-70", lambda: 60 <= share <= 80,
          "read share %.1f%%, want 60..80" % share)
PY
	)
}

# ran NAME: PASS if the last run exited 0 without crash or hang.
ran()
{
	local why
	why=$(status_problem)
	[[ -z $why ]] && ((RC != 0)) && why="exit status $RC: $(first_err)"
	if [[ -n $why ]]; then
		fail "$1" "$why"
		return 1
	fi
	pass "$1"
}

run bench "${base[@]}" --output-format=json
if ran json-run; then
	pycheck json json "$OUT"
fi

run bench "${base[@]}" --output-format=json+
if ran jsonplus-run; then
	pycheck jsonplus json+ "$OUT"
fi

# fio's own json+ reader (Debian's fio package ships it) takes our json+.
if command -v fio_jsonplus_clat2csv >/dev/null; then
	run bench "${base[@]}" --output-format=json+ --output="$TMP/plus.json"
	if ran clat2csv-run; then
		if fio_jsonplus_clat2csv "$TMP/plus.json" "$TMP/plus.csv" \
			>"$TMP/clat2csv.log" 2>&1 &&
			[[ $(wc -l <"$TMP/plus_job0.csv") -gt 1 ]] &&
			head -n 1 "$TMP/plus_job0.csv" | grep -q read_clat_ns_count; then
			pass fio-jsonplus-clat2csv-reads-it
		else
			fail fio-jsonplus-clat2csv-reads-it "$(tail -n 2 "$TMP/clat2csv.log")"
		fi
	fi
else
	fail fio-jsonplus-clat2csv-reads-it "fio_jsonplus_clat2csv not installed (scripts/deps installs fio)"
fi

run bench "${base[@]}" --output-format=json --output="$TMP/out.json"
if ran output-file-run; then
	if [[ -s $OUT ]]; then
		fail output-file-stdout-empty "stdout: $(head -n 1 "$OUT")"
	else
		pass output-file-stdout-empty
	fi
	pycheck output-file json "$TMP/out.json"
fi

run bench --name=mix --filename=null --rw=randrw --rwmixread=70 --bs=4k \
	--iodepth=16 --runtime=1 --time_based --output-format=json
if ran randrw-run; then
	pycheck randrw randrw "$OUT"
fi

finish
