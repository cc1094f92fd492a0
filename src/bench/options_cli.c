// SPDX-License-Identifier: MIT
/*
 * The `mqblk bench` command line: fio's layout (options before the first
 * --name are global, --name starts a job, a bare argument is a job file),
 * the options of the whole run (--output-format, --eta, ...), names cut
 * short as getopt_long_only allows, and --help (bench_usage).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "options_int.h"

static char *join_args(int argc, char **argv)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = 0;
	for (i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

static int set_output_format(struct bench_config *cfg, const char *val,
			     char *err, size_t errlen)
{
	char buf[128], *tok, *save = NULL;
	unsigned mask = 0;

	if (strlen(val) >= sizeof(buf))
		return bench_err(err, errlen,
				 "output-format '%.32s...' too long", val);
	strcpy(buf, val);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "normal"))
			mask |= OUTPUT_NORMAL;
		else if (!strcmp(tok, "json"))
			mask |= OUTPUT_JSON;
		else if (!strcmp(tok, "json+"))
			mask |= OUTPUT_JSONPLUS;
		else if (!strcmp(tok, "terse"))
			mask |= OUTPUT_TERSE;
		else
			return bench_err(
				err, errlen,
				"unknown output-format '%s' (normal, json, "
				"json+, terse)",
				tok);
	}
	if (!mask)
		return bench_err(err, errlen, "empty output-format");
	/* fio: json+ includes json; printing both would repeat it */
	if (mask & OUTPUT_JSONPLUS)
		mask &= ~OUTPUT_JSON;
	cfg->output_format = mask;
	return 0;
}

/* Options of the whole run, not of a job, and whether each takes a value. */
static const struct global_opt {
	const char *name;
	bool value;
} global_opts[] = {
	{ "output-format", true },
	{ "output", true },
	{ "eta", true },
	{ "help", false },
	{ "h", false },
	{ "version", false },
	{ "minimal", false },
	{ "terse-version", true },
	{ "status-interval", true },
	{ "eta-newline", true },
	{ "eta-interval", true },
};

static const struct global_opt *find_global(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(global_opts) / sizeof(global_opts[0]); i++)
		if (!strcmp(global_opts[i].name, key))
			return &global_opts[i];
	return NULL;
}

/* Set a global option. 1 = not one of these. */
static int set_global(struct bench_config *cfg, const char *key,
		      const char *val, char *err, size_t errlen)
{
	const struct global_opt *g = find_global(key);

	if (!g)
		return 1;
	if (!strcmp(key, "help") || !strcmp(key, "h")) {
		cfg->help = true;
		return 0;
	}
	if (!strcmp(key, "version")) {
		cfg->version = true;
		return 0;
	}
	if (!strcmp(key, "minimal")) {
		/* fio: the same as --output-format=terse */
		cfg->output_format = OUTPUT_TERSE;
		return 0;
	}
	if (!val || !*val)
		return bench_err(err, errlen, "option '%s' needs a value", key);
	if (!strcmp(key, "terse-version")) {
		char buf[128];
		uint64_t v;

		if (bench_parse_uint(val, 2, 5, &v, buf, sizeof(buf)))
			return bench_err(err, errlen,
					 "bad terse version format '%s' (2, "
					 "3, 4 or 5)",
					 val);
		cfg->terse_version = (unsigned)v;
		return 0;
	}
	if (!strcmp(key, "status-interval") || !strcmp(key, "eta-newline") ||
	    !strcmp(key, "eta-interval")) {
		char buf[128];
		uint64_t ns;

		if (bench_parse_time(val, &ns, buf, sizeof(buf)))
			return bench_err(err, errlen, "%s: %s", key, buf);
		if (!ns)
			return bench_err(err, errlen, "%s=%s: must be above 0",
					 key, val);
		if (!strcmp(key, "status-interval")) {
			cfg->status_interval_ns = ns;
		} else if (!strcmp(key, "eta-newline")) {
			cfg->eta_newline_set = true;
			cfg->eta_newline_ns = ns;
		} else {
			cfg->eta_interval_ns = ns;
		}
		return 0;
	}
	if (!strcmp(key, "output-format"))
		return set_output_format(cfg, val, err, errlen);
	if (!strcmp(key, "output")) {
		free(cfg->output);
		cfg->output = strdup(val);
		return cfg->output ? 0 :
				     bench_err(err, errlen, "out of memory");
	}
	if (!strcmp(val, "auto"))
		cfg->eta = ETA_AUTO;
	else if (!strcmp(val, "always"))
		cfg->eta = ETA_ALWAYS;
	else if (!strcmp(val, "never"))
		cfg->eta = ETA_NEVER;
	else
		return bench_err(err, errlen,
				 "unknown eta '%s' (auto, always, never)", val);
	return 0;
}

