// SPDX-License-Identifier: MIT
/*
 * mqblk plot: the HTML page: the runs, each chart's SVG inline, the
 * comparison's table.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../compare.h"
#include "../plot.h"
#include "plot_int.h"
#include "target/config/json.h"

static const char *const chart_title[CH_NR] = {
	"IOPS over time",
	"Bandwidth over time",
	"Completion latency percentiles over time",
	"Completion latency distribution",
	"Base against new (mqblk compare)",
};

/* ---- the page ---- */

/*
 * Copy gnuplot's SVG into the page: from its <svg> element on (no XML
 * prologue or doctype inside HTML), with every id (and each reference to
 * one) prefixed by the chart's so that several charts on one page keep
 * their own clip paths and markers, and the chart's id on the element.
 */
static int embed_svg(struct plot *pl, FILE *out, enum chart ch)
{
	static const char *const ref[] = { " id=\"", " id='", "url(#",
					   "href=\"#", "href='#" };
	char path[PATH_MAX + 32];
	char *text = NULL, *p, *svg;
	size_t len, i;

	snprintf(path, sizeof(path), "%s/%s.svg", pl->tmpdir,
		 plot_chart_id[ch]);
	if (cj_read_file(path, &text, &len, pl->err, sizeof(pl->err))) {
		plot_set_err(pl,
			     "gnuplot wrote no %s.svg (gnuplot-nox without its "
			     "svg terminal?)",
			     plot_chart_id[ch]);
		return -1;
	}
	svg = strstr(text, "<svg");
	if (!svg || !strstr(svg, "</svg>")) {
		plot_set_err(pl, "gnuplot's %s.svg has no <svg> element",
			     plot_chart_id[ch]);
		free(text);
		return -1;
	}
	fprintf(out, "<svg id=\"%s\"", plot_chart_id[ch]);
	for (p = svg + 4; *p;) {
		/* the chart's own name for a tooltip, not "Gnuplot" */
		if (!strncmp(p, "<title>Gnuplot</title>", 22)) {
			fprintf(out, "<title>%s</title>", chart_title[ch]);
			p += 22;
			continue;
		}
		for (i = 0; i < sizeof(ref) / sizeof(ref[0]); i++)
			if (!strncmp(p, ref[i], strlen(ref[i])))
				break;
		if (i < sizeof(ref) / sizeof(ref[0])) {
			fprintf(out, "%s%s-", ref[i], plot_chart_id[ch]);
			p += strlen(ref[i]);
		} else {
			fputc(*p++, out);
		}
	}
	fputc('\n', out);
	free(text);
	return 0;
}

static void page_head(struct plot *pl, FILE *f)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n<title>",
	      f);
	cmp_xml_str(f, pl->title, true);
	fputs("</title>\n<style>\n"
	      "body{font-family:sans-serif;margin:1.5em auto;max-width:1040px;"
	      "padding:0 1em;color:#222}\n"
	      "h1{font-size:1.5em}\n"
	      "h2{font-size:1.2em;margin-top:1.8em;border-bottom:1px solid "
	      "#ccc}\n"
	      "table{border-collapse:collapse;font-size:.9em}\n"
	      "td,th{border:1px solid #ccc;padding:.2em .5em;"
	      "text-align:right}\n"
	      "th{background:#f3f3f3}\ntd.l,th.l{text-align:left}\n"
	      "figure{margin:0}\nfigcaption{color:#555;font-size:.9em}\n"
	      "svg{max-width:100%;height:auto}\n"
	      "pre{background:#f6f6f6;padding:.6em;overflow-x:auto;"
	      "font-size:.8em}\n"
	      "p.none{color:#777;font-style:italic}\n"
	      "</style>\n</head>\n<body>\n<h1>",
	      f);
	cmp_xml_str(f, pl->title, true);
	fputs("</h1>\n", f);
}

static void td_num(FILE *f, const struct cmp_dir_vals *dv, int metric,
		   double scale, int decimals)
{
	fputs("<td>", f);
	if (dv->have[metric])
		fprintf(f, "%.*f", decimals, dv->val[metric] * scale);
	else
		fputs("-", f);
	fputs("</td>", f);
}

