// SPDX-License-Identifier: MIT
/*
 * `mqblk bench`'s options whose values need more than the table's types
 * (OT_SPECIAL): percentiles, the engine, verify, CPUs, sizes and files,
 * rates and times, error handling and the rest, one by one from
 * opt_set_special() (bench_job_set calls it); rw= and the block sizes are
 * options_bs.c's, random_distribution options_dist.c's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "mqblk/mqblk.h"
#include "options_int.h"
#include "verify.h"

static int set_percentiles(struct bench_job *job, const char *val, char *err,
			   size_t errlen)
{
	double list[BENCH_MAX_PERCENTILES];
	unsigned nr = 0;
	const char *p = val;

	while (*p) {
		char *end;
		double v;

		if (nr == BENCH_MAX_PERCENTILES)
			return bench_err(err, errlen,
					 "percentile_list: at most %d values",
					 BENCH_MAX_PERCENTILES);
		errno = 0;
		v = strtod(p, &end);
		/* !(in range) rather than out of range: strtod takes "nan",
		 * and NaN compares false both ways */
		if (end == p || errno || (*end && *end != ':') ||
		    !(v >= 0.0 && v <= 100.0))
			return bench_err(
				err, errlen,
				"percentile_list: bad value in '%s' "
				"(want numbers 0..100 separated by ':')",
				val);
		list[nr++] = v;
		p = *end ? end + 1 : end;
	}
	if (!nr)
		return bench_err(err, errlen, "percentile_list is empty");
	memcpy(job->percentiles, list, nr * sizeof(list[0]));
	job->nr_percentiles = nr;
	return 0;
}

/*
 * fio engine names map onto the mqblk driver that plays that role: every
 * engine that does I/O to a file or block device (io_uring, libaio, psync,
 * sync, pvsync, pvsync2, posixaio) is the path driver (uring) when
 * --filename is a path; null is the null device; mqblk is whatever driver
 * the URI names. The filename decides the driver; an engine that cannot
 * run it (null on a path) is refused in job_fixup.
 */
static int set_ioengine(struct bench_job *job, const char *val, char *err,
			size_t errlen)
{
	static const char *const names[] = {
		"null", "mqblk",  "io_uring", "libaio",	  "psync",
		"sync", "pvsync", "pvsync2",  "posixaio",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(val, names[i]))
			break;
	if (i == sizeof(names) / sizeof(names[0]))
		return bench_err(
			err, errlen,
			"ioengine '%s' is not supported (supported: null, "
			"mqblk, io_uring, libaio, psync, sync, pvsync, "
			"pvsync2, posixaio; the driver follows --filename)",
			val);
	free(job->ioengine);
	job->ioengine = strdup(val);
	return job->ioengine ? 0 : bench_err(err, errlen, "out of memory");
}

static int set_verify_opt(struct bench_job *job, const struct opt *o,
			  const char *val, char *err, size_t errlen)
{
	char buf[160];
	uint64_t v;

	if (!strcmp(o->name, "verify")) {
		if (verify_parse_type(val, &job->verify, err, errlen))
			return -1;
		job->verify_set = true;
		return 0;
	}
	if (!strcmp(o->name, "verify_pattern")) {
		if (verify_parse_pattern(val, job->verify_pattern,
					 &job->verify_pattern_len, err, errlen))
			return -1;
		/* fio: a pattern alone means verify=pattern */
		if (!job->verify_set)
			job->verify = BENCH_VERIFY_PATTERN;
		return 0;
	}
	/* verify_interval */
	if (bench_parse_size_base(val, job->kb_base, &v, buf, sizeof(buf)))
		return bench_err(err, errlen, "verify_interval: %s", buf);
	if (v < 512 || v > (1u << 30))
		return bench_err(
			err, errlen,
			"verify_interval=%s: must be 512 bytes to 1 GiB", val);
	job->verify_interval = (uint32_t)v;
	return 0;
}

/*
 * fio's cpus_allowed: "1,3-5": CPUs and ranges, each below the number of
 * CPUs this machine has.
 */
