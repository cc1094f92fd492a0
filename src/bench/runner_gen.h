/* SPDX-License-Identifier: MIT */
/*
 * Private to the job thread's files: its I/O units and I/O generator
 * state. runner.c runs the submit/reap loop and generates the I/O;
 * runner_buf.c fills write buffers made to compress or repeat;
 * runner_xlog.c keeps the verify log of writes whose lengths vary;
 * runner_multi.c serves a job over several files (nrfiles > 1);
 * runner_err.c handles failed I/O, verify mismatches and stuck devices.
 * The calls go down that list only.
 */
#ifndef MQBLK_BENCH_RUNNER_GEN_H
#define MQBLK_BENCH_RUNNER_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include <mqblk/mqblk.h>

#include "bench.h"
#include "dist.h"
#include "rand.h"
#include "runner_int.h"
#include "verify.h"

/* One I/O unit: a buffer and the bookkeeping of the request using it. */
struct io_u {
	void *buf;
	uint64_t slat_ns;
	uint64_t issue_ns;
	enum bench_ddir ddir;
	uint32_t len;
	uint64_t off;
	bool verify; /* a read whose data is checked on completion */
	bool sync; /* a flush: fio's DDIR_SYNC */
	uint16_t file; /* nrfiles > 1: the file it went to */
	struct io_u *next_free;
};

/* Per-thread I/O generator state. */
struct gen {
	const struct bench_job *job;
	struct bench_rng rng;
	struct bench_randmap map[DDIR_NR];
	bool use_map;
	bool use_dist; /* --random_distribution other than random */
	uint64_t region_start, region_len;
	uint64_t pass_len; /* region_len, or fio's io_size */
	uint64_t seq_pos[DDIR_NR]; /* fio's last_pos: where the last I/O ended */
	uint64_t bytes_issued; /* this pass, for non-time_based jobs */
	/* apart: side by side, gcc adds the two in one SSE register at
	 * the end of gen_next, 3 instructions more per I/O */
	unsigned loops_left;
	uint64_t ios_issued;

	/* what comes after the job's own I/O: flushes and verification */
	enum gen_phase {
		PH_MAIN, /* the workload (with --fsync flushes) */
		/* PH_MAIN with fio's rw=...:N offsets: a job has one or the
		 * other (main_phase), so jobs without a modifier run code
		 * with no test for one, at no cost: the phase is switched
		 * on anyway */
		PH_MAIN_SEQMOD,
		/* PH_MAIN over nrfiles > 1: the file first (main_next_multi),
		 * so one-file jobs test nothing for it */
		PH_MAIN_MULTI,
		PH_BACKLOG, /* --verify_backlog: verify the last N writes */
		PH_END_FSYNC, /* --end_fsync */
		PH_VERIFY, /* the read-back pass over what was written */
		PH_DONE,
	} phase;
	enum gen_phase main_phase; /* PH_MAIN, or PH_MAIN_SEQMOD */
	bool main_done; /* the workload has issued all it will */
	bool stop_main; /* runtime is up: end the workload */
	bool terminated; /* SIGINT/SIGTERM: drain and skip what follows */
	unsigned held_failed; /* given up at the end (job_reap_idle) */
	bool sync_due; /* --fsync: a flush goes next */
	unsigned fsync_n; /* flush after this many writes; 0 = never */
	unsigned writes_since_sync;
	/* --verify: written blocks of vbs bytes, set until verified */
	bool track;
	uint64_t vbs;
	uint64_t *wmap;
	uint64_t wmap_words;
	uint64_t vcursor; /* PH_VERIFY: next word to look at */
	/* nrfiles > 1: the served file's start in the space the verify
	 * maps cover, where each file's blocks follow the last file's
	 * (gfile.vbase); 0 with one file */
	uint64_t vbase;
	uint64_t *backlog; /* block numbers written since the last backlog */
	uint64_t backlog_nr, backlog_pos;
	bool use_backlog;
	/* fio's bsrange_state: one generator per size slot */
	struct bench_rng bsrng[DDIR_NR];
	/*
	 * --verify with write lengths that vary: fio's io_piece log. Every
	 * write is logged as an extent; before a read-back the log is
	 * resolved (an extent a later write overlaps is dropped, as fio's
	 * rb-tree drops it) and sorted by offset; the read-back reads exactly
	 * the extents left. xcover: one bit per granule (the gcd of the
	 * write sizes) for that resolution.
	 */
	bool xlog_mode;
	struct wext *xlog;
	uint64_t xnr, xcap;
	uint64_t *xcover;
	uint64_t gran;
	uint64_t nr_gran;
	int err; /* set when the generator cannot go on (ENOMEM) */
	int forced_ddir; /* rate control chose the next direction; -1 */
	unsigned seq_nr_left; /* rw=randread:N: sequential I/Os to go */
	struct bench_dist dist[DDIR_NR]; /* the laws, when use_dist */
	/*
	 * fio's nrfiles > 1: a device and a queue per file, and the state
	 * above that is a file's own (its region, positions, maps, laws)
	 * kept in files[] for the files not being served; gen_file_next
	 * swaps it as --file_service_type moves on. NULL with one file:
	 * the I/O path then tests one pointer per I/O.
	 */
	/* compressible / dedupable write content (gen_fill_content) */
	struct bench_rng buf_state, buf_prev, dedupe_rng;
	bool buf_prev_set;
	struct gfile *files;
	unsigned nr_files; /* 1 with one file */
	unsigned cur_file;
	unsigned svc_left; /* I/Os before the service moves on */
	uint64_t file_mark; /* bytes_issued when cur_file was last served */
	unsigned end_synced; /* --end_fsync: files flushed */
	unsigned reap_rot; /* the queue a multi-file reap looks at first */
	int epfd; /* the queues' fds, to wait on all of them */
	bool spin; /* a queue with no fd (polled): reaps spin */
};

