// SPDX-License-Identifier: MIT
/*
 * mqblk compare: the comparison as JSON (a row per metric) and JUnit XML
 * (a testcase per metric), for CI.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../compare.h"
#include "cmp_int.h"
#include "target/config/json.h"

/* The length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong, surrogates, past U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/* s as a JSON string; bytes that are not UTF-8 (a file name's) become
 * U+FFFD. */
static void json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), l;

	fputc('"', f);
	while (n) {
		if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p);
		} else if (*p < 0x20) {
			fprintf(f, "\\u%04x", *p);
		} else if (*p >= 0x80) {
			l = utf8_len(p, n);
			if (!l) {
				fputs("\\ufffd", f);
				l = 1;
			} else {
				fwrite(p, 1, l, f);
			}
			p += l;
			n -= l;
			continue;
		} else {
			fputc(*p, f);
		}
		p++;
		n--;
	}
	fputc('"', f);
}

/* A number, or null when it is not finite (JSON has no NaN). */
static void json_num(FILE *f, bool have, double v)
{
	if (have && isfinite(v))
		fprintf(f, "%.17g", v);
	else
		fputs("null", f);
}

static void json_side(FILE *f, const char *key, const struct cmp_run *runs,
		      size_t nr)
{
	size_t r;

	fprintf(f, "  \"%s\": [", key);
	for (r = 0; r < nr; r++) {
		fputs(r ? ", " : "", f);
		json_str(f, runs[r].path);
	}
	fputs("],\n", f);
}

struct out_ctx {
	FILE *f;
	unsigned nr_rows;
	unsigned nr_failures;
	unsigned nr_skipped;
	double threshold;
};

static int json_row(const struct cmp_row *row, void *arg)
{
	struct out_ctx *ox = arg;
	FILE *f = ox->f;

	fputs(ox->nr_rows++ ? ",\n    {" : "\n    {", f);
	fputs("\"job\": ", f);
	json_str(f, row->job->name);
	fprintf(f,
		", \"groupid\": %" PRId64 ", \"ordinal\": %u, \"dir\": \"%s\", "
		"\"metric\": \"%s\", \"base_runs\": %zu, \"new_runs\": %zu, "
		"\"base\": ",
		row->job->groupid, row->job->ordinal + 1,
		cmp_dir_name(row->dir), cmp_metric_key(row->metric),
		row->nr_base, row->nr_new);
	json_num(f, row->nr_base > 0, row->base);
	fputs(", \"new\": ", f);
	json_num(f, row->nr_new > 0, row->new_val);
	fputs(", \"change_pct\": ", f);
	json_num(f, row->have_pct, row->pct);
	fprintf(f, ", \"tested\": %s, \"p\": ", row->tested ? "true" : "false");
	json_num(f, row->tested, row->p);
	fprintf(f, ", \"significant\": %s, \"regression\": %s}",
		row->tested && row->significant ? "true" : "false",
		row->regression ? "true" : "false");
	return 0;
}

int cmp_report_json(FILE *out, const struct cmp_run *base, size_t nr_base,
		    const struct cmp_run *new_runs, size_t nr_new,
		    double threshold, char *err, size_t errlen)
{
	struct out_ctx ox = { .f = out };
	int nr_reg;

	if (cmp_check(base, nr_base, new_runs, nr_new, err, errlen))
		return -1;
	fputs("{\n  \"format\": \"mqblk compare\",\n  \"version\": 1,\n", out);
	json_side(out, "base", base, nr_base);
	json_side(out, "new", new_runs, nr_new);
	fputs("  \"test\": \"Welch's t-test, two-sided, 95 %\",\n"
	      "  \"threshold_pct\": ",
	      out);
	json_num(out, threshold >= 0, threshold);
	fputs(",\n  \"rows\": [", out);
	nr_reg = cmp_rows(base, nr_base, new_runs, nr_new, threshold, json_row,
			  &ox, err, errlen);
	if (nr_reg < 0)
		return -1;
	fprintf(out, "%s],\n  \"regressions\": %d,\n  \"result\": \"%s\"\n}\n",
		ox.nr_rows ? "\n  " : "", nr_reg,
		nr_reg ? "regression" : "pass");
	return nr_reg ? 1 : 0;
}

/* s as XML (or HTML) attribute or text: markup escaped; control
 * characters, which XML 1.0 cannot hold (keep_lines: but newline and
 * tab, in element text), and bytes that are not UTF-8 become '?'. plot's
 * page uses it too. */
