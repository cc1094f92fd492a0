// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for NVMe multipath's parsers and selectors
 * (src/drivers/nvmf/mpath_logic.c). Byte 0 picks what the rest is:
 *   even: an ANA log page (LID 0Ch) as a controller returns it; checked:
 *         mp_ana_log_check and every lookup agree (a log that checks
 *         answers every group 0 or -ENOENT, one that does not answers
 *         -EBADMSG), a found state is 4 bits, and each group the walk
 *         finds is found by its id; then the selectors run over paths
 *         whose ANA states come from the log's groups.
 *   odd:  a multipath URI's address part "HOST:PORT,.../SUBNQN"; checked:
 *         on success 1..MP_MAX_PATHS distinct paths, non-empty hosts,
 *         ports 1..65535, an NQN; on failure one non-empty line.
 *   bit 1 set, even: discovery log records (1 KiB each; the subsystem
 *         asked for is the first record's NQN, as a log that lists it
 *         would); checked: mp_disc_paths gives at most max paths, each
 *         of a known transport, with a host and port that fit, no
 *         padding left and no path twice, and a smaller max gives the
 *         first ones of a larger.
 * Selectors: the pick is -1 exactly when no path is usable with an
 * optimized or non-optimized state, else a usable such path, optimized
 * when any usable one is.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/nvmf/mpath.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void check_select(const struct mp_path_view *v, unsigned nr,
			 const uint8_t *seed, size_t seedlen)
{
	bool any = false, any_opt = false;
	unsigned i, pol, k;

	for (i = 0; i < nr; i++) {
		bool ok = v[i].usable && (v[i].ana == MP_ANA_OPTIMIZED ||
					  v[i].ana == MP_ANA_NONOPTIMIZED);

		any |= ok;
		any_opt |= ok && v[i].ana == MP_ANA_OPTIMIZED;
	}
	for (pol = 0; pol < 3; pol++) {
		int cur = seedlen ? (int)(seed[0] % (nr + 2)) - 1 : -1;

		for (k = 0; k < 4; k++) {
			int p = mp_select((enum mp_iopolicy)pol, v, nr, &cur);

			if (!any) {
				FUZZ_CHECK(p == -1);
				continue;
			}
			FUZZ_CHECK(p >= 0 && (unsigned)p < nr);
			FUZZ_CHECK(v[p].usable);
			FUZZ_CHECK(v[p].ana == MP_ANA_OPTIMIZED ||
				   v[p].ana == MP_ANA_NONOPTIMIZED);
			FUZZ_CHECK(!any_opt || v[p].ana == MP_ANA_OPTIMIZED);
			FUZZ_CHECK(cur == p);
		}
	}
}

static void fuzz_ana(const uint8_t *log, size_t len)
{
	struct mp_path_view v[MP_MAX_PATHS];
	unsigned nr = 0;
	int groups = mp_ana_log_check(log, len);
	uint8_t st;
	size_t off = MP_ANA_HDR_SIZE;
	int g, ret;

	FUZZ_CHECK(groups >= 0 || groups == -EBADMSG);
	/* a few ids, from the input */
	ret = mp_ana_log_state(log, len, len >= 4 ? le32(log) : 1, &st);
	if (groups < 0)
		FUZZ_CHECK(ret == -EBADMSG);
	else
		FUZZ_CHECK(ret == 0 || ret == -ENOENT);
	if (!ret)
		FUZZ_CHECK(st <= 0xf);
	if (groups < 0) {
		/* selectors over states straight from the input */
		for (off = 0; off < len && nr < MP_MAX_PATHS; off++, nr++) {
			v[nr].ana = log[off] & 0xf;
			v[nr].usable = log[off] & 0x10;
			v[nr].inflight = log[off] >> 5;
		}
		if (nr)
			check_select(v, nr, log, len);
		return;
	}
	/* every group the walk passes is found by its id, with its state
	 * (the first one of that id: ids may repeat in a fuzzed log) */
	for (g = 0; g < groups; g++) {
		uint32_t id = le32(log + off), nn = le32(log + off + 4);
		uint8_t want = log[off + 16] & 0xf, got = 0xff;
		size_t o2 = MP_ANA_HDR_SIZE;
		int h;

		FUZZ_CHECK(mp_ana_log_state(log, len, id, &got) == 0);
		for (h = 0; h <= g; h++) {
			if (le32(log + o2) == id) {
				want = log[o2 + 16] & 0xf;
				break;
			}
			o2 += MP_ANA_DESC_SIZE + 4 * (size_t)le32(log + o2 + 4);
		}
		FUZZ_CHECK(got == want);
		if (nr < MP_MAX_PATHS) {
			v[nr].ana = got;
			v[nr].usable = nn & 1;
			v[nr].inflight = (unsigned)(nn >> 1) & 0xff;
			nr++;
		}
		off += MP_ANA_DESC_SIZE + 4 * (size_t)nn;
		FUZZ_CHECK(off <= len);
	}
	if (nr)
		check_select(v, nr, log, len);
}