/* One file of a job over several (fio's nrfiles). */
struct gfile {
	struct mqblk_queue *q;
	uint64_t region_len;
	uint64_t seq_pos[DDIR_NR];
	uint64_t done; /* bytes issued to it this pass */
	struct bench_randmap map[DDIR_NR];
	struct bench_dist dist[DDIR_NR];
	unsigned seq_nr_left;
	uint64_t vbase; /* where its blocks start in the verify maps */
};

struct wext {
	uint64_t off; /* from region_start */
	uint64_t len;
};

/* One thing for the job thread to issue. */
struct next_io {
	uint64_t off;
	enum bench_ddir d;
	uint32_t len;
	/* nrfiles > 1: which file's queue (in the padding: the struct is
	 * cleared for every I/O, so it stays 24 bytes) */
	uint16_t file;
	bool verify; /* check the data read */
	bool stamp; /* write verify headers into the buffer */
	bool sync; /* a flush */
};

enum { NEXT_IO, NEXT_WAIT, NEXT_DONE };

/* runner_buf.c: a write buffer's content with buffer_compress_percentage
 * or dedupe_percentage */
void gen_fill_content(struct gen *g, unsigned char *buf, uint64_t len);

/* runner_xlog.c: the verify log (gen.xlog_mode) */
void xlog_resolve(struct gen *g);
int xext_cmp(const void *a, const void *b);
int xlog_add(struct gen *g, uint64_t off, uint64_t len);
void xlog_read(struct gen *g, const struct wext *x, struct next_io *n);

/* runner_multi.c: nrfiles > 1 */
__attribute__((cold)) uint64_t multi_file_of(const struct gen *g, uint64_t pos,
					     struct next_io *n);
__attribute__((cold)) void gen_file_next(struct gen *g, struct next_io *n);
int multi_reap(struct gen *g, struct mqblk_rq **rqs, unsigned min, unsigned max,
	       int64_t timeout_ns);
__attribute__((cold)) int multi_init(struct job_thread *jt, struct gen *g);
__attribute__((cold)) int multi_laws(struct job_thread *jt, struct gen *g);
__attribute__((cold)) void gen_law_init(const struct bench_job *job,
					struct bench_dist *dist,
					enum bench_ddir d, uint64_t nranges,
					struct bench_rng *rng);
__attribute__((cold)) int multi_open(struct job_thread *jt, struct gen *g);
__attribute__((cold)) uint64_t multi_verify(struct job_thread *jt,
					    struct gen *g,
					    const struct verify_ctx *vc,
					    struct verify_ctx **vcs);

/* runner_err.c: failed I/O, verify mismatches, stuck devices */
bool job_check_read(struct job_thread *jt, const struct verify_ctx *vc,
		    const struct io_u *u);
__attribute__((cold)) bool job_io_error(struct job_thread *jt,
					const struct mqblk_rq *rq);
__attribute__((cold)) uint64_t job_reap_idle(struct gen *g,
					     struct mqblk_queue *q);
__attribute__((cold)) struct bench_dev *job_stuck_give_up(struct job_thread *jt,
							  const struct gen *g,
							  uint64_t *since,
							  uint64_t now);
void job_stuck_keep(void *a, void *b, struct mqblk_dev *dev);

#endif
