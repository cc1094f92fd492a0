// SPDX-License-Identifier: MIT
/*
 * fio job files: INI sections, [global] setting the defaults of the jobs
 * after it, every other [section] a job named after it; key=value or a bare
 * key (a boolean set); ';' and '#' start a comment anywhere on a line, as
 * in fio; ${VAR} from the environment and fio's $ncpus, $pagesize,
 * $mb_memory. Every error names the file and line.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define MAX_LINE 4096

struct jf {
	const char *path;
	unsigned line;
	char *err;
	size_t errlen;
};

static int jerr(struct jf *jf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int jerr(struct jf *jf, const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (jf->err && jf->errlen)
		snprintf(jf->err, jf->errlen, "%s:%u: %s", jf->path, jf->line,
			 msg);
	return -1;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* fio's built-in variables. */
static int builtin_var(const char *name, size_t len, char *out, size_t outlen)
{
	unsigned long long pages, page_size;
	long v;

	if (len == 5 && !strncmp(name, "ncpus", 5)) {
		v = sysconf(_SC_NPROCESSORS_ONLN);
	} else if (len == 8 && !strncmp(name, "pagesize", 8)) {
		v = sysconf(_SC_PAGESIZE);
	} else if (len == 9 && !strncmp(name, "mb_memory", 9)) {
		pages = (unsigned long long)sysconf(_SC_PHYS_PAGES);
		page_size = (unsigned long long)sysconf(_SC_PAGESIZE);
		v = (long)(pages * page_size >> 20);
	} else {
		return 1;
	}
	snprintf(out, outlen, "%ld", v);
	return 0;
}

/* Expand ${VAR} and $ncpus-style names of in into out. */
static int expand(struct jf *jf, const char *in, char *out, size_t outlen)
{
	size_t o = 0;

	while (*in) {
		char val_buf[32];
		const char *val = NULL, *name, *end;
		size_t len, vlen;

		if (*in != '$') {
			if (o + 1 >= outlen)
				return jerr(jf,
					    "line too long after expansion");
			out[o++] = *in++;
			continue;
		}
		if (in[1] == '{') {
			char var[128];

			name = in + 2;
			end = strchr(name, '}');
			if (!end)
				return jerr(jf, "unterminated '${' in '%s'",
					    in);
			len = (size_t)(end - name);
			if (!len || len >= sizeof(var))
				return jerr(jf, "bad variable name in '%s'",
					    in);
			memcpy(var, name, len);
			var[len] = 0;
			val = getenv(var);
			if (!val) {
				if (builtin_var(var, len, val_buf,
						sizeof(val_buf)))
					return jerr(jf,
						    "environment variable '%s' "
						    "is not set",
						    var);
				val = val_buf;
			}
			in = end + 1;
		} else {
			name = in + 1;
			end = name;
			while (isalnum((unsigned char)*end) || *end == '_')
				end++;
			len = (size_t)(end - name);
			if (!len ||
			    builtin_var(name, len, val_buf, sizeof(val_buf)))
				return jerr(jf,
					    "unknown variable in '%s' (use "
					    "${VAR}, $ncpus, $pagesize, "
					    "$mb_memory)",
					    in);
			val = val_buf;
			in = end;
		}
		vlen = strlen(val);
		if (o + vlen >= outlen)
			return jerr(jf, "line too long after expansion");
		memcpy(out + o, val, vlen);
		o += vlen;
	}
	out[o] = 0;
	return 0;
}

static int end_section(struct jf *jf, struct bench_config *cfg,
		       struct bench_job *job, bool *in_job)
{
	char msg[256];

	if (!*in_job)
		return 0;
	*in_job = false;
	if (bench_config_add_job(cfg, job, msg, sizeof(msg)))
		return jerr(jf, "%s", msg);
	bench_job_free(job);
	return 0;
}

