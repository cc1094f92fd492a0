#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The man pages (docs/*.txt) against the binary: every subcommand `mqblk
# help` lists has its page; every long option a subcommand's --help lists
# is in its page, and every option the page documents (a definition list
# entry, `*--opt*...::`) is in that --help; and every long option any page
# names anywhere is one some mqblk command takes (examples of other
# programs, such as the Linux host's nvme-cli lines, excepted); the
# README's mqblk command lines name real subcommands and options. And
# the bash completion offers what the same --help texts list.
#
# Usage: bash tests/cli/docs.sh BUILD/mqblk SOURCE_ROOT
# shellcheck shell=bash
source "$(dirname "$0")/lib.sh"

SRC=${2:?source root}
DOCS=$SRC/docs

# long_opts: the long option names in stdin, one a line, sorted (a glob
# such as --allow-* in a help text is not one)
long_opts()
{
	grep -oE -- '--[a-z][a-z0-9_-]*[a-z0-9](-\*)?' | grep -v -- '-\*$' |
		sort -u
}

# page_text PAGE: the page without its listing blocks that run no mqblk
# command (the Linux host's nvme-cli lines in mqblk-target's examples)
page_text()
{
	awk '
		/^----$/ {
			if (inb && blk ~ /(^|\n)mqblk /)
				printf "%s", blk
			inb = !inb
			blk = ""
			next
		}
		inb { blk = blk $0 "\n"; next }
		{ print }' "$1"
}

# the subcommands mqblk help lists (version and help need no page)
run help
ok "mqblk help"
cmds=$(awk '/^commands:/ { on = 1; next }
	on && /^  [a-z][a-z-]* / { print $1 }' "$OUT" | grep -vxE 'help|version')
check "mqblk help lists subcommands ($(echo $cmds))" test -n "$cmds"

check "docs/mqblk.txt exists (mqblk(8))" test -f "$DOCS/mqblk.txt"
for c in $cmds; do
	page=$DOCS/mqblk-$c.txt
	if [[ ! -f $page ]]; then
		fail "mqblk $c has a page" "no docs/mqblk-$c.txt"
		continue
	fi
	pass "mqblk $c has a page (docs/mqblk-$c.txt)"
	check "mqblk(8) names mqblk-$c" grep -q "mqblk-$c" "$DOCS/mqblk.txt"
	run "$c" --help
	ok "mqblk $c --help" || continue
	long_opts <"$OUT" >"$TMP/help-$c"
	page_text "$page" | long_opts >"$TMP/page-$c"
	missing=$(comm -23 "$TMP/help-$c" "$TMP/page-$c" | tr '\n' ' ')
	check "every option mqblk $c --help lists is in mqblk-$c.txt${missing:+ (missing: $missing)}" \
		test -z "$missing"
	grep -E '::$' "$page" | long_opts >"$TMP/entries-$c"
	extra=$(comm -13 "$TMP/help-$c" "$TMP/entries-$c" | tr '\n' ' ')
	check "every option mqblk-$c.txt documents is in mqblk $c --help${extra:+ (not in --help: $extra)}" \
		test -z "$extra"
done

# every option any page names belongs to some mqblk command
sort -u "$TMP"/help-* >"$TMP/help-all"
for page in "$DOCS"/*.txt; do
	extra=$(page_text "$page" | long_opts | comm -13 "$TMP/help-all" - |
		tr '\n' ' ')
	check "every option $(basename "$page") names is an mqblk option${extra:+ (none takes: $extra)}" \
		test -z "$extra"
done

# mqblk ctl's commands: each in its page
run ctl --help
ctl_cmds=$(awk '/^  [a-z][a-z-]* / { print $1 }' "$OUT")
missing=
for c in $ctl_cmds; do
	grep -qE "^\*$c\*" "$DOCS/mqblk-ctl.txt" || missing="$missing $c"
done
check "every command mqblk ctl --help lists has its entry in mqblk-ctl.txt${missing:+ (missing:$missing)}" \
	test -n "$ctl_cmds" -a -z "$missing"

# the README's mqblk command lines (in its code blocks: a line starting
# build/mqblk and its continuation lines) name real subcommands and
# options
awk '/^```/ { inb = !inb; cont = 0; next }
	inb && (cont || /^build\/mqblk /) {
		print
		cont = /\\$/
	}' "$SRC/README.md" >"$TMP/readme-cmds"
bad=
for c in $(awk '$1 == "build/mqblk" { print $2 }' "$TMP/readme-cmds" | sort -u); do
	grep -qx -- "$c" <<<"$cmds" || bad="$bad $c"
done
check "every subcommand in the README's command lines is one mqblk help lists${bad:+ (not:$bad)}" \
	test -s "$TMP/readme-cmds" -a -z "$bad"
extra=$(long_opts <"$TMP/readme-cmds" | comm -13 "$TMP/help-all" - | tr '\n' ' ')
check "every option in the README's command lines is an mqblk option${extra:+ (none takes: $extra)}" \
	test -z "$extra"

# ---- bash completion (completions/mqblk) against the same --help texts
# complete_words WORD...: COMPREPLY of _mqblk for the command line
# WORD... (the last word being completed), sorted, one a line in $OUT
complete_words()
{
	COMP_WORDS=("$MQBLK" "$@")
	COMP_CWORD=$#
	COMPREPLY=()
	_mqblk
	printf '%s\n' "${COMPREPLY[@]}" | sort -u >"$OUT"
}
# shellcheck source=../../completions/mqblk
source "$SRC/completions/mqblk"
complete_words ""
missing=
for c in $cmds; do
	grep -qx "$c" "$OUT" || missing="$missing $c"
done
check "mqblk <TAB> offers every subcommand${missing:+ (missing:$missing)}" \
	test -n "$cmds" -a -z "$missing"
complete_words "bench" "--"
check "mqblk bench --<TAB> offers exactly bench --help's options" \
	eval 'diff <(grep -- "^--" "$OUT") "$TMP/help-bench" >/dev/null'
complete_words "target" "--"
check "mqblk target --<TAB> offers exactly target --help's options" \
	eval 'diff <(grep -- "^--" "$OUT") "$TMP/help-target" >/dev/null'
complete_words "bench" "--ioeng"
check "mqblk bench --ioeng<TAB> is --ioengine=" \
	eval '[[ $(cat "$OUT") == --ioengine= ]]'
complete_words "bench" "--rw" "=" ""
check "mqblk bench --rw=<TAB> offers fio's patterns" \
	eval '[[ $(tr "\n" " " <"$OUT") == "randread randrw randtrim randwrite read readwrite rw trim write " ]]'
complete_words "bench" "--ioscheduler" "=" "mq"
check "mqblk bench --ioscheduler=mq<TAB> is mq-deadline" \
	eval '[[ $(cat "$OUT") == mq-deadline ]]'
complete_words "target" "--zer"
check "mqblk target --zer<TAB> is --zerocopy" \
	eval '[[ $(cat "$OUT") == --zerocopy ]]'
complete_words "ctl" "/run/x.sock" ""
check "mqblk ctl SOCKET <TAB> offers ctl --help's commands" \
	eval '[[ $(tr "\n" " " <"$OUT") == "$(echo $ctl_cmds | tr " " "\n" | sort | tr "\n" " ")" ]]'
complete_words "discover" "--tr"
check "mqblk discover --tr<TAB> offers --transport --traddr --trsvcid" \
	eval '[[ $(tr "\n" " " <"$OUT") == "--traddr --transport --trsvcid " ]]'

finish
