#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fio's --random_distribution (zipf, pareto, normal, zoned, zoned_abs):
# offsets read back from the per-I/O clat log (--log_offset=1) follow the
# law: the hottest 1% of the blocks take the share fio 3.33 gives them
# (run beside mqblk on its null engine when fio is here, within 0.05), each
# zone its share of the I/Os (beside fio, within 0.03) and none outside
# the zones, uniform stays uniform, a center of 0 puts zipf's hottest block
# first, and fio's refusals are fio's words, one line, exit 1.
# shellcheck source-path=SCRIPTDIR disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FIO=${FIO:-fio}
MQBLK=$(realpath "$MQBLK")
D=$TMP/dist
mkdir -p "$D"
# 64 MiB of 4k blocks, 16000 random reads (under a pass: a pass is the
# size, as fio's number_ios is capped by it)
NB=16384
NIOS=16000

# bench ARGS...: mqblk bench in $D (where its logs land)
bench()
{
	RC=0
	(cd "$D" && timeout -k 5 60 "$MQBLK" bench --filename=null \
		--size=64m --number_ios=$NIOS --write_lat_log=m \
		--log_offset=1 "$@" >"$OUT" 2>"$ERR" </dev/null) || RC=$?
}

# share LOG: the share of the I/Os that went to the hottest 1% of the
# blocks, 3 decimals; distinct LOG: how many blocks were touched
share()
{
	cut -d, -f5 "$1" | sort | uniq -c | sort -rn |
		awk -v k=$((NB / 100)) '{ t += $1; if (NR <= k) s += $1 }
			END { printf "%.3f\n", t ? s / t : 0 }'
}
distinct()
{
	cut -d, -f5 "$1" | sort -u | wc -l
}

# within A LO HI: LO <= A <= HI
within()
{
	awk -v a="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(a >= lo && a <= hi) }'
}

