/* SPDX-License-Identifier: MIT */
/*
 * Private to the `mqblk bench` option files: the table of a job's options
 * and bench_job_set (options.c), the values that need more than the
 * table's types (options_set.c, which hands rw= and the block sizes to
 * options_bs.c and random_distribution= to options_dist.c), and the command line (options_cli.c), which completes
 * and reads names off the table. A job's fixup (options_fixup.c) needs
 * none of this. The calls go down that list only.
 */
#ifndef MQBLK_BENCH_OPTIONS_INT_H
#define MQBLK_BENCH_OPTIONS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench.h"

enum opt_type {
	OT_STR, /* char * */
	OT_U32, /* unsigned, [min, max] */
	OT_U64, /* uint64_t, [min, max] */
	OT_SIZE, /* uint64_t bytes, fio size suffixes */
	OT_TIME, /* uint64_t ns, bare number = seconds */
	OT_BOOL, /* bool; bare key = true */
	OT_SPECIAL,
};

struct opt {
	const char *name;
	enum opt_type type;
	size_t off;
	uint64_t min, max;
};

/* options.c: every job option, by name */
extern const struct opt opt_table[];
extern const size_t opt_table_len;
/* options.c: the table's entry for key, NULL if none */
const struct opt *opt_find(const char *key);
/* options.c: fio's log options, which may stand bare (the job's name) */
bool opt_is_log(const char *key);

/* options_set.c: an OT_SPECIAL option's value (val NULL: it stood bare) */
int opt_set_special(struct bench_job *job, const struct opt *o, const char *val,
		    char *err, size_t errlen);

/* options_bs.c: rw= (and readwrite=), bs=, bsrange= and bssplit= */
int opt_set_rw(struct bench_job *job, const char *val, char *err,
	       size_t errlen);
int opt_set_bs(struct bench_job *job, const char *val, char *err,
	       size_t errlen);
int opt_set_bsrange(struct bench_job *job, const char *key, const char *val,
		    char *err, size_t errlen);
int opt_set_bssplit(struct bench_job *job, const char *val, char *err,
		    size_t errlen);
/* options_bs.c: fio's R[,W[,T]] lists per direction into f */
int opt_split_ddirs(const char *opt, const char *val, char f[3][1024],
		    char *err, size_t errlen);

/* options_dist.c: random_distribution= */
int opt_set_random_distribution(struct bench_job *job, const char *val,
				char *err, size_t errlen);

#endif