static int set_cpus_allowed(struct bench_job *job, const char *val, char *err,
			    size_t errlen)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	const char *p = val;

	if (ncpu < 1 || ncpu > CPU_SETSIZE)
		ncpu = CPU_SETSIZE;
	if (strlen(val) >= sizeof(job->cpus_allowed))
		return bench_err(err, errlen, "cpus_allowed: list too long");
	CPU_ZERO(&job->cpus);
	for (;;) {
		unsigned long lo, hi, c;
		char *end;

		if (*p < '0' || *p > '9')
			return bench_err(err, errlen,
					 "cpus_allowed: '%s' is not a list of "
					 "CPUs (like 0,2-3)",
					 val);
		lo = hi = strtoul(p, &end, 10);
		p = end;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				return bench_err(err, errlen,
						 "cpus_allowed: bad range in "
						 "'%s'",
						 val);
			hi = strtoul(p, &end, 10);
			p = end;
		}
		if (hi < lo)
			return bench_err(err, errlen,
					 "cpus_allowed: range %lu-%lu runs "
					 "backwards",
					 lo, hi);
		if (hi >= (unsigned long)ncpu)
			return bench_err(
				err, errlen,
				"cpus_allowed: CPU %lu too large (this "
				"machine has %ld)",
				hi, ncpu);
		for (c = lo; c <= hi; c++)
			CPU_SET(c, &job->cpus);
		if (!*p)
			break;
		if (*p++ != ',')
			return bench_err(err, errlen,
					 "cpus_allowed: '%s' is not a list of "
					 "CPUs (like 0,2-3)",
					 val);
	}
	snprintf(job->cpus_allowed, sizeof(job->cpus_allowed), "%s", val);
	return 0;
}

/* fio's size=: bytes, or N% of the device or file --filename names (of
 * each of fio's jobname files with nrfiles > 1). */
static int set_size(struct bench_job *job, const char *val, char *err,
		    size_t errlen)
{
	size_t len = strlen(val);
	char buf[160], num[32];
	uint64_t v;

	if (len && val[len - 1] == '%') {
		if (len - 1 >= sizeof(num) || len == 1)
			return bench_err(
				err, errlen,
				"size=%s: expected N%% with N 1 to 100", val);
		memcpy(num, val, len - 1);
		num[len - 1] = 0;
		if (bench_parse_uint(num, 1, 100, &v, buf, sizeof(buf)))
			return bench_err(err, errlen,
					 "size=%s: the percentage must be 1 "
					 "to 100",
					 val);
		job->size_pct = (unsigned)v;
		job->size = 0;
		return 0;
	}
	if (bench_parse_size_base(val, job->kb_base, &v, buf, sizeof(buf)))
		return bench_err(err, errlen, "size: %s", buf);
	job->size = v;
	job->size_pct = 0;
	return 0;
}

/*
 * fio's directory=: checked when parsed, as fio does ("/x is not a
 * directory"). fio's DIR1:DIR2 spreads files over several directories;
 * mqblk takes one.
 */
static int set_directory(struct bench_job *job, const char *val, char *err,
			 size_t errlen)
{
	struct stat st;
	char *d;

	if (!*val)
		return bench_err(err, errlen, "directory: empty value");
	if (strchr(val, ':'))
		return bench_err(err, errlen,
				 "directory=%s: several directories (':') "
				 "are not supported, name one",
				 val);
	if (stat(val, &st))
		return bench_err(err, errlen,
				 "directory=%s: %s is not a directory (%s)",
				 val, val, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return bench_err(err, errlen,
				 "directory=%s: %s is not a directory", val,
				 val);
	d = strdup(val);
	if (!d)
		return bench_err(err, errlen, "out of memory");
	free(job->directory);
	job->directory = d;
	return 0;
}

/* fio's file_service_type=roundrobin|sequential|random[:N]. */
static int set_file_service(struct bench_job *job, const char *val, char *err,
			    size_t errlen)
{
	static const struct {
		const char *name;
		enum bench_file_service fs;
	} names[] = {
		{ "roundrobin", FILE_SERVICE_ROUNDROBIN },
		{ "sequential", FILE_SERVICE_SEQUENTIAL },
		{ "random", FILE_SERVICE_RANDOM },
	};
	const char *colon = strchr(val, ':');
	size_t len = colon ? (size_t)(colon - val) : strlen(val), i;
	char buf[160];
	uint64_t n = 1;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].name) == len &&
		    !strncmp(val, names[i].name, len))
			break;
	if (i == sizeof(names) / sizeof(names[0]))
		return bench_err(err, errlen,
				 "failed parsing file_service_type=%s "
				 "(roundrobin, sequential, random[:N]; "
				 "zipf, pareto, normal, gauss are not "
				 "supported)",
				 val);
	if (colon &&
	    bench_parse_uint(colon + 1, 1, UINT32_MAX, &n, buf, sizeof(buf)))
		return bench_err(err, errlen, "file_service_type=%s: %s", val,
				 buf);
	job->file_service = names[i].fs;
	job->file_service_nr = (unsigned)n;
	return 0;
}

