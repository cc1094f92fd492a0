#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What `meson install` ships, installed into a DESTDIR: the binary, libmqblk
# shared and static, mqblk.pc, the headers, the licence, the man pages and
# their HTML, the bash completion, the systemd unit; then
# examples/simple.c built with nothing but what `pkg-config --cflags --libs
# mqblk` prints (and, against the archive, `--static`), and run.
#
# Usage: bash tests/cli/install.sh BUILD/mqblk BUILD_ROOT SOURCE_ROOT
# with PREFIX, LIBDIR, BINDIR, INCLUDEDIR, DATADIR, MANDIR, SYSCONFDIR,
# BASHCOMPLETIONDIR, SYSTEMDUNITDIR (absolute), DOCS_BUILT (1 when
# asciidoctor built the man pages), CC and SANITIZE (meson's b_sanitize)
# in the environment, as tests/meson.build passes them.
# shellcheck shell=bash
source "$(dirname "$0")/lib.sh"

BUILD=${2:?build root}
SRC=${3:?source root}
: "${PREFIX:?}" "${LIBDIR:?}" "${BINDIR:?}" "${INCLUDEDIR:?}" "${DATADIR:?}"
: "${MANDIR:?}" "${DOCS_BUILT:=0}" "${SYSCONFDIR:?}" "${BASHCOMPLETIONDIR:?}"
: "${SYSTEMDUNITDIR:?}"
: "${CC:?}" "${SANITIZE:=none}"
DEST=$TMP/dest

# a sanitizer build's library needs its runtime in the program too: the
# build's own flags, nothing from the source tree
san_flags=()
if [[ $SANITIZE != none ]]; then
	san_flags=("-fsanitize=$SANITIZE")
fi

# ---- meson install --destdir
if meson install -C "$BUILD" --no-rebuild --destdir "$DEST" \
	>"$TMP/install.log" 2>&1; then
	pass "meson install --destdir"
else
	fail "meson install --destdir" "$(grep -m1 -iE 'error|fail' "$TMP/install.log")"
	finish
fi

# installed FILE...: each exists under DESTDIR (a symlink must resolve)
installed()
{
	local f missing=
	for f in "$@"; do
		[[ -e $DEST$f ]] || missing="$missing $f"
	done
	check "installed:${missing:+ missing:}${missing:-$*}" test -z "$missing"
}

installed "$BINDIR/mqblk"
check "the installed mqblk runs (mqblk version)" \
	"$DEST$BINDIR/mqblk" version
installed "$LIBDIR/libmqblk.a" "$LIBDIR/libmqblk.so" "$LIBDIR/libmqblk.so.0"
installed "$LIBDIR/pkgconfig/mqblk.pc"
installed "$INCLUDEDIR/mqblk/mqblk.h" "$INCLUDEDIR/mqblk/driver.h"
installed "$DATADIR/doc/mqblk/LICENSE"
check "the licence installed is the source tree's" \
	cmp -s "$SRC/LICENSE" "$DEST$DATADIR/doc/mqblk/LICENSE"