static void fuzz_addrs(const uint8_t *data, size_t size)
{
	struct mp_addr a[MP_MAX_PATHS];
	char nqn[256], err[256] = "";
	unsigned nr = 0, i, j;
	char *s = fuzz_string(data, size);
	int ret;

	if (!s)
		return;
	ret = mp_parse_addrs(s, a, MP_MAX_PATHS, &nr, nqn, err, sizeof(err));
	if (ret) {
		FUZZ_CHECK(ret == -EINVAL);
		FUZZ_CHECK(err[0] && !strchr(err, '\n'));
	} else {
		FUZZ_CHECK(nr >= 1 && nr <= MP_MAX_PATHS);
		FUZZ_CHECK(nqn[0] && strlen(nqn) <= 223);
		for (i = 0; i < nr; i++) {
			unsigned long p = strtoul(a[i].port, NULL, 10);

			FUZZ_CHECK(a[i].host[0]);
			FUZZ_CHECK(p >= 1 && p <= 65535);
			/* a transport, when named: lowercase letters only */
			FUZZ_CHECK(
				strspn(a[i].tr, "abcdefghijklmnopqrstuvwxyz") ==
				strlen(a[i].tr));
			/* no path twice: the same address over two
			 * transports is two paths */
			for (j = 0; j < i; j++)
				FUZZ_CHECK(strcmp(a[i].tr, a[j].tr) ||
					   strcmp(a[i].host, a[j].host) ||
					   strcmp(a[i].port, a[j].port));
		}
	}
	free(s);
}

static const char *fuzz_trname(uint8_t trtype)
{
	return trtype == 3 ? "tcp" : trtype == 1 ? "rdma" : NULL;
}

static void fuzz_disc(const uint8_t *data, size_t size)
{
	struct mp_addr a[MP_MAX_PATHS], b[MP_MAX_PATHS];
	size_t nrec = size / MP_DISC_ENTRY_SIZE;
	uint8_t *rec;
	char nqn[257] = "nqn.fuzz:a";
	unsigned n, m, i, j;

	if (!nrec)
		return;
	/* a copy of exactly the records: reading past them is caught */
	rec = malloc(nrec * MP_DISC_ENTRY_SIZE);
	if (!rec)
		return;
	memcpy(rec, data, nrec * MP_DISC_ENTRY_SIZE);
	if (rec[256]) {
		memcpy(nqn, rec + 256, 256);
		nqn[256] = '\0';
	}
	n = mp_disc_paths(rec, nrec, nqn, fuzz_trname, a, MP_MAX_PATHS);
	FUZZ_CHECK(n <= MP_MAX_PATHS && n <= nrec);
	for (i = 0; i < n; i++) {
		size_t hl = strlen(a[i].host), pl = strlen(a[i].port);

		FUZZ_CHECK(!strcmp(a[i].tr, "tcp") || !strcmp(a[i].tr, "rdma"));
		FUZZ_CHECK(hl && hl < sizeof(a[i].host));
		FUZZ_CHECK(pl && pl < sizeof(a[i].port));
		FUZZ_CHECK(a[i].host[hl - 1] != ' ' &&
			   a[i].port[pl - 1] != ' ');
		for (j = 0; j < i; j++)
			FUZZ_CHECK(!mp_addr_same(&a[i], &a[j]));
	}
	m = mp_disc_paths(rec, nrec, nqn, fuzz_trname, b, n ? n - 1 : 0);
	FUZZ_CHECK(m == (n ? n - 1 : 0));
	for (i = 0; i < m; i++)
		FUZZ_CHECK(mp_addr_same(&a[i], &b[i]));
	free(rec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size || size > 8192 + 1)
		return 0;
	if (data[0] & 1)
		fuzz_addrs(data + 1, size - 1);
	else if (data[0] & 2)
		fuzz_disc(data + 1, size - 1);
	else
		fuzz_ana(data + 1, size - 1);
	return 0;
}