# law NAME VALUE LO HI: mqblk's share for --random_distribution=VALUE in
# [LO, HI], and within 0.05 of fio's when fio is here
law()
{
	local name=$1 v=$2 lo=$3 hi=$4 s f
	rm -f "$D"/*.log
	bench --name=m --rw=randread --random_distribution="$v"
	ok "$name: runs" || return
	check "$name: $NIOS offsets logged" \
		test "$(wc -l <"$D/m_clat.1.log")" = $NIOS
	s=$(share "$D/m_clat.1.log")
	check "$name: hottest 1% of blocks take $s of the I/Os, in [$lo, $hi]" \
		within "$s" "$lo" "$hi"
	if ! command -v "$FIO" >/dev/null; then
		skip "$name: beside fio" "no fio"
		return
	fi
	(cd "$D" && timeout -k 5 60 "$FIO" --name=f --ioengine=null \
		--rw=randread --size=64m --number_ios=$NIOS \
		--random_distribution="$v" --write_lat_log=f --log_offset=1 \
		--output-format=terse >/dev/null 2>&1)
	f=$(share "$D/f_clat.1.log")
	check "$name: mqblk's share $s within 0.05 of fio's $f" \
		within "$(awk -v a="$s" -v b="$f" 'BEGIN { print a - b }')" \
		-0.05 0.05
}

law "zipf:1.2" zipf:1.2 0.70 0.88
law "zipf (theta 1.1)" zipf 0.55 0.80
law "zipf:0.8" zipf:0.8 0.25 0.40
law "pareto:0.2" pareto:0.2 0.45 0.62
law "pareto (h 0.2)" pareto 0.45 0.62
law "normal:5" normal:5 0.05 0.15

# fio's zones: the share of the I/Os whose offsets fall in [LO, HI) bytes
# (zshare LOG LO HI [DDIR]: of reads 0 or writes 1 only)
zshare()
{
	awk -F', ' -v lo="$2" -v hi="$3" -v dd="${4:--1}" '
		dd >= 0 && $3 != dd { next }
		{ t++; if ($5 >= lo && $5 < hi) s++ }
		END { printf "%.3f\n", t ? s / t : 0 }' "$1"
}
# zoned NAME VALUE BOUNDS...: the shares of [0, B1), [B1, B2), ... for
# --random_distribution=VALUE, printed "s1 s2 ...", beside fio's
zones()
{
	local log=$1 b lo=0 out=""
	shift
	for b in "$@"; do
		out="$out $(zshare "$log" "$lo" "$b")"
		lo=$b
	done
	echo "${out# }"
}
M64=67108864
# zoned:80/10:20/30: 80% to the first 10% (1638 blocks), 20% to the next
# 30% (4915), none past 40% (fio: a zone is blocks * percent / 100)
Z1=$((1638 * 4096)) Z2=$(((1638 + 4915) * 4096))
rm -f "$D"/*.log
bench --name=m --rw=randread --random_distribution=zoned:80/10:20/30
ok "zoned:80/10:20/30: runs" &&
	zs=$(zones "$D/m_clat.1.log" $Z1 $Z2 $M64) &&
	check "zoned:80/10:20/30: shares ($zs) about 0.8 0.2 0" \
		awk -v s="$zs" 'BEGIN { split(s, a, " "); exit !(a[1] > 0.77 && a[1] < 0.83 && a[2] > 0.17 && a[2] < 0.23 && a[3] == 0) }'
if command -v "$FIO" >/dev/null; then
	(cd "$D" && timeout -k 5 60 "$FIO" --name=f --ioengine=null \
		--rw=randread --size=64m --number_ios=$NIOS \
		--random_distribution=zoned:80/10:20/30 --write_lat_log=f \
		--log_offset=1 --output-format=terse >/dev/null 2>&1)
	fz=$(zones "$D/f_clat.1.log" $Z1 $Z2 $M64)
	check "zoned:80/10:20/30: fio's shares ($fz) within 0.03 of mqblk's ($zs)" \
		awk -v a="$zs" -v b="$fz" 'BEGIN { split(a, x, " "); split(b, y, " "); for (i = 1; i <= 3; i++) if (x[i] - y[i] > 0.03 || y[i] - x[i] > 0.03) exit 1 }'
else
	skip "zoned: beside fio" "no fio"
fi
# zoned_abs: 50% to the first 4 MiB, 50% to the next 8 MiB, none after
rm -f "$D"/*.log
bench --name=m --rw=randread --random_distribution=zoned_abs:50/4m:50/8m
ok "zoned_abs:50/4m:50/8m: runs" &&
	zs=$(zones "$D/m_clat.1.log" 4194304 12582912 $M64) &&
	check "zoned_abs:50/4m:50/8m: shares ($zs) about 0.5 0.5 0" \
		awk -v s="$zs" 'BEGIN { split(s, a, " "); exit !(a[1] > 0.47 && a[1] < 0.53 && a[2] > 0.47 && a[2] < 0.53 && a[3] == 0) }'
# a list per direction (fio's R,W): reads in the first 10%, writes in
# the second half
rm -f "$D"/*.log
bench --name=m --rw=randrw --random_distribution=zoned:100/10,0/50:100/50
ok "zoned:100/10,0/50:100/50 randrw: runs" &&
	check "zoned R,W: every read in the first 10%" \
		test "$(zshare "$D/m_clat.1.log" 0 $Z1 0)" = 1.000 &&
	check "zoned R,W: every write in the second half" \
		test "$(zshare "$D/m_clat.1.log" $((M64 / 2)) $M64 1)" = 1.000
# an empty list leaves its direction uniform: writes everywhere
rm -f "$D"/*.log
bench --name=m --rw=randrw --random_distribution=zoned:100/10,
ok "zoned:100/10, (writes uniform): runs" &&
	check "zoned R,: reads in the first 10%" \
		test "$(zshare "$D/m_clat.1.log" 0 $Z1 0)" = 1.000 &&
	check "zoned R,: writes past the first half too" \
		within "$(zshare "$D/m_clat.1.log" $((M64 / 2)) $M64 1)" 0.4 0.6

# uniform: the random map touches every block once in the first pass
rm -f "$D"/*.log
bench --name=m --rw=randread
ok "random: runs" &&
	check "random: the random map: $NIOS distinct blocks" \
		test "$(distinct "$D/m_clat.1.log")" = $NIOS
check "random: hottest 1% take at most 2%" \
	within "$(share "$D/m_clat.1.log")" 0 0.02

# a law implies no random map (as fio): zipf revisits blocks, with or
# without --norandommap
rm -f "$D"/*.log
bench --name=m --rw=randread --random_distribution=zipf:1.2
n1=$(distinct "$D/m_clat.1.log")
rm -f "$D"/*.log
bench --name=m --rw=randread --random_distribution=zipf:1.2 --norandommap
check "zipf: the same offsets with --norandommap (no map either way)" \
	test "$(distinct "$D/m_clat.1.log")" = "$n1"
check "zipf:1.2: blocks repeat ($n1 distinct of $NIOS)" test "$n1" -lt 4000

# center 0: zipf's rank 0 is block 0, the most used offset
rm -f "$D"/*.log
bench --name=m --rw=randread --random_distribution=zipf:1.2:0
ok "zipf:1.2:0 runs" &&
	check "zipf:1.2:0: offset 0 is the hottest" \
		test "$(cut -d, -f5 "$D/m_clat.1.log" | sort | uniq -c |
			sort -rn | awk 'NR == 1 { print $2 }')" = 0

# the same seed, the same offsets; another seed, others
rm -f "$D"/*.log
bench --name=m --rw=randread --random_distribution=pareto:0.3 --randseed=7
cut -d, -f5 "$D/m_clat.1.log" >"$D/a"
rm -f "$D"/*.log
bench --name=m --rw=randread --random_distribution=pareto:0.3 --randseed=7
cut -d, -f5 "$D/m_clat.1.log" >"$D/b"
rm -f "$D"/*.log
bench --name=m --rw=randread --random_distribution=pareto:0.3 --randseed=8
check "pareto: --randseed=7 twice, the same offsets" cmp -s "$D/a" "$D/b"
check "pareto: --randseed=8, other offsets" \
	test "$(cut -d, -f5 "$D/m_clat.1.log" | cmp -s - "$D/a" && echo same)" = ""

# randrw: reads and writes both follow the law; offsets stay in the range
rm -f "$D"/*.log
bench --name=m --rw=randrw --random_distribution=zipf:1.2
ok "randrw zipf:1.2 runs" &&
	check "randrw: reads and writes both hot" \
		within "$(share "$D/m_clat.1.log")" 0.70 0.88
# shellcheck disable=SC2016 # awk's fields, not the shell's
check "randrw: every offset a 4k block inside 64 MiB" \
	awk -F', ' '$5 % 4096 || $5 >= 67108864 { bad = 1 } END { exit bad }' \
	"$D/m_clat.1.log"

# a job file takes it too
printf '[j]\nfilename=null\nrw=randread\nsize=64m\nnumber_ios=%s\nrandom_distribution=zipf:1.2\nwrite_lat_log=m\nlog_offset=1\n' \
	$NIOS >"$D/j.fio"
rm -f "$D"/*.log
# shellcheck disable=SC2034 # RC is for ok (lib.sh)
jobfile()
{
	RC=0
	(cd "$D" && timeout -k 5 60 "$MQBLK" bench "$1" >"$OUT" 2>"$ERR" \
		</dev/null) || RC=$?
}
jobfile j.fio
ok "job file random_distribution=zipf:1.2" &&
	check "job file: hottest 1% take over 70%" \
		within "$(share "$D/m_clat.1.log")" 0.70 0.88

# the JSON job options carry it as given, as fio's do
run bench --name=x --filename=null --rw=randread --size=1m \
	--random_distribution=zipf:1.2:0.5 --output-format=json
ok "json with zipf:1.2:0.5" &&
	check "json: job options random_distribution zipf:1.2:0.5" \
		has '"random_distribution" : "zipf:1.2:0.5"'

# fio's refusals
bad()
{
	local name=$1 re=$2
	shift 2
	run bench --name=x --filename=null --rw=randread --size=1m "$@"
	failed "$name" "$re" &&
		check "$name: one line" test "$(wc -l <"$ERR")" = 1
}
bad "zipf:1" "zipf theta must be different than 1.0" \
	--random_distribution=zipf:1
bad "pareto:0" "pareto input out of range \(0 < input < 1.0\)" \
	--random_distribution=pareto:0
bad "pareto:1" "pareto input out of range" --random_distribution=pareto:1
bad "normal:100" "normal deviation out of range \(0 <= input < 100.0\)" \
	--random_distribution=normal:100
bad "normal:-1" "normal deviation out of range" \
	--random_distribution=normal:-1
bad "zipf:1.2:2" "distribution center out of range" \
	--random_distribution=zipf:1.2:2
bad "zipf:abc" "random postfix parsing failed" \
	--random_distribution=zipf:abc
bad "zipf:1.2x" "random postfix parsing failed" \
	--random_distribution=zipf:1.2x
bad "gauss:5 (not one of fio's names)" \
	"failed parsing random_distribution=gauss:5" \
	--random_distribution=gauss:5
bad "zoned: access not 100" \
	"random_distribution=zoned:80/10:10/30: access percentages add up to 90, not 100" \
	--random_distribution=zoned:80/10:10/30
bad "zoned: sizes over 100" "zone size percentages add up to 120, more than 100" \
	--random_distribution=zoned:80/60:20/60
bad "zoned: no zones" "no zones" --random_distribution=zoned
bad "zoned: empty zone" "empty zone" --random_distribution=zoned:80/10::20/30
bad "zoned: four lists" "at most 3 lists" \
	--random_distribution=zoned:100/10,100/10,100/10,100/10
bad "zoned_abs: a zone with no size" "zone 1 has no size" \
	--random_distribution=zoned_abs:100
bad "zoned_abs: zones past the region" \
	"random_distribution=zoned_abs: the zones end at 2097152 bytes, past the 1048576 bytes of the job's region" \
	--random_distribution=zoned_abs:50/1m:50/1m
bad "random:3" "random takes no value" --random_distribution=random:3

finish