/*
 * fio parses its command line with getopt_long_only, so an option (a
 * job's or the run's) may be cut short while what is left names one only
 * (--group_report is --group_reporting); an exact name always wins.
 * Job files take whole names only, as fio's do. key is rewritten to the
 * whole name; -1 with a message when the prefix names several.
 */
static int complete_key(char *key, size_t size, char *err, size_t errlen)
{
	const size_t nr_job_opts = opt_table_len;
	const size_t nr_globals = sizeof(global_opts) / sizeof(global_opts[0]);
	const char *hit = NULL;
	char also[128] = "";
	size_t i, len = strlen(key), n = 0;

	if (opt_find(key) || find_global(key))
		return 0;
	for (i = 0; i < nr_job_opts + nr_globals; i++) {
		const char *name = i < nr_job_opts ?
					   opt_table[i].name :
					   global_opts[i - nr_job_opts].name;

		if (strncmp(name, key, len))
			continue;
		if (n++)
			snprintf(also + strlen(also),
				 sizeof(also) - strlen(also), "%s%s",
				 strlen(also) ? ", " : "", name);
		else
			hit = name;
	}
	if (n > 1)
		return bench_err(err, errlen,
				 "option '--%s' is ambiguous: %s, %s", key, hit,
				 also);
	if (n == 1 && strlen(hit) < size)
		strcpy(key, hit);
	return 0;
}

/* Does this option take a value (so "--key value" may use the next arg)? */
static bool takes_value(const char *key)
{
	const struct opt *o = opt_find(key);
	const struct global_opt *g;

	if (o)
		return o->type != OT_BOOL && strcmp(key, "fixedbufs") &&
		       strcmp(key, "buffered") && !opt_is_log(key) &&
		       strcmp(key, "bs_unaligned") &&
		       strcmp(key, "blocksize_unaligned");
	g = find_global(key);
	return g && g->value;
}

int bench_parse_args(int argc, char **argv, struct bench_config *cfg, char *err,
		     size_t errlen)
{
	struct bench_job global, cur;
	bool in_job = false;
	const char **files;
	int i, nr_files = 0, ret = -1;

	memset(cfg, 0, sizeof(*cfg));
	cfg->output_format = OUTPUT_NORMAL;
	cfg->eta = ETA_AUTO;
	cfg->terse_version = 3;
	cfg->eta_interval_ns = 1000000000ull;
	bench_job_defaults(&global);
	bench_job_defaults(&cur);
	cfg->cmdline = join_args(argc, argv);
	files = calloc((size_t)argc, sizeof(*files));
	if (!cfg->cmdline || !files) {
		free(files);
		return bench_err(err, errlen, "out of memory");
	}

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *val;
		char key[64], msg[256];
		size_t klen;
		int r;

		if (arg[0] != '-' || !arg[1]) {
			/* a job file: read once the whole command line is,
			 * as fio does, so every command-line global (before
			 * or after it) is a default of its jobs */
			files[nr_files++] = arg;
			continue;
		}
		arg += arg[1] == '-' ? 2 : 1;
		val = strchr(arg, '=');
		klen = val ? (size_t)(val - arg) : strlen(arg);
		if (!klen || klen >= sizeof(key)) {
			bench_err(err, errlen, "bad option '%s'", argv[i]);
			goto out;
		}
		memcpy(key, arg, klen);
		key[klen] = 0;
		if (complete_key(key, sizeof(key), err, errlen))
			goto out;
		if (val)
			val++;
		else if (takes_value(key) && i + 1 < argc)
			val = argv[++i];

		r = set_global(cfg, key, val, err, errlen);
		if (r < 0)
			goto out;
		if (r == 0)
			continue;
		if (!strcmp(key, "name")) {
			if (in_job) {
				if (bench_config_add_job(cfg, &cur, err,
							 errlen))
					goto out;
				bench_job_free(&cur);
			}
			if (bench_job_copy(&cur, &global)) {
				bench_err(err, errlen, "out of memory");
				goto out;
			}
			in_job = true;
		}
		r = bench_job_set(in_job ? &cur : &global, key, val, msg,
				  sizeof(msg));
		if (r == BENCH_OPT_UNKNOWN) {
			bench_err(
				err, errlen,
				"unknown option '--%s' (see mqblk bench --help)",
				key);
			goto out;
		}
		if (r) {
			bench_err(err, errlen, "%s", msg);
			goto out;
		}
	}
	if (in_job) {
		if (bench_config_add_job(cfg, &cur, err, errlen))
			goto out;
		in_job = false;
	}
	/* fio's order: the command line's own jobs, then the files' */
	for (i = 0; i < nr_files; i++)
		if (bench_parse_jobfile(files[i], &global, cfg, err, errlen))
			goto out;
	if (cfg->help || cfg->version) {
		ret = 0;
		goto out;
	}
	ret = bench_config_finish(cfg, err, errlen);
