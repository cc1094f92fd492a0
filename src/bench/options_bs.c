// SPDX-License-Identifier: MIT
/*
 * `mqblk bench`'s rw= and block sizes: the pattern with fio's postfix,
 * bs=, bsrange= and bssplit=, each per data direction (options_set.c
 * calls them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "options_int.h"

/*
 * fio's str_rw_cb: what follows "rw=NAME:" is, for a random pattern, the
 * number of I/Os per new random offset (ddir_seq_nr; sequential in
 * between) and, for a sequential one, a size added to the offset after
 * each I/O (ddir_seq_add: a hole, or with '-' backwards I/O).
 */
static int set_rw_postfix(struct bench_job *job, const char *val,
			  const char *nr, char *err, size_t errlen)
{
	char perr[128];
	uint64_t v = 0;
	bool neg = false;

	if (bench_rw_is_random(job->rw)) {
		if (bench_parse_uint(nr, 1, UINT32_MAX, &v, perr, sizeof(perr)))
			return bench_err(err, errlen,
					 "rw=%s: randrw postfix parsing out "
					 "of range (want 1..%u I/Os per "
					 "random offset)",
					 val, UINT32_MAX);
		job->ddir_seq_nr = (unsigned)v;
		return 0;
	}
	if (*nr == '-') {
		neg = true;
		nr++;
	}
	if (bench_parse_size_base(nr, job->kb_base, &v, perr, sizeof(perr)) ||
	    v > (uint64_t)INT64_MAX)
		return bench_err(err, errlen,
				 "rw=%s: rw postfix parsing failed (%s)", val,
				 v > (uint64_t)INT64_MAX ? "too large" : perr);
	job->ddir_seq_add = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

int opt_set_rw(struct bench_job *job, const char *val, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		enum bench_rw rw;
	} names[] = {
		{ "read", RW_READ },
		{ "write", RW_WRITE },
		{ "randread", RW_RANDREAD },
		{ "randwrite", RW_RANDWRITE },
		{ "rw", RW_RW },
		{ "readwrite", RW_RW },
		{ "randrw", RW_RANDRW },
		{ "trim", RW_TRIM },
		{ "randtrim", RW_RANDTRIM },
	};
	const char *colon = strchr(val, ':');
	size_t i, len = colon ? (size_t)(colon - val) : strlen(val);

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strlen(names[i].name) == len &&
		    !strncmp(val, names[i].name, len)) {
			job->rw = names[i].rw;
			job->ddir_seq_nr = 1;
			job->ddir_seq_add = 0;
			return colon ? set_rw_postfix(job, val, colon + 1, err,
						      errlen) :
				       0;
		}
	}
	return bench_err(err, errlen,
			 "unknown rw '%s' (read write randread randwrite rw "
			 "readwrite randrw trim randtrim)",
			 val);
}

/*
 * fio's bs=R[,W[,T]]: a value not followed by a comma also applies to the
 * directions after it; an empty field keeps that direction as it was.
 */
int opt_set_bs(struct bench_job *job, const char *val, char *err, size_t errlen)
{
	uint64_t bs[DDIR_NR];
	bool set[DDIR_NR] = { false };
	char field[64], perr_buf[128];
	const char *p = val;
	int d = 0, i;

	if (strchr(val, '-') || strchr(val, ':') || strchr(val, '/'))
		return bench_err(err, errlen,
				 "bs=%s: block size ranges and mixes are "
				 "--bsrange=MIN-MAX or --bssplit=BS/PCT:...",
				 val);
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (d >= DDIR_NR)
			return bench_err(
				err, errlen,
				"bs=%s: at most 3 values (read,write,trim)",
				val);
		if (len >= sizeof(field))
			return bench_err(err, errlen, "bs=%s: value too long",
					 val);
		memcpy(field, p, len);
		field[len] = 0;
		if (len) {
			uint64_t v;

			if (bench_parse_size_base(field, job->kb_base, &v,
						  perr_buf, sizeof(perr_buf)))
				return bench_err(err, errlen, "bs: %s",
						 perr_buf);
			if (v == 0 || v > (1u << 30))
				return bench_err(
					err, errlen,
					"bs=%s: block size must be 1 byte "
					"to 1 GiB",
					field);
			bs[d] = v;
			set[d] = true;
			if (!comma)
				for (i = d + 1; i < DDIR_NR; i++) {
					bs[i] = v;
					set[i] = true;
				}
		}
		if (!comma)
			break;
		p = comma + 1;
		d++;
	}
	/* "bs=" and "bs=,," name no size at all: fio refuses them too */
	if (!set[0] && !set[1] && !set[2])
		return bench_err(err, errlen, "bs='%s': no block size given",
				 val);
	/* a direction bs= sets is one size again: no range, no split */
	for (i = 0; i < DDIR_NR; i++) {
		if (!set[i])
			continue;
		job->bs[i] = job->bs_max[i] = bs[i];
		job->bssplit_nr[i] = 0;
	}
	return 0;
}