void cmp_xml_str(FILE *f, const char *s, bool keep_lines)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), l;

	while (n) {
		l = 1;
		switch (*p) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			if ((*p < 0x20 &&
			     !(keep_lines && (*p == '\n' || *p == '\t'))) ||
			    *p == 0x7f) {
				fputc('?', f);
			} else if (*p >= 0x80) {
				l = utf8_len(p, n);
				if (l)
					fwrite(p, 1, l, f);
				else
					fputc('?', f);
				if (!l)
					l = 1;
			} else {
				fputc(*p, f);
			}
		}
		p += l;
		n -= l;
	}
}

static int junit_row(const struct cmp_row *row, void *arg)
{
	struct out_ctx *ox = arg;
	FILE *f = ox->f;
	char cls[512], msg[256], bs[48], ns[48];
	double scale = cmp_metric_scale(row->metric);

	ox->nr_rows++;
	if (row->job->ordinal)
		snprintf(cls, sizeof(cls), "%s#%u.group%" PRId64 ".%s",
			 row->job->name, row->job->ordinal + 1,
			 row->job->groupid, cmp_dir_name(row->dir));
	else
		snprintf(cls, sizeof(cls), "%s.group%" PRId64 ".%s",
			 row->job->name, row->job->groupid,
			 cmp_dir_name(row->dir));
	fputs("    <testcase classname=\"", f);
	cmp_xml_str(f, cls, false);
	fprintf(f, "\" name=\"%s\"", cmp_metric_key(row->metric));
	if (!row->nr_base || !row->nr_new) {
		ox->nr_skipped++;
		fprintf(f,
			">\n      <skipped message=\"no value on the %s "
			"side\"/>\n    </testcase>\n",
			!row->nr_base ? "base" : "new");
		return 0;
	}
	if (!row->regression) {
		fputs("/>\n", f);
		return 0;
	}
	ox->nr_failures++;
	cmp_fmt_val(bs, sizeof(bs), row->base * scale, row->metric);
	cmp_fmt_val(ns, sizeof(ns), row->new_val * scale, row->metric);
	if (row->tested)
		snprintf(msg, sizeof(msg),
			 "%s %s -> %s (%+.2f%%), past %g%%, significant "
			 "(p=%.3g)",
			 cmp_metric_label(row->metric), bs, ns, row->pct,
			 ox->threshold, row->p);
	else
		snprintf(msg, sizeof(msg),
			 "%s %s -> %s (%+.2f%%), past %g%% (1 run: not tested "
			 "against noise)",
			 cmp_metric_label(row->metric), bs, ns, row->pct,
			 ox->threshold);
	fputs(">\n      <failure type=\"regression\" message=\"", f);
	cmp_xml_str(f, msg, false);
	fputs("\"/>\n    </testcase>\n", f);
	return 0;
}

int cmp_report_junit(FILE *out, const struct cmp_run *base, size_t nr_base,
		     const struct cmp_run *new_runs, size_t nr_new,
		     double threshold, char *err, size_t errlen)
{
	struct out_ctx ox = { .threshold = threshold };
	char *body = NULL;
	size_t body_len = 0;
	int nr_reg;

	if (cmp_check(base, nr_base, new_runs, nr_new, err, errlen))
		return -1;
	/* the counts go in the opening tags: the cases first, aside */
	ox.f = open_memstream(&body, &body_len);
	if (!ox.f) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	nr_reg = cmp_rows(base, nr_base, new_runs, nr_new, threshold, junit_row,
			  &ox, err, errlen);
	if (fclose(ox.f) && nr_reg >= 0) {
		snprintf(err, errlen, "out of memory");
		nr_reg = -1;
	}
	if (nr_reg < 0) {
		free(body);
		return -1;
	}
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuites name=\"mqblk compare\" tests=\"%u\" "
		"failures=\"%u\" skipped=\"%u\">\n"
		"  <testsuite name=\"mqblk compare\" tests=\"%u\" "
		"failures=\"%u\" skipped=\"%u\" errors=\"0\">\n",
		ox.nr_rows, ox.nr_failures, ox.nr_skipped, ox.nr_rows,
		ox.nr_failures, ox.nr_skipped);
	fwrite(body, 1, body_len, out);
	fputs("  </testsuite>\n</testsuites>\n", out);
	free(body);
	return nr_reg ? 1 : 0;
}
