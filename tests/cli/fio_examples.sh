#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fio's own example job files (Debian's fio-examples) whose engines mqblk
# has (io_uring, libaio, psync, sync, pvsync*, posixaio, null, or none:
# fio's default psync): each runs, or is refused on its first stderr line
# naming an option mqblk-bench(1) lists as not implemented. The files are run
# as fio ships them but for what a test machine needs: sizes above 16 MiB
# become 16 MiB, runtime 1 s (in the file and as a command-line global
# default), ramp_time and startdelay 0, loops 1, numjobs at most 4,
# directory= and /dev/ filenames point at a scratch directory (a /dev/
# name becomes a 16 MiB file there, as if it were that disk).
# shellcheck source-path=SCRIPTDIR disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

EXAMPLES=${FIO_EXAMPLES:-/usr/share/doc/fio/examples}
BENCH_PAGE=$(dirname "${BASH_SOURCE[0]}")/../../docs/mqblk-bench.txt
MQBLK=$(realpath "$MQBLK")
ENGINES=" io_uring libaio psync sync pvsync pvsync2 posixaio null "

if [[ ! -d $EXAMPLES ]]; then
	fail "fio's examples" "no $EXAMPLES (scripts/deps installs fio-examples)"
	finish
fi

# mqblk-bench(1)'s table of options not implemented: | name | why (after
# its header row, | option | why)
mapfile -t not_impl < <(sed -n '/^== FIO OPTIONS NOT IMPLEMENTED/,/^== /p' \
	"$BENCH_PAGE" | sed -n 's/^| \([a-z_0-9]*\) |.*/\1/p' | grep -vx option)
check "mqblk-bench(1) lists the options not implemented (${#not_impl[@]})" \
	test "${#not_impl[@]}" -ge 5

rewrite()
{
	python3 - "$1" "$2" "$3" <<'PY'
import re, sys
src, dst, scratch = sys.argv[1:4]
units = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
def cap(v):
    m = re.fullmatch(r"(\d+)([kmgt]?)(i?b?)", v.strip().lower())
    if m and int(m.group(1)) * units[m.group(2)] > 16 << 20:
        return "16m"
    return v
out, devs = [], set()
for line in open(src):
    m = re.match(r"^(\s*)([A-Za-z_]+)(\s*=\s*)(.*?)\s*$", line)
    if m:
        ind, k, eq, v = m.groups()
        if k in ("size", "filesize", "io_size", "io_limit"):
            v = cap(v)
        elif k in ("runtime", "timeout"):
            v = "1"
        elif k in ("ramp_time", "startdelay"):
            v = "0"
        elif k == "loops":
            v = "1"
        elif k == "numjobs" and v.isdigit() and int(v) > 4:
            v = "4"
        elif k == "directory":
            v = scratch
        elif k == "filename" and v.startswith("/dev/"):
            v = scratch + "/" + v[5:].replace("/", "-")
            devs.add(v)
        line = f"{ind}{k}{eq}{v}\n"
    out.append(line)
open(dst, "w").write("".join(out))
print("\n".join(sorted(devs)))
PY
}

nr_run=0 nr_refused=0
for f in "$EXAMPLES"/*.fio; do
	name=$(basename "$f" .fio)
	engines=$(sed -n 's/^[[:space:]]*ioengine[[:space:]]*=[[:space:]]*\([^[:space:];#]*\).*/\1/p' "$f" | sort -u)
	ours=1
	for e in $engines; do
		[[ $ENGINES == *" $e "* ]] || ours=0
	done
	((ours)) || continue
	S=$TMP/scratch
	rm -rf "$S"
	mkdir -p "$S"
	devs=$(rewrite "$f" "$TMP/$name.fio" "$S")
	for d in $devs; do
		truncate -s 16m "$d"
	done
	RC=0
	(cd "$S" && timeout -k 5 60 "$MQBLK" bench --runtime=1 \
		"$TMP/$name.fio" --eta=never >"$OUT" 2>"$ERR" </dev/null) ||
		RC=$?
	if ((RC == 0)); then
		pass "examples/$name.fio runs"
		nr_run=$((nr_run + 1))
		continue
	fi
	why=$(first_err)
	named=
	for o in "${not_impl[@]}"; do
		if grep -qE "(^|[^a-z_])'?$o'?([=:' ]|$)" <<<"$why"; then
			named=$o
			break
		fi
	done
	if ((RC == 1)) && [[ -n $named ]]; then
		pass "examples/$name.fio refused: $named (mqblk-bench(1): not implemented)"
		nr_refused=$((nr_refused + 1))
	else
		fail "examples/$name.fio" "exit $RC: $why"
	fi
done
echo "fio examples: $nr_run run, $nr_refused refused by a listed option"
check "most of fio's examples with our engines run ($nr_run >= 10)" \
	test "$nr_run" -ge 10

finish
