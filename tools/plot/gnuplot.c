// SPDX-License-Identifier: MIT
/*
 * mqblk plot: each chart's gnuplot script and data files, run as a child
 * in the temporary directory, SVG out.
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

/* The compare chart's bars: one per row with a change. */
struct bar_ctx {
	FILE *f;
	unsigned nr;
};

/* Bar colours: a regression past the threshold, worse, better (both
 * beyond noise or from a single run), noise. */
#define COL_REGRESSION 0xb2182b
#define COL_WORSE 0xef8a62
#define COL_BETTER 0x1a9850
#define COL_NOISE 0xaaaaaa

static int bar_row(const struct cmp_row *row, void *arg)
{
	struct bar_ctx *bx = arg;
	bool higher_better = row->metric == CMP_IOPS || row->metric == CMP_BW;
	bool worse = higher_better ? row->pct < 0 : row->pct > 0;
	char label[LABEL_MAX];
	unsigned col;

	if (!row->have_pct)
		return 0;
	col = row->regression	? COL_REGRESSION :
	      !row->significant ? COL_NOISE :
	      worse		? COL_WORSE :
				  COL_BETTER;
	if (row->job->ordinal)
		snprintf(label, sizeof(label), "%s#%u %s %s", row->job->name,
			 row->job->ordinal + 1, cmp_dir_name(row->dir),
			 cmp_metric_key(row->metric));
	else
		snprintf(label, sizeof(label), "%s %s %s", row->job->name,
			 cmp_dir_name(row->dir), cmp_metric_key(row->metric));
	plot_clean_label(label);
	fprintf(bx->f, "%u %.9g %u \"%s\"\n", bx->nr++, row->pct, col, label);
	return 0;
}

/* ---- gnuplot ---- */