/* fio's filesize=SIZE or LOW-HIGH, also LOW:HIGH (each file's size drawn
 * in the range, fio's file_size_low/high; a range whose high end is below
 * its low is swapped, as fio's range parser does). */
static int set_filesize(struct bench_job *job, const char *val, char *err,
			size_t errlen)
{
	const char *dash = strchr(val, '-');
	char buf[160], low[64];
	uint64_t v, hi = 0;

	if (!dash)
		dash = strchr(val, ':');
	if (dash) {
		if ((size_t)(dash - val) >= sizeof(low))
			return bench_err(err, errlen, "filesize=%s: too long",
					 val);
		memcpy(low, val, (size_t)(dash - val));
		low[dash - val] = 0;
		if (bench_parse_size_base(low, job->kb_base, &v, buf,
					  sizeof(buf)) ||
		    bench_parse_size_base(dash + 1, job->kb_base, &hi, buf,
					  sizeof(buf)))
			return bench_err(err, errlen, "filesize: %s", buf);
		if (hi < v) {
			uint64_t t = v;

			v = hi;
			hi = t;
		}
	} else if (bench_parse_size_base(val, job->kb_base, &v, buf,
					 sizeof(buf))) {
		return bench_err(err, errlen, "filesize: %s", buf);
	}
	if (!v)
		return bench_err(err, errlen, "filesize=%s: must be above 0",
				 val);
	job->filesize = v;
	job->filesize_high = hi > v ? hi : 0;
	return 0;
}

/*
 * fio's per-direction values R[,W[,T]] (rate=, rate_iops=, rate_min=):
 * a value not followed by a comma applies to the directions after it too,
 * an empty field leaves that direction as it was. bytes: sizes, else
 * plain numbers.
 */
static int set_per_ddir(const struct bench_job *job, const char *key,
			const char *val, bool bytes, uint64_t *out, char *err,
			size_t errlen)
{
	const char *p = val;
	char field[64], buf[160];
	uint64_t v[DDIR_NR];
	bool set[DDIR_NR] = { false };
	int d = 0, i;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (d >= DDIR_NR)
			return bench_err(err, errlen,
					 "%s=%s: at most 3 values "
					 "(read,write,trim)",
					 key, val);
		if (len >= sizeof(field))
			return bench_err(err, errlen, "%s=%s: value too long",
					 key, val);
		memcpy(field, p, len);
		field[len] = 0;
		if (len) {
			if (bytes ? bench_parse_size_base(field, job->kb_base,
							  &v[d], buf,
							  sizeof(buf)) :
				    bench_parse_uint(field, 0, UINT64_MAX,
						     &v[d], buf, sizeof(buf)))
				return bench_err(err, errlen, "%s: %s", key,
						 buf);
			set[d] = true;
			if (!comma)
				for (i = d + 1; i < DDIR_NR; i++) {
					v[i] = v[d];
					set[i] = true;
				}
		}
		if (!comma)
			break;
		p = comma + 1;
		d++;
	}
	if (!set[0] && !set[1] && !set[2])
		return bench_err(err, errlen, "%s='%s': no value given", key,
				 val);
	for (i = 0; i < DDIR_NR; i++)
		if (set[i])
			out[i] = v[i];
	return 0;
}

/* fio's thinktime units: a bare number is microseconds. */
static int set_usec_time(const char *key, const char *val, uint64_t *out,
			 char *err, size_t errlen)
{
	char buf[160];
	uint64_t v;

	if (*val && strspn(val, "0123456789") == strlen(val)) {
		if (bench_parse_uint(val, 0, UINT64_MAX / 1000, &v, buf,
				     sizeof(buf)))
			return bench_err(err, errlen, "%s: %s", key, buf);
		*out = v * 1000;
		return 0;
	}
	if (bench_parse_time(val, out, buf, sizeof(buf)))
		return bench_err(err, errlen, "%s: %s", key, buf);
	return 0;
}

/*
 * Options whose default mqblk has and whose other values it does not:
 * the default is taken, anything else refused naming why (mqblk-bench(1)'s
 * list of options not implemented).
 */