static int parse_bs_value(const struct bench_job *job, const char *opt,
			  const char *s, uint64_t *out, char *err,
			  size_t errlen)
{
	char buf[128];

	if (bench_parse_size_base(s, job->kb_base, out, buf, sizeof(buf)))
		return bench_err(err, errlen, "%s: %s", opt, buf);
	if (*out == 0 || *out > (1u << 30))
		return bench_err(err, errlen,
				 "%s: block size %s must be 1 byte to 1 GiB",
				 opt, s);
	return 0;
}

/*
 * fio's bsrange=MIN-MAX[,MIN-MAX[,MIN-MAX]] (read, write, trim; ':' may
 * stand for '-'): as bs=, a range not followed by a comma also applies to
 * the directions after it and an empty field keeps a direction as it was.
 * A range given high-low is swapped, as fio's parser does.
 */
int opt_set_bsrange(struct bench_job *job, const char *key, const char *val,
		    char *err, size_t errlen)
{
	uint64_t lo[DDIR_NR], hi[DDIR_NR];
	bool set[DDIR_NR] = { false };
	const char *p = val;
	int d = 0, i;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char field[64], *sep;

		if (d >= DDIR_NR)
			return bench_err(err, errlen,
					 "%s=%s: at most 3 ranges "
					 "(read,write,trim)",
					 key, val);
		if (len >= sizeof(field))
			return bench_err(err, errlen, "%s=%s: value too long",
					 key, val);
		memcpy(field, p, len);
		field[len] = 0;
		if (len) {
			sep = strchr(field, '-');
			if (!sep)
				sep = strchr(field, ':');
			if (!sep)
				return bench_err(err, errlen,
						 "%s=%s: '%s' is not a range "
						 "MIN-MAX",
						 key, val, field);
			*sep = 0;
			if (parse_bs_value(job, key, field, &lo[d], err,
					   errlen) ||
			    parse_bs_value(job, key, sep + 1, &hi[d], err,
					   errlen))
				return -1;
			if (lo[d] > hi[d]) {
				uint64_t t = lo[d];

				lo[d] = hi[d];
				hi[d] = t;
			}
			set[d] = true;
			if (!comma)
				for (i = d + 1; i < DDIR_NR; i++) {
					lo[i] = lo[d];
					hi[i] = hi[d];
					set[i] = true;
				}
		}
		if (!comma)
			break;
		p = comma + 1;
		d++;
	}
	if (!set[0] && !set[1] && !set[2])
		return bench_err(err, errlen, "%s='%s': no range given", key,
				 val);
	for (i = 0; i < DDIR_NR; i++) {
		if (!set[i])
			continue;
		job->bs[i] = lo[i];
		job->bs_max[i] = hi[i];
		job->bssplit_nr[i] = 0;
	}
	return 0;
}

/*
 * One direction of bssplit: BS[/PCT]:BS[/PCT]... An entry without a
 * percentage ("BS", "BS/" or, as fio's atoi reads it, "BS/0") shares what
 * the others leave of 100 equally (integer division, as fio). Unlike fio, a
 * total over 100 and a percentage over 100 are errors (fio clamps or wraps
 * them) and so is an empty entry before the last (fio ends the list
 * there). Sorted by percentage, smallest first, as fio's lookup walks
 * them.
 */