static void page_runs(struct plot *pl, FILE *f)
{
	size_t r, i;
	int d;

	fputs("<h2>Runs</h2>\n<table id=\"runs\">\n<tr><th class=\"l\">run"
	      "</th><th class=\"l\">side</th><th class=\"l\">report</th>"
	      "<th class=\"l\">job</th><th class=\"l\">dir</th><th>IOPS</th>"
	      "<th>MiB/s</th><th>clat mean (us)</th><th>clat p99 (us)</th>"
	      "<th>clat p99.99 (us)</th></tr>\n",
	      f);
	for (r = 0; r < pl->nr_runs; r++) {
		const struct run *run = &pl->runs[r];
		const char *ver = cj_str(
			cj_get(plot_final_doc(run), "fio version"), NULL);

		for (i = 0; i < pl->cmps[r].nr_jobs; i++) {
			const struct cmp_job *j = &pl->cmps[r].jobs[i];

			for (d = 0; d < CMP_NR_DIRS; d++) {
				const struct cmp_dir_vals *dv = &j->dir[d];

				if (!dv->io)
					continue;
				fputs("<tr><td class=\"l\">", f);
				cmp_xml_str(f, run->label, true);
				fprintf(f, "</td><td class=\"l\">%s</td>",
					!pl->two_sides	? "-" :
					r < pl->nr_base ? "base" :
							  "new");
				fputs("<td class=\"l\">", f);
				cmp_xml_str(f, run->path, true);
				if (ver) {
					fputs(" (", f);
					cmp_xml_str(f, ver, true);
					fputs(")", f);
				}
				fputs("</td><td class=\"l\">", f);
				cmp_xml_str(f, j->name, true);
				fprintf(f, "</td><td class=\"l\">%s</td>",
					cmp_dir_name(d));
				td_num(f, dv, CMP_IOPS, 1, 0);
				td_num(f, dv, CMP_BW, 1.0 / (1024 * 1024), 2);
				td_num(f, dv, CMP_CLAT_MEAN, 1e-3, 3);
				td_num(f, dv, CMP_CLAT_P99, 1e-3, 3);
				td_num(f, dv, CMP_CLAT_P9999, 1e-3, 3);
				fputs("</tr>\n", f);
			}
		}
	}
	fputs("</table>\n", f);
}

static int page_chart(struct plot *pl, FILE *f, enum chart ch,
		      const char *why_none)
{
	struct chart_data *cd = &pl->ch[ch];

	fputs("<h2>", f);
	cmp_xml_str(f, chart_title[ch], true);
	fputs("</h2>\n", f);
	if (!cd->drawn) {
		fprintf(f, "<p class=\"none\" id=\"%s-none\">",
			plot_chart_id[ch]);
		cmp_xml_str(f, why_none, true);
		fputs("</p>\n", f);
		return 0;
	}
	fputs("<figure>\n", f);
	if (embed_svg(pl, f, ch))
		return -1;
	if (cd->src[0]) {
		fputs("<figcaption>", f);
		cmp_xml_str(f, cd->src, true);
		fputs("</figcaption>\n", f);
	}
	fputs("</figure>\n", f);
	return 0;
}

int plot_write_page(struct plot *pl, FILE *f)
{
	static const char *const none[CH_NR] = {
		"No data over time: no iops log (--write_iops_log) beside the "
		"report and no --status-interval reports in it.",
		"No data over time: no bw log (--write_bw_log) beside the "
		"report and no --status-interval reports in it.",
		"No data over time: no clat or lat log (--write_lat_log) "
		"beside the report and no --status-interval reports in it.",
		"No clat_ns bins: the report is not json+ "
		"(--output-format=json+).",
		"No change to draw: no job did I/O on both sides.",
	};
	size_t r;
	int c;

	page_head(pl, f);
	fprintf(f, "<p>mqblk plot of %zu run%s:", pl->nr_runs,
		pl->nr_runs == 1 ? "" : "s");
	for (r = 0; r < pl->nr_runs; r++) {
		fputs(r ? ", " : " ", f);
		cmp_xml_str(f, pl->runs[r].path, true);
	}
	fputs(pl->two_sides ? " (base, then new)." : ".", f);
	if (pl->nr_runs > 1)
		fputs(" One dash style per run.", f);
	fputs("</p>\n", f);
	page_runs(pl, f);
	for (c = CH_IOPS; c <= CH_HIST; c++)
		if (page_chart(pl, f, (enum chart)c, none[c]))
			return -1;
	if (pl->two_sides) {
		if (page_chart(pl, f, CH_CMP, none[CH_CMP]))
			return -1;
		fputs("<pre id=\"compare-table\">", f);
		cmp_xml_str(f, pl->cmp_text ? pl->cmp_text : "", true);
		fputs("</pre>\n", f);
	}
	fputs("</body>\n</html>\n", f);
	return 0;
}
