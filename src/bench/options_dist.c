// SPDX-License-Identifier: MIT
/*
 * fio's random_distribution=: the laws by name and their values
 * (random, zipf, pareto, normal), and fio's zones (zoned, zoned_abs), each
 * direction's list made into the 100 picks the runner draws from
 * (dist.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "dist.h"
#include "options_int.h"

/*
 * One direction's zones, "A/S:A/S:...": A the percent of accesses, S the
 * percent of the region (zoned) or a size (zoned_abs, fio's units), the
 * zones one after another from the region's start. As fio's
 * zone_split_ddir: the access percentages add up to exactly 100, the size
 * percentages to at most 100, and a zone with no size percentage ("A",
 * "A/" or "A/0") shares what the others leave equally; unlike fio, an
 * empty entry before the last, a percentage over 100, and a zoned_abs zone
 * with no size are errors (fio ends the list, clamps, or makes the zone
 * empty). An empty list leaves the direction uniform (fio's). Fills
 * pick[100], fio's zone_split_index.
 */
static int zones_one(struct bench_job *job, const char *spec, const char *s,
		     bool abs, struct bench_zone_pick *pick, bool *set,
		     char *err, size_t errlen)
{
	uint64_t acc[BENCH_ZONES_MAX], size[BENCH_ZONES_MAX];
	unsigned nr = 0, i, v = 0, nmiss = 0;
	uint64_t atotal = 0, stotal = 0, prev = 0;
	const char *p = s;
	char buf[128];

	*set = false;
	while (*p) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		char field[64], *slash;

		if (!len)
			return bench_err(err, errlen,
					 "random_distribution=%s: empty zone "
					 "(want ACCESS/SIZE:ACCESS/SIZE...)",
					 spec);
		if (nr == BENCH_ZONES_MAX)
			return bench_err(
				err, errlen,
				"random_distribution: at most %d zones "
				"per direction",
				BENCH_ZONES_MAX);
		if (len >= sizeof(field))
			return bench_err(err, errlen,
					 "random_distribution: zone '%.32s...' "
					 "too long",
					 p);
		memcpy(field, p, len);
		field[len] = 0;
		slash = strchr(field, '/');
		if (slash)
			*slash = 0;
		if (bench_parse_uint(field, 0, 100, &acc[nr], buf, sizeof(buf)))
			return bench_err(err, errlen,
					 "random_distribution=%s: access "
					 "percentage '%s': %s",
					 spec, field, buf);
		size[nr] = 0;
		if (abs) {
			if (!slash || !slash[1])
				return bench_err(err, errlen,
						 "random_distribution=%s: zone "
						 "%u has no size (want "
						 "ACCESS/SIZE)",
						 spec, nr + 1);
			if (bench_parse_size_base(slash + 1, job->kb_base,
						  &size[nr], buf, sizeof(buf)))
				return bench_err(err, errlen,
						 "random_distribution=%s: zone "
						 "size '%s': %s",
						 spec, slash + 1, buf);
		} else if (slash && slash[1]) { /* "A/": no size (fio's) */
			if (bench_parse_uint(slash + 1, 0, 100, &size[nr], buf,
					     sizeof(buf)))
				return bench_err(err, errlen,
						 "random_distribution=%s: zone "
						 "size percentage '%s': %s",
						 spec, slash + 1, buf);
		}
		nmiss += !abs && !size[nr]; /* shares the rest, below */
		atotal += acc[nr];
		stotal += size[nr];
		nr++;
		if (!colon)
			break;
		p = colon + 1;
	}
	if (!nr)
		return 0;
	if (atotal != 100)
		return bench_err(err, errlen,
				 "random_distribution=%s: access percentages "
				 "add up to %llu, not 100",
				 spec, (unsigned long long)atotal);
	if (!abs && stotal > 100)
		return bench_err(err, errlen,
				 "random_distribution=%s: zone size "
				 "percentages add up to %llu, more than 100",
				 spec, (unsigned long long)stotal);
	for (i = 0; i < nr && nmiss; i++)
		if (!size[i])
			size[i] = (100 - stotal) / nmiss;
	/* fio's zone_split_index: percentile v picks the zone whose
	 * access share it falls in */
	for (i = 0; i < nr; i++) {
		uint64_t k;

		for (k = 0; k < acc[i]; k++, v++) {
			pick[v].prev = prev;
			pick[v].end = prev + size[i];
		}
		prev += size[i];
	}
	*set = true;
	return 0;
}

/*
 * fio's random_distribution=zoned:R[,W[,T]] and zoned_abs:...: the lists
 * per direction as bssplit's (no comma, every direction; one comma, read
 * and then write and trim; two, one each).
 */