int bench_parse_jobfile_stream(FILE *f, const char *path,
			       const struct bench_job *defaults,
			       struct bench_config *cfg, char *err,
			       size_t errlen)
{
	struct jf jf = { path, 0, err, errlen };
	struct bench_job global, job;
	bool in_job = false, in_global = false, any_section = false;
	unsigned jobs_before = cfg->nr_jobs;
	char *line = NULL, *expanded = NULL;
	size_t cap = 0;
	ssize_t n;
	int ret = -1;

	memset(&job, 0, sizeof(job));
	if (bench_job_copy(&global, defaults)) {
		jerr(&jf, "out of memory");
		return -1;
	}
	expanded = malloc(MAX_LINE);
	if (!expanded) {
		jerr(&jf, "out of memory");
		goto out;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		char *s, *eq, *key, *val, msg[256];
		int r;

		jf.line++;
		if ((size_t)n >= MAX_LINE) {
			jerr(&jf, "line longer than %d bytes", MAX_LINE - 1);
			goto out;
		}
		if (memchr(line, 0, (size_t)n)) {
			jerr(&jf, "NUL byte in line");
			goto out;
		}
		/* fio (strip_blank_end) ends every line at its first ';' or
		 * '#', so "bs=4k ; note" is bs=4k and "[job] # x" is [job]
		 * there: a trailing comment must not become part of a value */
		line[strcspn(line, ";#")] = 0;
		s = trim(line);
		if (!*s)
			continue;
		if (*s == '[') {
			char *close = strchr(s, ']');

			if (!close) {
				jerr(&jf, "unterminated section header '%s'",
				     s);
				goto out;
			}
			if (*trim(close + 1)) {
				jerr(&jf, "text after section header '%s'", s);
				goto out;
			}
			*close = 0;
			s = trim(s + 1);
			if (!*s) {
				jerr(&jf, "empty section name");
				goto out;
			}
			if (end_section(&jf, cfg, &job, &in_job))
				goto out;
			any_section = true;
			in_global = !strcmp(s, "global");
			if (in_global)
				continue;
			if (bench_job_copy(&job, &global)) {
				jerr(&jf, "out of memory");
				goto out;
			}
			in_job = true;
			if (bench_job_set(&job, "name", s, msg, sizeof(msg))) {
				jerr(&jf, "%s", msg);
				goto out;
			}
			continue;
		}
		if (!in_job && !in_global) {
			jerr(&jf, "option '%s' outside of a [section]", s);
			goto out;
		}
		if (expand(&jf, s, expanded, MAX_LINE))
			goto out;
		key = expanded;
		eq = strchr(key, '=');
		val = NULL;
		if (eq) {
			*eq = 0;
			val = trim(eq + 1);
		}
		key = trim(key);
		if (!*key) {
			jerr(&jf, "missing option name before '='");
			goto out;
		}
		/* fio's directive is "include FILE", with no '=' */
		if (!strncmp(key, "include", 7) &&
		    (!key[7] || isspace((unsigned char)key[7]))) {
			jerr(&jf, "'include' is not supported");
			goto out;
		}
		r = bench_job_set(in_job ? &job : &global, key, val, msg,
				  sizeof(msg));
		if (r == BENCH_OPT_UNKNOWN) {
			jerr(&jf, "unknown option '%s'", key);
			goto out;
		}
		if (r) {
			jerr(&jf, "%s", msg);
			goto out;
		}
	}
	if (ferror(f)) {
		jerr(&jf, "read error: %s", strerror(errno));
		goto out;
	}
	if (end_section(&jf, cfg, &job, &in_job))
		goto out;
	if (cfg->nr_jobs == jobs_before) {
		jerr(&jf, any_section ? "no job section (only [global])" :
					"empty job file: no job defined");
		goto out;
	}
	ret = 0;
out:
	bench_job_free(&job);
	bench_job_free(&global);
	free(line);
	free(expanded);
	return ret;
}

int bench_parse_jobfile(const char *path, const struct bench_job *defaults,
			struct bench_config *cfg, char *err, size_t errlen)
{
	FILE *f;
	int ret;

	f = !strcmp(path, "-") ? stdin : fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "cannot open job file '%s': %s", path,
			 strerror(errno));
		return -1;
	}
	ret = bench_parse_jobfile_stream(f, path, defaults, cfg, err, errlen);
	if (f != stdin)
		fclose(f);
	return ret;
}
