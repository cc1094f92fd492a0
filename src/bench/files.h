/* SPDX-License-Identifier: MIT */
/*
 * Files as fio makes them: the names a job's clones use, laying them out
 * before the timed phase, and removing them (--unlink) after.
 */
#ifndef MQBLK_BENCH_FILES_H
#define MQBLK_BENCH_FILES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bench.h"

/* One file the run may create. */
struct bench_file {
	char *path; /* the file, no URI keys */
	uint64_t size; /* bytes it must hold */
	unsigned job_idx;
	unsigned clone; /* of the job: fio's message counts a clone's files */
	bool data; /* written through (a job that reads), else allocated */
	bool create; /* does not exist, or too small: to lay out */
	bool created; /* this run made it */
	bool laid_out; /* laid out (fio's message printed for it) */
};

struct bench_files {
	struct bench_file *f;
	unsigned nr;
};

/*
 * The device URI of file `file` (< nrfiles) of clone `clone` of job: its
 * filename, or for TARGET_JOBFILES fio's DIR/NAME.CLONE.FILE with the
 * same URI keys. NULL when it does not fit in len.
 */
const char *bench_file_uri(const struct bench_job *job, unsigned clone,
			   unsigned file, char *buf, size_t len);

static inline const char *bench_clone_uri(const struct bench_job *job,
					  unsigned clone, char *buf, size_t len)
{
	return bench_file_uri(job, clone, 0, buf, len);
}

/*
 * The size of fio's jobname file `file` of clone `clone`: --filesize, or
 * with fio's filesize=LOW-HIGH a size drawn in [LOW, HIGH] aligned down to
 * the smallest block size (fio's get_rand_file_size), the same for the
 * same job, clone, file and --randseed on every run.
 */
uint64_t bench_file_size(const struct bench_job *job, unsigned clone,
			 unsigned file);

/*
 * The size fio's jobname file `file` of clone `clone` has for the run:
 * bench_file_size, or with size=N% and no --filesize the size the file
 * has on disk (fio's real_file_size; 0 when it has none).
 */
uint64_t bench_file_real_size(const struct bench_job *job, unsigned clone,
			      unsigned file);

/*
 * fio's io_size of that file: what it holds past start (the clone's
 * offset), or with size=N% that share of the whole file, at most what
 * lies past start, aligned down to the smallest block size. 0: nothing.
 */
uint64_t bench_file_io_size(const struct bench_job *job, unsigned clone,
			    unsigned file, uint64_t start);

/*
 * Before any output: find the files the jobs need, check they fit, and
 * lay out those that do not exist yet (or, fio's own jobname files, are
 * too small). A failure is one line on stderr, returns -1, and leaves no
 * file this call created.
 */
int bench_files_prepare(const struct bench_job *jobs, unsigned nr,
			struct bench_files *bf);

/* fio's "NAME: Laying out IO file (1 file / 1MiB)" for each file laid out
 * of jobs [first, last). */
void bench_files_print_layout(FILE *f, const struct bench_files *bf,
			      const struct bench_job *jobs, unsigned first,
			      unsigned last);

/* Remove the files of jobs with --unlink (all = every file this run
 * created, after a failure). */
void bench_files_unlink(const struct bench_files *bf,
			const struct bench_job *jobs, bool all);

void bench_files_free(struct bench_files *bf);

/* fio's invalidate: drop the page cache of the file a path URI names, so
 * a buffered job reads the device, not memory. 0 or -errno. */
int bench_file_invalidate(const char *uri);

#endif