out:
	free(files);
	bench_job_free(&cur);
	bench_job_free(&global);
	return ret;
}

void bench_usage(FILE *f)
{
	fprintf(f,
		"usage: mqblk bench [options] [jobfile...]\n"
		"\n"
		"fio's options and meanings; options before the first --name are\n"
		"global, --name starts a job, a bare argument is a fio job file\n"
		"(INI: [global] and [job] sections, ; and # comments, ${VAR}).\n"
		"Sizes take fio's suffixes: k m g t p (powers of 1024; KiB, MiB\n"
		"... are powers of 1000, as in fio's default kb_base=1024).\n"
		"  --kb_base=1000|1024   1000: k m ... are powers of 1000 and KiB\n"
		"                        MiB ... of 1024 in the sizes after it; the\n"
		"                        report puts kB/s, MB before KiB/s, MiB\n"
		"Times: a bare number is seconds; us ms s m h d.\n"
		"\n"
		"job options:\n"
		"  --name=NAME              start a job\n"
		"  --filename=URI           the device (kinds below); a bare name is a\n"
		"                           file in the working directory; none with a\n"
		"                           file engine: fio's NAME.CLONE.0, laid out\n"
		"                           first; none and no engine: the null device;\n"
		"                           a:b:c (paths or bare names): fio's list of\n"
		"                           files, each clone on all ('\\:' in a name)\n"
		"  --directory=DIR          where those files go (default .)\n"
		"  --filesize=SIZE|LOW-HIGH --nrfiles=N --file_service_type=roundrobin|\n"
		"                           sequential|random[:N]\n"
		"  --create_on_open --unlink   make files at open / remove them after\n"
		"  --size=N%%               N %% of the device past --offset (of each\n"
		"                           file, with --nrfiles)\n"
		"  --ioengine=NAME          fio engine names map onto mqblk drivers:\n"
		"                           io_uring libaio psync sync pvsync pvsync2\n"
		"                           posixaio: the path (uring) driver, which\n"
		"                           plays their role for a path --filename;\n"
		"                           null: the null device (error with a path);\n"
		"                           mqblk: whatever driver --filename names\n"
		"  --rw=read|write|randread|randwrite|rw|readwrite|randrw|trim|randtrim\n"
		"  --rwmixread=PCT --rwmixwrite=PCT   mix for rw/randrw (default 50)\n"
		"  --bs=SIZE[,W[,T]]        block size per direction (default 4k)\n"
		"  --bsrange=MIN-MAX[,W[,T]]  each I/O's length drawn from the range\n"
		"                           (a multiple of MIN, or MAX), as fio\n"
		"  --bssplit=BS/PCT:...[,W[,T]]  lengths in these proportions; an\n"
		"                           entry without PCT shares what is left\n"
		"  --bs_is_seq_rand         bs R,W mean sequential,random\n"
		"                           (bs_unaligned is refused)\n"
		"  --size=SIZE --offset=SIZE   region of the device (default all)\n"
		"  --iodepth=N              requests in flight (default 1)\n"
		"  --iodepth_low=N          refill when in-flight drops to N\n"
		"  --iodepth_batch_submit=N (--iodepth_batch) submit N at once\n"
		"  --iodepth_batch_complete_min=N --iodepth_batch_complete_max=N\n"
		"  --numjobs=N              clones of the job, one thread each\n"
		"  --cpus_allowed=LIST --cpus_allowed_policy=shared|split\n"
		"                           CPUs the job threads run on (0,2-3)\n"
		"  --runtime=TIME --time_based --ramp_time=TIME --number_ios=N\n"
		"  --loops=N                passes over the region\n"
		"  --hipri                  polled completion (no interrupts)\n"
		"  --direct=0|1             O_DIRECT, buffers 4 KiB aligned (no effect on\n"
		"                           the null device)\n"
		"  --registerfiles --sqthread_poll   uring: registered file, SQPOLL\n"
		"                           (path devices; URI keys registerfiles=1,\n"
		"                           sqpoll=1)\n"
		"  --fixedbufs[=0|1]        register the I/O buffers with the device's\n"
		"                           rings (fio: off; mqblk: on wherever the\n"
		"                           device takes them; =0 to go without)\n"
		"  --ioscheduler=none|mq-deadline   the device's I/O scheduler (URI\n"
		"                           key scheduler=; a different scheduler= in\n"
		"                           the filename is an error)\n"
		"  --fsync=N --fdatasync=N  a flush after every N writes (fio's sync)\n"
		"  --end_fsync              a flush at the end of the job\n"
		"  --thread                 accepted: mqblk always runs jobs as threads\n"
		"  --group_reporting --stonewall --new_group\n"
		"  --norandommap --randrepeat=0|1 --randseed=N\n"
		"  --random_distribution=random|zipf[:THETA[:C]]|pareto[:H[:C]]|\n"
		"                           normal[:DEV[:C]]|zoned:A/PCT:...|\n"
		"                           zoned_abs:A/SIZE:...   fio's offset laws\n"
		"  --gtod_reduce            no per-I/O latency accounting\n"
		"  --clat_percentiles --lat_percentiles --slat_percentiles\n"
		"  --percentile_list=P:P:...   e.g. 50:99:99.99\n"
		"  --description=TEXT\n"
		"  --disable_lat --disable_clat --disable_slat   that latency unmeasured\n"
		"  --refill_buffers         new random data in every write\n"
		"  aliases: --blocksize (bs) --blocksize_range (bsrange)\n"
		"    --blocksize_unaligned (bs_unaligned, refused) --wait_for_previous\n"
		"    (stonewall) --iodepth_batch_complete (..._min) --ratemin\n"
		"    (rate_min) --threads (thread) --readwrite (rw) --timeout\n"
		"    (runtime) --io_limit (io_size)\n"
		"  --buffer_compress_percentage=N --buffer_compress_chunk=SIZE\n"
		"    --dedupe_percentage=N --dedupe_mode=repeat  write buffers that\n"
		"                           compress by N%% / repeat N%% of the time\n"
		"  refused with the reason: --sqthread_poll_cpu\n"
		"    --write_barrier\n"
		"    --verify_dump (other than 0)\n"
		"  --rate=R[,W[,T]] --rate_iops=R[,W[,T]]  bytes/s, IOPS per direction\n"
		"  --rate_min=... --rate_iops_min=...  fail below (1 s cycles)\n"
		"  --rate_process=linear|poisson\n"
		"  --thinktime=TIME (bare: us) --thinktime_spin=TIME\n"
		"  --thinktime_blocks=N     stall after every N I/Os\n"
		"  --io_size=SIZE (--io_limit)   I/O per pass, wrapping over the region\n"
		"  --startdelay=TIME --offset_increment=SIZE --exitall\n"
		"  --zero_buffers --buffer_pattern=P --invalidate=0|1 --buffered=0|1\n"
		"  --write_bw_log[=NAME] --write_lat_log[=NAME] --write_iops_log[=NAME]\n"
		"                           fio's NAME_bw.N.log ... (bare: the job's name)\n"
		"  --log_avg_msec=MS --log_offset --log_max_value --per_job_logs=0|1\n"
		"  --write_hist_log[=NAME] --log_hist_msec=MS --log_hist_coarseness=0..6\n"
		"                           fio's NAME_clat_hist.N.log: the clat histogram\n"
		"                           every MS (none without it), 1856 >> N buckets\n"
		"  (refused: --log_compression)\n"
		"  --sync=none|0|sync|1|dsync  open the file O_SYNC / O_DSYNC (a device\n"
		"                        that cannot is refused)\n"
		"  --unified_rw_reporting=none|mixed|both  read, write and trim\n"
		"                           reported apart, as one 'mixed', or both\n"
		"  --continue_on_error=none|read|write|io|verify|all  errors of\n"
		"                           those types (EIO, EILSEQ) let go, counted\n"
		"  --ignore_error=READ,WRITE,VERIFY  errnos to let go per type, each\n"
		"                           list NAME:NUMBER:... (ENOSPC:122)\n"
		"  --error_dump=0|1         say each error let go (default 1)\n"
		"  --fallocate=none|truncate|posix|native  a write-only job's layout\n"
		"                           sparse, or allocated (the default)\n"
		"\n"
		"verification (fio's): every block written carries a header (offset,\n"
		"length, seed, checksums); then, with do_verify, it is read back and\n"
		"checked; a mismatch names the offset and fails the job (err=84):\n"
		"  --verify=crc32c|crc32c-intel|md5|sha256|pattern|0\n"
		"  --verify_pattern=P       0xHEX, \"string\" or a number (comma list);\n"
		"                           alone, it means verify=pattern\n"
		"  --do_verify=0|1          read back after writing (default 1)\n"
		"  --verify_only            replay the write phase without writing and\n"
		"                           verify what an earlier run (same seed) wrote\n"
		"  --verify_fatal           stop at the first mismatch\n"
		"  --verify_backlog=N       verify every N blocks written, as it goes\n"
		"  --verify_interval=SIZE   one header per SIZE bytes (default bs)\n"
		"\n"
		"run options:\n"
		"  --output-format=normal|json|json+|terse (comma list)  --output=FILE\n"
		"  --minimal                terse lines (--output-format=terse)\n"
		"  --terse-version=2|3|4|5  default 3\n"
		"  --status-interval=TIME   the full report every TIME while running\n"
		"  --eta=auto|always|never  live status line (auto: on a terminal)\n"
		"  --eta-interval=TIME --eta-newline=TIME   its period; a new line\n"
		"  --help --version\n"
		"\n"
		"device URIs (--filename):\n"
		"  null[:k=v,...]           the null device (keys below)\n"
		"  /path or ./path[?k=v]    a file or block device (uring driver)\n"
		"  stripe:chunk=SIZE,members=N,member=URI[,...]   RAID 0 over members\n"
		"  nvme-tcp://HOST:PORT/SUBNQN[?k=v&...]   an NVMe/TCP namespace\n"
		"  nvme-tcp://A1:P1,A2:P2/SUBNQN?iopolicy=numa|round-robin|queue-depth\n"
		"                           multipath over several paths\n"
		"null device keys: null[:size=8g,blocksize=512,submit_queues=N,\n"
		"  hw_queue_depth=N,shared_tags=0|1,irqmode=0|1|2,completion_nsec=N,\n"
		"  memory_backed=0|1]; on every URI: complete=local|remote|batched|\n"
		"  polled|irq, nr_hw_queues=N, queue_depth=N, irq_threads=N, timeout=MS,\n"
		"  shared_tags=0|1, tagset=NAME (tags shared by the devices naming it),\n"
		"  poll_budget=N (completions per poll pass), dispatch=batch|one,\n"
		"  scheduler=none|mq-deadline with read_expire=MS, write_expire=MS,\n"
		"  writes_starved=N, fifo_batch=N, front_merges=0|1\n");
}