static int write_series(struct plot *pl, const struct series *s, char *path,
			size_t len)
{
	FILE *f;
	size_t i;

	snprintf(path, len, "%s/d%u.dat", pl->tmpdir, pl->nr_files++);
	f = fopen(path, "w");
	if (!f) {
		plot_set_err(pl, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (i = 0; i < s->nr; i++)
		fprintf(f, "%.9g %.9g\n", s->p[i].x, s->p[i].y);
	if (ferror(f) | fclose(f)) {
		plot_set_err(pl, "%s: write error", path);
		return -1;
	}
	return 0;
}

/* s as a gnuplot single-quoted string ('' is a quote in one) */
static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

static void gp_begin(struct plot *pl, FILE *f, enum chart ch)
{
	char out[PATH_MAX + 32];

	snprintf(out, sizeof(out), "%s/%s.svg", pl->tmpdir, plot_chart_id[ch]);
	/* no title: the page's heading above the chart is its title */
	fputs("reset\nset output ", f);
	gp_str(f, out);
	fputs("\nset grid\nset border 3\nset xtics nomirror\n"
	      "set ytics nomirror\nset key below\n",
	      f);
}

/* A chart of lines over time (or latency, for the histogram). */
static int gp_lines(struct plot *pl, FILE *f, enum chart ch)
{
	static const char *const ylabel[CH_NR] = {
		"IOPS", "MiB/s", "completion latency (us)", "% of I/Os", "",
	};
	struct chart_data *cd = &pl->ch[ch];
	char path[PATH_MAX + 32];
	size_t i;

	gp_begin(pl, f, ch);
	if (ch == CH_HIST)
		fputs("set logscale x\nset xlabel 'completion latency (us)'\n"
		      "set format x '%g'\n",
		      f);
	else
		fputs("set xlabel 'time (s)'\nset yrange [0:*]\n", f);
	if (ch == CH_IOPS || ch == CH_BW)
		fputs("set format y '%.1s%c'\n", f);
	fputs("set ylabel ", f);
	gp_str(f, ylabel[ch]);
	fputs("\nplot ", f);
	for (i = 0; i < cd->nr; i++) {
		const struct series *s = &cd->s[i];

		if (write_series(pl, s, path, sizeof(path)))
			return -1;
		if (i)
			fputs(", \\\n  ", f);
		gp_str(f, path);
		fprintf(f, " using 1:2 with %s lw 1.5 dt %u title ",
			ch == CH_HIST ? "steps" : "lines", s->run_idx % 5 + 1);
		gp_str(f, s->label);
	}
	fputs("\nunset output\n", f);
	return 0;
}

static int gp_compare(struct plot *pl, FILE *f)
{
	struct bar_ctx bx = { NULL, 0 };
	char path[PATH_MAX + 32], title[128];
	int ret;

	snprintf(path, sizeof(path), "%s/d%u.dat", pl->tmpdir, pl->nr_files++);
	bx.f = fopen(path, "w");
	if (!bx.f) {
		plot_set_err(pl, "%s: %s", path, strerror(errno));
		return -1;
	}
	ret = cmp_rows(pl->cmps, pl->nr_base, pl->cmps + pl->nr_base,
		       pl->nr_runs - pl->nr_base, pl->threshold, bar_row, &bx,
		       pl->err, sizeof(pl->err));
	if (ferror(bx.f) | fclose(bx.f)) {
		plot_set_err(pl, "%s: write error", path);
		return -1;
	}
	if (ret < 0)
		return -1;
	if (!bx.nr)
		return 0;
	gp_begin(pl, f, CH_CMP);
	fprintf(f,
		"set style fill solid 0.85 border -1\nset boxwidth 0.7\n"
		"set xrange [-0.5:%u.5]\nset xtics rotate by -40 font ',9'\n"
		"set xzeroaxis lt -1\nset ylabel 'change, new against base "
		"(%%)'\nunset xlabel\n",
		bx.nr - 1);
	if (pl->nr_base >= 2 && pl->nr_runs - pl->nr_base >= 2)
		snprintf(title, sizeof(title),
			 "change per metric; noise: Welch's t-test, 95 %%");
	else
		snprintf(title, sizeof(title),
			 "change per metric (1 run a side: not tested "
			 "against noise)");
	fputs("set title ", f);
	gp_str(f, title);
	fputs("\nplot ", f);
	gp_str(f, path);
	fprintf(f,
		" using 1:2:3:xtic(4) with boxes lc rgb variable notitle, \\\n"
		"  NaN with boxes lc rgb '#%06x' title 'regression (past the "
		"threshold)', \\\n"
		"  NaN with boxes lc rgb '#%06x' title 'worse', \\\n"
		"  NaN with boxes lc rgb '#%06x' title 'better', \\\n"
		"  NaN with boxes lc rgb '#%06x' title 'noise'\n"
		"unset output\n",
		COL_REGRESSION, COL_WORSE, COL_BETTER, COL_NOISE);
	pl->ch[CH_CMP].drawn = true;
	return 0;
}

/* Is there an executable name in one of PATH's directories? */
bool plot_in_path(const char *name)
{
	const char *p = getenv("PATH"), *colon;
	char buf[PATH_MAX];
	int n;

	if (!p || !*p)
		return false;
	for (;;) {
		colon = strchr(p, ':');
		n = snprintf(buf, sizeof(buf), "%.*s/%s",
			     (int)(colon ? (size_t)(colon - p) : strlen(p)), p,
			     name);
		if (n > 0 && (size_t)n < sizeof(buf) && !access(buf, X_OK))
			return true;
		if (!colon)
			return false;
		p = colon + 1;
	}
}

static int run_gnuplot(struct plot *pl, const char *script)
{
	char errpath[PATH_MAX + 32], line[256] = "";
	int status, fd;
	pid_t pid;
	FILE *f;

	snprintf(errpath, sizeof(errpath), "%s/gnuplot.err", pl->tmpdir);
	fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		plot_set_err(pl, "%s: %s", errpath, strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		close(fd);
		plot_set_err(pl, "fork: %s", strerror(errno));
		return -1;
	}
	if (!pid) {
		int in = open("/dev/null", O_RDONLY);

		if (in < 0 || dup2(in, 0) < 0 || dup2(fd, 1) < 0 ||
		    dup2(fd, 2) < 0)
			_exit(126);
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	close(fd);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			plot_set_err(pl, "waitpid: %s", strerror(errno));
			return -1;
		}
	}
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	/* its first line that says something */
	f = fopen(errpath, "r");
	while (f && fgets(line, sizeof(line), f))
		if (line[strspn(line, " \t\r\n^")])
			break;
	if (f)
		fclose(f);
	line[strcspn(line, "\r\n")] = 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		plot_set_err(pl,
			     "gnuplot could not be run (Debian: apt install "
			     "gnuplot-nox)");
	else
		plot_set_err(pl, "gnuplot failed (%s %d): %s",
			     WIFEXITED(status) ? "status" : "signal",
			     WIFEXITED(status) ? WEXITSTATUS(status) :
						 WTERMSIG(status),
			     line[0] ? line : "(no message)");
	return -1;
}

int plot_draw(struct plot *pl)
{
	char script[PATH_MAX + 32];
	FILE *f;
	int c, ret = 0;

	snprintf(script, sizeof(script), "%s/plot.gp", pl->tmpdir);
	f = fopen(script, "w");
	if (!f) {
		plot_set_err(pl, "%s: %s", script, strerror(errno));
		return -1;
	}
	/* noenhanced: job names are text, not gnuplot markup */
	fputs("set terminal svg size 960,460 dynamic noenhanced "
	      "font 'Sans,11' background rgb 'white'\n",
	      f);
	for (c = CH_IOPS; c <= CH_HIST && !ret; c++)
		if (pl->ch[c].nr)
			ret = gp_lines(pl, f, (enum chart)c);
	if (!ret && pl->two_sides)
		ret = gp_compare(pl, f);
	if (ferror(f) | fclose(f)) {
		if (!ret)
			plot_set_err(pl, "%s: write error", script);
		return -1;
	}
	if (ret)
		return -1;
	return run_gnuplot(pl, script);
}