/* fio 3.33's unified_rw_reporting=none|mixed|both|0|1|2 */
static int set_unified(struct bench_job *job, const char *val, char *err,
		       size_t errlen)
{
	static const char *const names[] = { "none", "mixed", "both" };
	static const char *const nums[] = { "0", "1", "2" };
	unsigned i;

	for (i = 0; val && i < 3; i++)
		if (!strcmp(val, names[i]) || !strcmp(val, nums[i])) {
			job->unified_rw_reporting = i;
			return 0;
		}
	return bench_err(err, errlen,
			 "failed parsing unified_rw_reporting=%s (none, mixed, "
			 "both, 0, 1, 2)",
			 val ? val : "");
}

/* fio's continue_on_error=none|read|write|io|verify|all|0|1 */
static int set_continue_on_error(struct bench_job *job, const char *val,
				 char *err, size_t errlen)
{
	static const struct {
		const char *name;
		unsigned mask;
	} tab[] = {
		{ "none", 0 },
		{ "0", 0 },
		{ "read", 1u << BENCH_ERR_READ },
		{ "write", 1u << BENCH_ERR_WRITE },
		{ "io", (1u << BENCH_ERR_READ) | (1u << BENCH_ERR_WRITE) },
		{ "verify", 1u << BENCH_ERR_VERIFY },
		{ "all", 7 },
		{ "1", 7 },
	};
	size_t i;

	for (i = 0; val && i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(val, tab[i].name)) {
			job->continue_on_error = tab[i].mask;
			return 0;
		}
	return bench_err(err, errlen,
			 "failed parsing continue_on_error=%s (none, read, "
			 "write, io, verify, all, 0, 1)",
			 val ? val : "");
}

/*
 * fio's ignore_error=READ_LIST,WRITE_LIST,VERIFY_LIST: each list errors
 * by name (EIO) or number (5, 0x5) separated by ':'; a list given lets
 * its type's errors go (continue_on_error for that type), only those.
 */
static int set_ignore_error(struct bench_job *job, const char *val, char *err,
			    size_t errlen)
{
	const char *p = val ? val : "";
	unsigned type = 0;

	while (*p == ' ')
		p++;
	for (;; type++) {
		size_t len = strcspn(p, ","), n = 0;
		const char *q = p, *end = p + len;

		if (type >= 3)
			return bench_err(
				err, errlen,
				"failed parsing ignore_error=%s: Illegal "
				"error type (three lists at most: read, "
				"write, verify)",
				val);
		while (q < end) {
			size_t el = strcspn(q, ":,");
			char name[32];
			int e = 0;

			if (!el)
				break; /* fio: an empty entry ends the list */
			if (el >= sizeof(name))
				return bench_err(
					err, errlen,
					"Unknown error %.*s, please use "
					"number value",
					(int)el, q);
			memcpy(name, q, el);
			name[el] = 0;
			if (name[0] == 'E') {
				int k;

				for (k = 1; k < 200 && !e; k++) {
					const char *en = strerrorname_np(k);

					if (en && !strcmp(en, name))
						e = k;
				}
			} else {
				char *ep;
				long v = strtol(name, &ep, 0);

				if (*ep || v == LONG_MIN || v == LONG_MAX ||
				    v > INT32_MAX || v < -INT32_MAX)
					v = 0;
				e = (int)(v < 0 ? -v : v);
			}
			if (!e)
				return bench_err(err, errlen,
						 "Unknown error %s, please use "
						 "number value",
						 name);
			if (n == BENCH_IGNORE_ERROR_MAX)
				return bench_err(
					err, errlen,
					"ignore_error=%s: more than %u "
					"errors in a list",
					val, BENCH_IGNORE_ERROR_MAX);
			job->ignore_error[type][n++] = e;
			q += el;
			if (*q == ':')
				q++;
		}
		job->ignore_error_nr[type] = (unsigned)n;
		if (n)
			job->continue_on_error |= 1u << type;
		if (!*end)
			break;
		p = end + 1;
	}
	return 0;
}

static int set_default_only(const struct opt *o, const char *val, char *err,
			    size_t errlen)
{
	static const struct {
		const char *name;
		const char *ok[3];
		const char *why;
	} tab[] = {
		{ "dedupe_mode",
		  { "repeat", NULL, NULL },
		  "a dedupe buffer repeats the last unique one (working_set "
		  "is not implemented)" },
		{ "write_barrier",
		  { "0", NULL, NULL },
		  "no barrier writes (use --fsync=N)" },
		{ "verify_dump",
		  { "0", NULL, NULL },
		  "a mismatch is one line on stderr; no block dump files" },
	};
	size_t i, k;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (strcmp(tab[i].name, o->name))
			continue;
		for (k = 0; k < 3 && tab[i].ok[k]; k++)
			if (!strcmp(val, tab[i].ok[k]))
				return 0;
		return bench_err(err, errlen,
				 "%s=%s is not supported: %s (only %s=%s)",
				 o->name, val, tab[i].why, o->name,
				 tab[i].ok[0]);
	}
	return bench_err(err, errlen, "option '%s' has no handler", o->name);
}