static int bssplit_one(struct bench_job *job, int d, const char *s, char *err,
		       size_t errlen)
{
	struct bench_bssplit sp[BENCH_BSSPLIT_MAX];
	unsigned nr = 0, i, j, total = 0, missing = 0;
	uint64_t lo = UINT64_MAX, hi = 0;
	const char *p = s;

	while (*p) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		char field[64], *slash;

		if (!len)
			return bench_err(err, errlen,
					 "bssplit=%s: empty entry (want "
					 "BS/PCT:BS/PCT...)",
					 s);
		if (nr == BENCH_BSSPLIT_MAX)
			return bench_err(err, errlen,
					 "bssplit: at most %d entries per "
					 "direction",
					 BENCH_BSSPLIT_MAX);
		if (len >= sizeof(field))
			return bench_err(err, errlen,
					 "bssplit: entry '%.32s...' too long",
					 p);
		memcpy(field, p, len);
		field[len] = 0;
		sp[nr].perc = UINT32_MAX; /* missing */
		slash = strchr(field, '/');
		if (slash)
			*slash = 0;
		if (slash && slash[1]) { /* "BS/": no percentage (fio's) */
			char buf[128];
			uint64_t v;

			if (bench_parse_uint(slash + 1, 0, 100, &v, buf,
					     sizeof(buf)))
				return bench_err(err, errlen,
						 "bssplit: percentage of %s: "
						 "%s",
						 field, buf);
			if (v)
				sp[nr].perc = (unsigned)v;
		}
		if (parse_bs_value(job, "bssplit", field, &sp[nr].bs, err,
				   errlen))
			return -1;
		if (sp[nr].perc == UINT32_MAX)
			missing++;
		else
			total += sp[nr].perc;
		if (sp[nr].bs < lo)
			lo = sp[nr].bs;
		if (sp[nr].bs > hi)
			hi = sp[nr].bs;
		nr++;
		if (!colon)
			break;
		p = colon + 1;
	}
	if (!nr)
		return 0; /* an empty direction keeps what it had (fio) */
	if (total > 100)
		return bench_err(err, errlen,
				 "bssplit=%s: percentages add up to %u, more "
				 "than 100",
				 s, total);
	if (missing && nr == 1)
		total = 0; /* a lone size is 100% (fio) */
	for (i = 0; i < nr; i++)
		if (sp[i].perc == UINT32_MAX)
			sp[i].perc = (100 - total) / missing;
	/* stable insertion sort by percentage */
	for (i = 1; i < nr; i++) {
		struct bench_bssplit t = sp[i];

		for (j = i; j > 0 && sp[j - 1].perc > t.perc; j--)
			sp[j] = sp[j - 1];
		sp[j] = t;
	}
	memcpy(job->bssplit[d], sp, nr * sizeof(sp[0]));
	job->bssplit_nr[d] = nr;
	job->bs[d] = lo;
	job->bs_max[d] = hi;
	return 0;
}

/*
 * fio's split lists per direction, R[,W[,T]] (its str_split_parse): no
 * comma, every direction; one comma, read and then write and trim; two,
 * one each. f gets the three lists; opt names the option in errors.
 */
int opt_split_ddirs(const char *opt, const char *val, char f[3][1024],
		    char *err, size_t errlen)
{
	const char *c1 = strchr(val, ','),
		   *c2 = c1 ? strchr(c1 + 1, ',') : NULL;

	if (c2 && strchr(c2 + 1, ','))
		return bench_err(err, errlen,
				 "%s=%.64s: at most 3 lists (read,write,trim)",
				 opt, val);
	if (strlen(val) >= 1024)
		return bench_err(err, errlen, "%s: value too long", opt);
	snprintf(f[0], 1024, "%.*s",
		 (int)(c1 ? (size_t)(c1 - val) : strlen(val)), val);
	if (!c1) {
		snprintf(f[1], 1024, "%s", f[0]);
		snprintf(f[2], 1024, "%s", f[0]);
	} else if (!c2) {
		snprintf(f[1], 1024, "%s", c1 + 1);
		snprintf(f[2], 1024, "%s", c1 + 1);
	} else {
		snprintf(f[1], 1024, "%.*s", (int)(c2 - c1 - 1), c1 + 1);
		snprintf(f[2], 1024, "%s", c2 + 1);
	}
	return 0;
}

/* fio's bssplit=R[,W[,T]] (opt_split_ddirs) */
int opt_set_bssplit(struct bench_job *job, const char *val, char *err,
		    size_t errlen)
{
	struct bench_job tmp;
	char f[3][1024];
	int d;

	if (opt_split_ddirs("bssplit", val, f, err, errlen))
		return -1;
	if (!f[0][0] && !f[1][0] && !f[2][0])
		return bench_err(err, errlen,
				 "bssplit='%s': no block size given", val);
	/* all or nothing: an error leaves the job as it was */
	tmp = *job;
	for (d = 0; d < DDIR_NR; d++)
		if (bssplit_one(&tmp, d, f[d], err, errlen))
			return -1;
	memcpy(job->bs, tmp.bs, sizeof(tmp.bs));
	memcpy(job->bs_max, tmp.bs_max, sizeof(tmp.bs_max));
	memcpy(job->bssplit_nr, tmp.bssplit_nr, sizeof(tmp.bssplit_nr));
	memcpy(job->bssplit, tmp.bssplit, sizeof(tmp.bssplit));
	return 0;
}
