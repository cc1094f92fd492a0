// SPDX-License-Identifier: MIT
/*
 * bench/soak's history check: every read of a block returns the
 * generation of the last acknowledged write to it, or of a write that
 * failed after it; the rules and the line format are in soak-check.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "soak-history.h"

struct blk_state {
	uint64_t acked; /* last acknowledged generation, 0: none */
	uint64_t *maybe; /* failed writes since it */
	unsigned nr_maybe, cap_maybe;
	bool written; /* any write sent to it */
	bool final_seen;
};

static bool is_maybe(const struct blk_state *b, uint64_t gen)
{
	unsigned i;

	for (i = 0; i < b->nr_maybe; i++)
		if (b->maybe[i] == gen)
			return true;
	return false;
}

/* One read's generation against the block's state; reports a lost
 * write or a verify error on stderr (the first few). */
static void check_read(struct blk_state *b, uint64_t blk, int64_t gen,
		       bool final, struct soak_history *cr, unsigned long line)
{
	if (gen >= 0 && (uint64_t)gen == b->acked)
		return;
	if (gen > 0 && is_maybe(b, (uint64_t)gen))
		return;
	if (gen >= 0 && (uint64_t)gen < b->acked) {
		if (cr->lost++ < 10)
			fprintf(stderr,
				"soak-check: line %lu: block %" PRIu64
				" %sread generation %" PRId64
				", acknowledged %" PRIu64 ": write lost\n",
				line, blk, final ? "final " : "", gen,
				b->acked);
		return;
	}
	if (cr->verify_errors++ < 10)
		fprintf(stderr,
			"soak-check: line %lu: block %" PRIu64
			" %sread %s (last acknowledged %" PRIu64 ")\n",
			line, blk, final ? "final " : "",
			gen < 0 ? "data no write made" :
				  "a generation never written to it",
			b->acked);
}

int soak_history_check(FILE *f, const char *path, struct soak_history *cr)
{
	struct blk_state *st = NULL;
	uint64_t nr_st = 0, blk, i;
	unsigned long line = 0;
	char buf[128], kind, val[32];
	int ret = 0;

	memset(cr, 0, sizeof(*cr));
	while (fgets(buf, sizeof(buf), f)) {
		struct blk_state *b;
		int64_t gen = -1;
		char *end;
		int n;

		line++;
		val[0] = 0;
		n = sscanf(buf, "%c %" SCNu64 " %31s", &kind, &blk, val);
		/* "K BLOCK [VALUE]": the space after the kind too (sscanf's
		 * " " would take none, and "E9" is no line soak-check writes) */
		if (n < 2 || buf[1] != ' ' || !strchr("AFRXEV", kind) ||
		    blk >= SOAK_MAX_BLOCKS) {
			fprintf(stderr,
				"soak-check: %s:%lu: not a history line\n",
				path, line);
			ret = -EINVAL;
			break;
		}
		if (blk >= nr_st) {
			uint64_t n_new = nr_st * 2 > blk + 1 ? nr_st * 2 :
							       blk + 1;
			struct blk_state *ns = realloc(st, n_new * sizeof(*st));

			if (!ns) {
				ret = -ENOMEM;
				break;
			}
			memset(ns + nr_st, 0, (n_new - nr_st) * sizeof(*st));
			st = ns;
			nr_st = n_new;
		}
		b = &st[blk];
		if (strchr("AFRV", kind) && strcmp(val, "X") &&
		    strcmp(val, "E")) {
			errno = 0;
			gen = strtoll(val, &end, 10);
			if (errno || end == val || *end || gen < 0 ||
			    (kind != 'R' && kind != 'V' && gen == 0)) {
				fprintf(stderr,
					"soak-check: %s:%lu: bad generation\n",
					path, line);
				ret = -EINVAL;
				break;
			}
		} else if (kind == 'A' || kind == 'F' || kind == 'R') {
			fprintf(stderr, "soak-check: %s:%lu: bad generation\n",
				path, line);
			ret = -EINVAL;
			break;
		}
		cr->events++;
		switch (kind) {
		case 'A':
			cr->acked++;
			b->written = true;
			b->acked = (uint64_t)gen;
			b->nr_maybe = 0;
			break;
		case 'F':
			cr->failed++;
			b->written = true;
			if (b->nr_maybe == b->cap_maybe) {
				unsigned cap = b->cap_maybe ? b->cap_maybe * 2 :
							      4;
				uint64_t *m =
					realloc(b->maybe, cap * sizeof(*m));

				if (!m) {
					ret = -ENOMEM;
					goto out;
				}
				b->maybe = m;
				b->cap_maybe = cap;
			}
			b->maybe[b->nr_maybe++] = (uint64_t)gen;
			break;
		case 'R':
		case 'X':
			cr->reads++;
			check_read(b, blk, kind == 'X' ? -1 : gen, false, cr,
				   line);
			break;
		case 'E':
			cr->read_errors++;
			break;
		case 'V':
			cr->finals++;
			b->final_seen = true;
			if (!strcmp(val, "E"))
				cr->read_errors++;
			else
				check_read(b, blk, gen, true, cr, line);
			break;
		}
	}
	if (!ret && ferror(f))
		ret = -EIO;
	for (i = 0; !ret && i < nr_st; i++) {
		if (st[i].written && !st[i].final_seen &&
		    cr->verify_errors++ < 10)
			fprintf(stderr,
				"soak-check: block %" PRIu64
				" was written and never read back\n",
				i);
	}
out:
	for (i = 0; i < nr_st; i++)
		free(st[i].maybe);
	free(st);
	return ret;
}