int opt_set_special(struct bench_job *job, const struct opt *o, const char *val,
		    char *err, size_t errlen)
{
	char buf[160];
	uint64_t v;

	if (!strcmp(o->name, "sync")) {
		/* fio 3.33's values; the device is opened O_SYNC/O_DSYNC */
		if (!strcmp(val, "none") || !strcmp(val, "0"))
			job->sync_io = 0;
		else if (!strcmp(val, "sync") || !strcmp(val, "1"))
			job->sync_io = MQBLK_OPEN_SYNC;
		else if (!strcmp(val, "dsync"))
			job->sync_io = MQBLK_OPEN_DSYNC;
		else
			return bench_err(err, errlen,
					 "failed parsing sync=%s (valid "
					 "values: none, 0, sync, 1, dsync)",
					 val);
		return 0;
	}
	if (!strcmp(o->name, "kb_base")) {
		/* fio's words, its two lines of valid values in one */
		if (strcmp(val, "1024") && strcmp(val, "1000"))
			return bench_err(err, errlen,
					 "failed parsing kb_base=%s (valid "
					 "values: 1024, 1000)",
					 val);
		job->kb_base = val[3] == '4' ? 1024 : 1000;
		return 0;
	}
	if (!strcmp(o->name, "name")) {
		if (!*val)
			return bench_err(err, errlen, "empty job name");
		if (strlen(val) >= BENCH_NAME_MAX)
			return bench_err(err, errlen,
					 "job name '%.32s...' too long", val);
		snprintf(job->name, sizeof(job->name), "%s", val);
		return 0;
	}
	if (!strcmp(o->name, "rw") || !strcmp(o->name, "readwrite"))
		return opt_set_rw(job, val, err, errlen);
	if (!strcmp(o->name, "bs") || !strcmp(o->name, "blocksize"))
		return opt_set_bs(job, val, err, errlen);
	if (!strcmp(o->name, "bsrange") || !strcmp(o->name, "blocksize_range"))
		return opt_set_bsrange(job, o->name, val, err, errlen);
	if (!strcmp(o->name, "bssplit"))
		return opt_set_bssplit(job, val, err, errlen);
	if (!strcmp(o->name, "ioengine"))
		return set_ioengine(job, val, err, errlen);
	if (!strcmp(o->name, "size"))
		return set_size(job, val, err, errlen);
	if (!strcmp(o->name, "directory"))
		return set_directory(job, val, err, errlen);
	if (!strcmp(o->name, "filesize"))
		return set_filesize(job, val, err, errlen);
	if (!strcmp(o->name, "file_service_type"))
		return set_file_service(job, val, err, errlen);
	if (!strcmp(o->name, "random_distribution"))
		return opt_set_random_distribution(job, val, err, errlen);
	if (!strcmp(o->name, "rate"))
		return set_per_ddir(job, o->name, val, true, job->rate, err,
				    errlen);
	if (!strcmp(o->name, "rate_iops"))
		return set_per_ddir(job, o->name, val, false, job->rate_iops,
				    err, errlen);
	if (!strcmp(o->name, "rate_min") || !strcmp(o->name, "ratemin"))
		return set_per_ddir(job, o->name, val, true, job->rate_min, err,
				    errlen);
	if (!strcmp(o->name, "rate_iops_min"))
		return set_per_ddir(job, o->name, val, false,
				    job->rate_iops_min, err, errlen);
	if (!strcmp(o->name, "rate_process")) {
		if (strcmp(val, "linear") && strcmp(val, "poisson"))
			return bench_err(err, errlen,
					 "failed parsing rate_process=%s "
					 "(linear, poisson)",
					 val);
		job->rate_poisson = !strcmp(val, "poisson");
		return 0;
	}
	if (!strcmp(o->name, "thinktime"))
		return set_usec_time(o->name, val, &job->thinktime_ns, err,
				     errlen);
	if (!strcmp(o->name, "thinktime_spin"))
		return set_usec_time(o->name, val, &job->thinktime_spin_ns, err,
				     errlen);
	if (!strcmp(o->name, "buffer_pattern"))
		return verify_parse_pattern(val, job->buffer_pattern,
					    &job->buffer_pattern_len, err,
					    errlen);
	if (!strcmp(o->name, "buffered")) {
		bool b = true;

		if (val && bench_parse_bool(val, &b, buf, sizeof(buf)))
			return bench_err(err, errlen, "buffered: %s", buf);
		job->direct = !b;
		return 0;
	}
	if (!strcmp(o->name, "write_bw_log") ||
	    !strcmp(o->name, "write_lat_log") ||
	    !strcmp(o->name, "write_iops_log") ||
	    !strcmp(o->name, "write_hist_log")) {
		/* fio: a bare option logs under the job's name */
		char **dst = o->name[6] == 'b' ? &job->bw_log :
			     o->name[6] == 'l' ? &job->lat_log :
			     o->name[6] == 'h' ? &job->hist_log :
						 &job->iops_log;
		/* "": the job's own name, which a [global] line has not */
		char *n = strdup(val ? val : "");

		if (!n)
			return bench_err(err, errlen, "out of memory");
		free(*dst);
		*dst = n;
		return 0;
	}
	if (!strcmp(o->name, "log_compression")) {
		if (!val ||
		    bench_parse_size_base(val, job->kb_base, &v, buf,
					  sizeof(buf)) ||
		    v)
			return bench_err(err, errlen,
					 "log_compression=%s is not "
					 "supported: logs are plain text",
					 val ? val : "");
		return 0;
	}
	if (!strcmp(o->name, "ignore_error"))
		return set_ignore_error(job, val, err, errlen);
	if (!strcmp(o->name, "continue_on_error"))
		return set_continue_on_error(job, val, err, errlen);
	if (!strcmp(o->name, "unified_rw_reporting"))
		return set_unified(job, val, err, errlen);
	if (!strcmp(o->name, "fallocate")) {
		if (val && (!strcmp(val, "none") || !strcmp(val, "0") ||
			    !strcmp(val, "truncate"))) {
			job->fallocate_none = true;
			return 0;
		}
		if (val && (!strcmp(val, "posix") || !strcmp(val, "1") ||
			    !strcmp(val, "native"))) {
			job->fallocate_none = false;
			return 0;
		}
		return bench_err(err, errlen,
				 "fallocate=%s is not supported (none, "
				 "truncate, 0, posix, native, 1; keep is not "
				 "implemented)",
				 val ? val : "");
	}
	if (!strcmp(o->name, "percentile_list"))
		return set_percentiles(job, val, err, errlen);
	if (!strncmp(o->name, "verify", 6) && strcmp(o->name, "verify_dump"))
		return set_verify_opt(job, o, val, err, errlen);
	if (!strcmp(o->name, "fixedbufs")) {
		bool b = true;

		if (val && bench_parse_bool(val, &b, buf, sizeof(buf)))
			return bench_err(err, errlen, "fixedbufs: %s", buf);
		job->fixedbufs = b;
		return 0;
	}
	if (!strcmp(o->name, "cpus_allowed"))
		return set_cpus_allowed(job, val, err, errlen);
	if (!strcmp(o->name, "cpus_allowed_policy")) {
		if (strcmp(val, "shared") && strcmp(val, "split"))
			return bench_err(err, errlen,
					 "cpus_allowed_policy: '%s' is not "
					 "shared or split",
					 val);
		job->cpus_split = !strcmp(val, "split");
		return 0;
	}
	if (!strcmp(o->name, "sqthread_poll_cpu"))
		return bench_err(
			err, errlen,
			"%s is not supported yet (the uring driver has no "
			"such mode)",
			o->name);
	if (!strcmp(o->name, "rwmixwrite")) {
		if (bench_parse_uint(val, 0, 100, &v, buf, sizeof(buf)))
			return bench_err(err, errlen, "rwmixwrite: %s", buf);
		job->rwmixread = 100 - (unsigned)v;
		return 0;
	}
	if (!strcmp(o->name, "randseed")) {
		if (bench_parse_uint(val, 0, UINT64_MAX, &v, buf, sizeof(buf)))
			return bench_err(err, errlen, "randseed: %s", buf);
		job->randseed = v;
		job->randseed_set = true;
		return 0;
	}
	return set_default_only(o, val, err, errlen);
}
