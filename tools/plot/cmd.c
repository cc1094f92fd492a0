// SPDX-License-Identifier: MIT
/*
 * mqblk plot: the command, its options and its sides of runs.
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

/* ---- the command ---- */

static void plot_usage(FILE *f)
{
	fprintf(f,
		"usage: mqblk plot [-o PAGE.html] [--title TEXT] [--threshold "
		"PCT]\n"
		"                  [--log-dir DIR]\n"
		"                  RUN.json[,RUN2.json...] "
		"[NEW.json[,NEW2.json...]]\n"
		"\n"
		"One self-contained HTML page (SVG inline, no script) of charts\n"
		"drawn by gnuplot from fio or mqblk bench JSON reports (json or\n"
		"json+) and the logs beside them:\n"
		"  IOPS and bandwidth over time   the iops and bw logs\n"
		"                                 (--write_iops_log, "
		"--write_bw_log)\n"
		"  latency percentiles over time  the clat log, or the lat log\n"
		"                                 (--write_lat_log): p50, p99,\n"
		"                                 p99.9 per interval, or the\n"
		"                                 --log_avg_msec window means\n"
		"  without logs, the same from the --status-interval reports\n"
		"  in the file (rates between reports, cumulative "
		"percentiles)\n"
		"  the clat distribution          json+'s clat_ns bins\n"
		"  base against new               given two sides, what mqblk\n"
		"                                 compare says, drawn, and its\n"
		"                                 table\n"
		"Every run is drawn on the same charts, one dash style each.\n"
		"A job's logs are looked for in the report's directory, under\n"
		"the name its write_*_log option gives (or its job name):\n"
		"NAME_bw.N.log, NAME_iops.N.log, NAME_clat.N.log, "
		"NAME_lat.N.log\n"
		"(or without .N).\n"
		"\n"
		"options:\n"
		"  -o, --output PAGE  the page (default mqblk-plot.html);\n"
		"                     written whole or not at all\n"
		"  --title TEXT       the page's title\n"
		"  --log-dir DIR      look for every run's logs in DIR, not\n"
		"                     beside its report\n"
		"  --threshold PCT    as mqblk compare's: a regression past it\n"
		"                     is drawn as one\n"
		"  -h, --help         this text\n"
		"\n"
		"Needs gnuplot (Debian: gnuplot-nox). Exit status 0, or 1 with\n"
		"one line on stderr.\n");
}