# man pages: mqblk(8), mqblk-devices(7), one per subcommand mqblk help
# lists (in section 1 or 8), and their HTML
if ((DOCS_BUILT)); then
	cmds=$("$DEST$BINDIR/mqblk" help | awk '/^commands:/ { on = 1; next }
		on && /^  [a-z][a-z-]* / { print $1 }' | grep -vxE 'help|version')
	missing=
	for c in $cmds; do
		[[ -f $DEST$MANDIR/man1/mqblk-$c.1 || -f $DEST$MANDIR/man8/mqblk-$c.8 ]] ||
			missing="$missing mqblk-$c"
		[[ -f $DEST$DATADIR/doc/mqblk/html/mqblk-$c.html ]] ||
			missing="$missing mqblk-$c.html"
	done
	check "a man page and its HTML for each of:$(echo " "$cmds)${missing:+ (missing:$missing)}" \
		test -n "$cmds" -a -z "$missing"
	installed "$MANDIR/man8/mqblk.8" "$MANDIR/man7/mqblk-devices.7"
	check "mqblk-bench.1 is a man page (.TH MQBLK-BENCH 1)" \
		grep -q '^\.TH "MQBLK\\-BENCH" "1"' "$DEST$MANDIR/man1/mqblk-bench.1"
else
	skip_setup "man pages" "asciidoctor not installed (scripts/deps), so no docs were built"
fi

# bash completion: the file, and that bash takes it
installed "$BASHCOMPLETIONDIR/mqblk"
check "the installed completion defines complete -F _mqblk mqblk" \
	bash -c 'source "$1" && [[ $(complete -p mqblk) == *"_mqblk mqblk"* ]]' _ \
	"$DEST$BASHCOMPLETIONDIR/mqblk"

# the systemd unit: the installed binary with SYSCONFDIR/mqblk/target.json
unit=$DEST$SYSTEMDUNITDIR/mqblk-target.service
installed "$SYSTEMDUNITDIR/mqblk-target.service"
check "mqblk-target.service runs $BINDIR/mqblk target --config $SYSCONFDIR/mqblk/target.json" \
	grep -qxF "ExecStart=$BINDIR/mqblk target --config $SYSCONFDIR/mqblk/target.json" "$unit"
check "mqblk-target.service has no @placeholder@ left" \
	eval '! grep -q "@[a-z]*@" "$unit"'
if command -v systemd-analyze >/dev/null 2>&1; then
	# verify checks that ExecStart's binary exists: it is in DESTDIR,
	# so a copy of the unit names it there
	mkdir -p "$TMP/unit"
	sed "s|=$BINDIR/mqblk |=$DEST$BINDIR/mqblk |" "$unit" \
		>"$TMP/unit/mqblk-target.service"
	if systemd-analyze verify --man=no "$TMP/unit/mqblk-target.service" \
		>"$TMP/verify.log" 2>&1 &&
		! grep -q 'mqblk-target' "$TMP/verify.log"; then
		pass "systemd-analyze verify mqblk-target.service"
	else
		fail "systemd-analyze verify mqblk-target.service" \
			"$(grep -m1 'mqblk-target' "$TMP/verify.log" || tail -n1 "$TMP/verify.log")"
	fi
else
	skip_setup "systemd-analyze verify" "no systemd-analyze"
fi

# the archive holds machine code (gcc's slim LTO objects would not)
# (grep reads here-strings throughout: under pipefail, grep -q ending a
# pipe early can fail the writer, and so the check)
check "libmqblk.a has no slim LTO objects (__gnu_lto_slim)" \
	eval '! grep -q __gnu_lto_slim <<<"$(readelf -s "$DEST$LIBDIR/libmqblk.a" 2>/dev/null)"'

# the shared library exports the public API and nothing else
nm -D --defined-only "$DEST$LIBDIR/libmqblk.so" >"$TMP/dynsyms" 2>&1
others=$(awk '$2 ~ /^[TDBRVW]$/ && $3 !~ /^mqblk_/ { print $3 }' \
	"$TMP/dynsyms" | sort -u | head -n 5 | tr '\n' ' ')
check "libmqblk.so exports only mqblk_* (others: ${others:-none})" \
	test -z "$others"
missing=
for f in $(grep -ohE '\bmqblk_[a-z0-9_]+\(' \
	"$DEST$INCLUDEDIR/mqblk/mqblk.h" | tr -d '(' | sort -u); do
	# static inline helpers in the header are not the library's
	grep -qE "static inline [^(]*\b$f\(" "$DEST$INCLUDEDIR/mqblk/mqblk.h" &&
		continue
	grep -qE "^[0-9a-f]+ T $f(@@.*)?$" "$TMP/dynsyms" ||
		missing="$missing $f"
done
check "libmqblk.so exports every function mqblk.h declares${missing:+ (missing:$missing)}" \
	test -z "$missing"

# ---- pkg-config, from the DESTDIR: the .pc says PREFIX, the sysroot
# puts DESTDIR in front of its -I and -L (and of its dependencies' system
# directories, which do not exist there: cc searches its own anyway)
pc()
{
	PKG_CONFIG_PATH=$DEST$LIBDIR/pkgconfig PKG_CONFIG_SYSROOT_DIR=$DEST \
		pkg-config "$@"
}
cflags= libs= slibs=
if cflags=$(pc --cflags mqblk 2>"$ERR") && libs=$(pc --libs mqblk 2>"$ERR") &&
	slibs=$(pc --static --libs mqblk 2>"$ERR"); then
	pass "pkg-config --cflags --libs [--static] mqblk"
else
	fail "pkg-config --cflags --libs [--static] mqblk" "$(first_err)"
fi
echo "pkg-config: cflags '$cflags' libs '$libs' static '$slibs'"
check "pkg-config --static names liburing and ISA-L" \
	eval '[[ $slibs == *-luring* && $slibs == *-lisal* ]]'
check "pkg-config --static names -pthread (or -lpthread) and -lm" \
	eval '[[ " $slibs " == *" -pthread "* || " $slibs " == *" -lpthread "* ]] &&
		[[ " $slibs " == *" -lm "* ]]'

# build examples/simple.c in an empty directory with the flags given
work=$TMP/work
mkdir -p "$work"
cp "$SRC/examples/simple.c" "$work/"
# shellcheck disable=SC2086 # pkg-config's words are meant to split
if (cd "$work" && "$CC" "${san_flags[@]}" -Wall -Werror $cflags simple.c \
	-o simple $libs) >"$TMP/cc.log" 2>&1; then
	pass "cc simple.c \$(pkg-config --cflags --libs mqblk)"
	check "the shared build links libmqblk.so.0" \
		eval 'grep -q "NEEDED.*\[libmqblk\.so\.0\]" <<<"$(readelf -d "$work/simple")"'
	RC=0
	LD_LIBRARY_PATH=$DEST$LIBDIR "$work/simple" >"$OUT" 2>"$ERR" || RC=$?
	ok "simple (shared) runs" &&
		check "simple (shared) wrote and read back a block" \
			has "wrote and read back 4 KiB"
else
	fail "cc simple.c \$(pkg-config --cflags --libs mqblk)" \
		"$(grep -m1 -E 'error|undefined' "$TMP/cc.log")"
fi

# the archive: cc takes libmqblk.so when both are there, so -lmqblk is
# spelt -l:libmqblk.a; everything else the archive needs must come from
# pkg-config --static
# shellcheck disable=SC2086
if (cd "$work" && "$CC" "${san_flags[@]}" -Wall -Werror $cflags simple.c \
	-o simple-static ${slibs//-lmqblk/-l:libmqblk.a}) >"$TMP/cc.log" 2>&1; then
	pass "cc simple.c \$(pkg-config --static --cflags --libs mqblk) with libmqblk.a"
	check "the static build needs no libmqblk.so" \
		eval '! grep -q "libmqblk\.so" <<<"$(readelf -d "$work/simple-static")"'
	RC=0
	"$work/simple-static" >"$OUT" 2>"$ERR" || RC=$?
	ok "simple (static) runs" &&
		check "simple (static) wrote and read back a block" \
			has "wrote and read back 4 KiB"
else
	fail "cc simple.c \$(pkg-config --static --cflags --libs mqblk)" \
		"$(grep -m1 -E 'error|undefined' "$TMP/cc.log")"
fi

finish