static int set_zoned(struct bench_job *job, const char *val, bool abs,
		     const char *colon, char *err, size_t errlen)
{
	struct bench_zone_pick pick[DDIR_NR][BENCH_ZONE_PICKS];
	bool set[DDIR_NR];
	const char *list = colon ? colon + 1 : "";
	char f[3][1024];
	int d;

	if (!*list)
		return bench_err(err, errlen,
				 "random_distribution=%s: no zones (want "
				 "%s:ACCESS/SIZE:...)",
				 val, abs ? "zoned_abs" : "zoned");
	if (strlen(val) >= sizeof(job->rand_dist_str))
		return bench_err(err, errlen,
				 "random_distribution: value longer than %zu "
				 "characters",
				 sizeof(job->rand_dist_str) - 1);
	/* the lists after the name */
	if (opt_split_ddirs("random_distribution", list, f, err, errlen))
		return -1;
	/* all or nothing: an error leaves the job as it was */
	for (d = 0; d < DDIR_NR; d++)
		if (zones_one(job, val, f[d], abs, pick[d], &set[d], err,
			      errlen))
			return -1;
	if (!set[0] && !set[1] && !set[2])
		return bench_err(err, errlen,
				 "random_distribution=%s: no zones", val);
	memcpy(job->zone_pick, pick, sizeof(pick));
	memcpy(job->zone_set, set, sizeof(set));
	job->rand_dist = abs ? DIST_ZONED_ABS : DIST_ZONED;
	job->dist_val = 0.0;
	job->dist_center = -1.0;
	job->dist_center_set = false;
	snprintf(job->rand_dist_str, sizeof(job->rand_dist_str), "%s", val);
	return 0;
}

/* a number for random_distribution's :V or :C, all of s */
static bool dist_number(const char *s, size_t len, double *out)
{
	char buf[64], *end;

	if (!len || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*out = strtod(buf, &end);
	/* strtod takes "nan" and "inf": refused as the not-numbers they are */
	return !errno && *end == '\0' && isfinite(*out);
}

/*
 * fio's random_distribution=random|zipf[:THETA[:C]]|pareto[:H[:C]]|
 * normal[:DEV[:C]], refused with fio's words where fio refuses (zipf's
 * theta 1.0, pareto's h outside (0, 1), normal's deviation outside
 * [0, 100), a center outside [0, 1]); zoned and zoned_abs (set_zoned).
 */
int opt_set_random_distribution(struct bench_job *job, const char *val,
				char *err, size_t errlen)
{
	static const struct {
		const char *name;
		enum bench_rand_dist kind;
		double def;
	} names[] = {
		{ "random", DIST_RANDOM, 0.0 },
		{ "zipf", DIST_ZIPF, 1.1 }, /* fio's FIO_DEF_ZIPF */
		{ "pareto", DIST_PARETO, 0.2 }, /* FIO_DEF_PARETO */
		{ "normal", DIST_NORMAL, 0.0 },
	};
	const char *colon = strchr(val, ':'), *c2 = NULL;
	size_t len = colon ? (size_t)(colon - val) : strlen(val), i;
	double v, center = -1.0;

	if ((len == 5 && !strncmp(val, "zoned", 5)) ||
	    (len == 9 && !strncmp(val, "zoned_abs", 9)))
		return set_zoned(job, val, len == 9, colon, err, errlen);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].name) == len &&
		    !strncmp(val, names[i].name, len))
			break;
	if (i == sizeof(names) / sizeof(names[0]))
		return bench_err(err, errlen,
				 "failed parsing random_distribution=%s "
				 "(random, zipf, pareto, normal, zoned, "
				 "zoned_abs)",
				 val);
	v = names[i].def;
	if (colon && names[i].kind != DIST_RANDOM) {
		c2 = strchr(colon + 1, ':');
		if (!dist_number(colon + 1,
				 c2 ? (size_t)(c2 - colon - 1) :
				      strlen(colon + 1),
				 &v) ||
		    (c2 && !dist_number(c2 + 1, strlen(c2 + 1), &center)))
			return bench_err(err, errlen,
					 "random postfix parsing failed: "
					 "random_distribution=%s",
					 val);
		if (c2 && (center < 0.0 || center > 1.0))
			return bench_err(err, errlen,
					 "distribution center out of range "
					 "(0 <= center <= 1.0): "
					 "random_distribution=%s",
					 val);
	}
	switch (names[i].kind) {
	case DIST_ZIPF:
		if (v == 1.0)
			return bench_err(err, errlen,
					 "zipf theta must be different than "
					 "1.0: random_distribution=%s",
					 val);
		break;
	case DIST_PARETO:
		if (v <= 0.0 || v >= 1.0)
			return bench_err(err, errlen,
					 "pareto input out of range "
					 "(0 < input < 1.0): "
					 "random_distribution=%s",
					 val);
		break;
	case DIST_NORMAL:
		if (v < 0.0 || v >= 100.0)
			return bench_err(err, errlen,
					 "normal deviation out of range "
					 "(0 <= input < 100.0): "
					 "random_distribution=%s",
					 val);
		break;
	case DIST_ZONED:
	case DIST_ZONED_ABS: /* set_zoned's, above */
		break;
	case DIST_RANDOM:
		/* fio ignores a postfix on random: refuse it instead of
		 * silently dropping it */
		if (colon)
			return bench_err(err, errlen,
					 "random_distribution=%s: random "
					 "takes no value",
					 val);
		break;
	}
	job->rand_dist = names[i].kind;
	job->dist_val = v;
	job->dist_center = center;
	job->dist_center_set = c2 != NULL;
	/* the name and two numbers of under 64 characters each fit */
	snprintf(job->rand_dist_str, sizeof(job->rand_dist_str), "%s", val);
	return 0;
}