/* Split a comma-separated side and load each run. */
static int load_side(struct plot *pl, char *list)
{
	char *p = list, *comma;
	struct cmp_run *cr;
	struct run *r;

	for (;;) {
		comma = strchr(p, ',');
		if (comma)
			*comma = 0;
		if (!*p) {
			plot_set_err(pl, "empty file name in a run list");
			return -1;
		}
		r = realloc(pl->runs, (pl->nr_runs + 1) * sizeof(*r));
		if (r)
			pl->runs = r;
		cr = r ? realloc(pl->cmps, (pl->nr_runs + 1) * sizeof(*cr)) :
			 NULL;
		if (!cr)
			return plot_oom(pl);
		pl->cmps = cr;
		pl->nr_runs++;
		if (plot_load_run(pl, &pl->runs[pl->nr_runs - 1],
				  &pl->cmps[pl->nr_runs - 1], p))
			return -1;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static void rm_tmpdir(struct plot *pl)
{
	struct dirent *de;
	char path[PATH_MAX * 2];
	DIR *d;

	if (!pl->tmpdir[0])
		return;
	d = opendir(pl->tmpdir);
	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", pl->tmpdir, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(pl->tmpdir);
	pl->tmpdir[0] = 0;
}

static void set_sources(struct plot *pl, const bool src_log[CH_NR],
			const bool src_status[CH_NR])
{
	int c;

	for (c = CH_IOPS; c <= CH_LAT; c++) {
		if (src_log[c] && src_status[c])
			snprintf(pl->ch[c].src, sizeof(pl->ch[c].src),
				 "From the logs beside the reports and, for "
				 "runs without, their --status-interval "
				 "reports.");
		else if (src_log[c])
			snprintf(pl->ch[c].src, sizeof(pl->ch[c].src),
				 "From the logs beside the reports.");
		else if (src_status[c])
			snprintf(pl->ch[c].src, sizeof(pl->ch[c].src),
				 "From the reports' --status-interval "
				 "reports (%s).",
				 c == CH_LAT ? "percentiles since the start" :
					       "rates between reports");
	}
	snprintf(pl->ch[CH_HIST].src, sizeof(pl->ch[CH_HIST].src),
		 "json+ clat_ns bins: the share of I/Os in each of fio's "
		 "histogram buckets (1/64 of a power of two wide).");
	snprintf(pl->ch[CH_CMP].src, sizeof(pl->ch[CH_CMP].src),
		 "The change of each metric, new against base (means over "
		 "each side's runs); the table is mqblk compare's.");
}

static int make_page(struct plot *pl)
{
	bool src_log[CH_NR] = { false }, src_status[CH_NR] = { false };
	const char *tmpbase = getenv("TMPDIR");
	char tmp_out[PATH_MAX];
	FILE *mem, *f;
	unsigned r;
	int c, n;

	for (r = 0; r < pl->nr_runs; r++)
		if (plot_gather_run(pl, r, src_log, src_status))
			return -1;
	set_sources(pl, src_log, src_status);
	if (pl->two_sides) {
		mem = open_memstream(&pl->cmp_text, &pl->cmp_text_len);
		if (!mem)
			return plot_oom(pl);
		pl->nr_regressions = cmp_report(mem, pl->cmps, pl->nr_base,
						pl->cmps + pl->nr_base,
						pl->nr_runs - pl->nr_base,
						pl->threshold, pl->err,
						sizeof(pl->err));
		if (fclose(mem) && pl->nr_regressions >= 0)
			return plot_oom(pl);
		if (pl->nr_regressions < 0)
			return -1;
	}

	if (!plot_in_path("gnuplot")) {
		plot_set_err(pl,
			     "gnuplot not found in PATH (Debian: apt install "
			     "gnuplot-nox)");
		return -1;
	}
	n = snprintf(pl->tmpdir, sizeof(pl->tmpdir), "%s/mqblk-plot.XXXXXX",
		     tmpbase && *tmpbase ? tmpbase : "/tmp");
	if (n < 0 || (size_t)n >= sizeof(pl->tmpdir) || !mkdtemp(pl->tmpdir)) {
		plot_set_err(pl, "cannot make a temporary directory: %s",
			     strerror(errno));
		pl->tmpdir[0] = 0;
		return -1;
	}
	if (plot_draw(pl))
		return -1;
	for (c = CH_IOPS; c <= CH_HIST; c++)
		pl->ch[c].drawn = pl->ch[c].nr > 0;

	n = snprintf(tmp_out, sizeof(tmp_out), "%s.tmp", pl->out_path);
	if (n < 0 || (size_t)n >= sizeof(tmp_out)) {
		plot_set_err(pl, "%s: name too long", pl->out_path);
		return -1;
	}
	f = fopen(tmp_out, "w");
	if (!f) {
		plot_set_err(pl, "cannot write %s: %s", tmp_out,
			     strerror(errno));
		return -1;
	}
	if (plot_write_page(pl, f)) {
		fclose(f);
		unlink(tmp_out);
		return -1;
	}
	if (ferror(f) | fclose(f)) {
		plot_set_err(pl, "writing %s failed", tmp_out);
		unlink(tmp_out);
		return -1;
	}
	if (rename(tmp_out, pl->out_path)) {
		plot_set_err(pl, "cannot rename %s to %s: %s", tmp_out,
			     pl->out_path, strerror(errno));
		unlink(tmp_out);
		return -1;
	}
	return 0;
}

int plot_cmd(int argc, char **argv)
{
	struct plot pl = { .threshold = -1, .out_path = "mqblk-plot.html" };
	char *pos[2] = { NULL, NULL };
	const char *tval = NULL;
	int i, nr_pos = 0, ret = 1, c;
	size_t s, r;
	bool opts_done = false;

	for (i = 1; i < argc; i++) {
		char *a = argv[i];

		if (!opts_done && (!strcmp(a, "-h") || !strcmp(a, "--help"))) {
			plot_usage(stdout);
			return 0;
		}
		if (!opts_done && !strcmp(a, "--")) {
			opts_done = true;
		} else if (!opts_done &&
			   (!strcmp(a, "-o") || !strcmp(a, "--output") ||
			    !strcmp(a, "--title") ||
			    !strcmp(a, "--threshold") ||
			    !strcmp(a, "--log-dir"))) {
			if (i + 1 >= argc) {
				fprintf(stderr,
					"mqblk plot: %s needs a value\n", a);
				return 1;
			}
			if (!strcmp(a, "--title"))
				pl.title = argv[++i];
			else if (!strcmp(a, "--threshold"))
				tval = argv[++i];
			else if (!strcmp(a, "--log-dir"))
				pl.log_dir = argv[++i];
			else
				pl.out_path = argv[++i];
		} else if (!opts_done && !strncmp(a, "--output=", 9)) {
			pl.out_path = a + 9;
		} else if (!opts_done && !strncmp(a, "--title=", 8)) {
			pl.title = a + 8;
		} else if (!opts_done && !strncmp(a, "--threshold=", 12)) {
			tval = a + 12;
		} else if (!opts_done && !strncmp(a, "--log-dir=", 10)) {
			pl.log_dir = a + 10;
		} else if (!opts_done && a[0] == '-' && a[1]) {
			fprintf(stderr,
				"mqblk plot: unknown option '%s' (try mqblk "
				"plot --help)\n",
				a);
			return 1;
		} else if (nr_pos < 2) {
			pos[nr_pos++] = a;
		} else {
			fprintf(stderr,
				"mqblk plot: one more argument than BASE and "
				"NEW: '%s' (several runs of a side: "
				"A.json,B.json)\n",
				a);
			return 1;
		}
	}
	if (tval && cmp_parse_threshold(tval, &pl.threshold)) {
		fprintf(stderr,
			"mqblk plot: bad --threshold '%s' (want a percentage "
			"like 5%% or 5)\n",
			tval);
		return 1;
	}
	if (!nr_pos) {
		fprintf(stderr, "mqblk plot: want RUN.json[,...] "
				"[NEW.json[,...]] (try mqblk plot --help)\n");
		return 1;
	}
	/* with one side there is no compare for it to act on: refused, not
	 * dropped without a word */
	if (tval && nr_pos < 2) {
		fprintf(stderr,
			"mqblk plot: --threshold needs two sides, BASE and "
			"NEW (one given: nothing to compare)\n");
		return 1;
	}
	if (!*pl.out_path) {
		fprintf(stderr, "mqblk plot: -o needs a file name\n");
		return 1;
	}
	if (pl.log_dir) {
		struct stat st;

		if (stat(pl.log_dir, &st)) {
			fprintf(stderr, "mqblk plot: --log-dir %s: %s\n",
				pl.log_dir, strerror(errno));
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			fprintf(stderr,
				"mqblk plot: --log-dir %s: not a directory\n",
				pl.log_dir);
			return 1;
		}
	}
	if (load_side(&pl, pos[0]))
		goto out;
	pl.nr_base = pl.nr_runs;
	if (nr_pos == 2) {
		pl.two_sides = true;
		if (load_side(&pl, pos[1]))
			goto out;
	}
	if (!pl.title)
		pl.title = pl.two_sides ? "mqblk plot: base against new" :
					  "mqblk plot";
	if (make_page(&pl))
		goto out;
	printf("%s\n", pl.out_path);
	ret = 0;

out:
	if (ret)
		fprintf(stderr, "mqblk plot: %s\n", pl.err);
	rm_tmpdir(&pl);
	for (r = 0; r < pl.nr_runs; r++) {
		plot_free_run(&pl.runs[r]);
		cmp_run_free(&pl.cmps[r]);
	}
	free(pl.runs);
	free(pl.cmps);
	for (c = 0; c < CH_NR; c++) {
		for (s = 0; s < pl.ch[c].nr; s++)
			free(pl.ch[c].s[s].p);
		free(pl.ch[c].s);
	}
	free(pl.cmp_text);
	return ret;
}
