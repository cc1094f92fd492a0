// SPDX-License-Identifier: MIT
/*
 * faultfs: a FUSE filesystem of one file, disk.img, held in memory and
 * zero-filled, that fails chosen byte ranges, so the tests can put real
 * I/O errors below the uring driver. Each read (and write) reaches this
 * process: the file is opened in the kernel's direct_io mode, no page
 * cache, whether or not the opener asked for O_DIRECT.
 *
 *   faultfs --size=SIZE [FAULTS...] MOUNTPOINT [FUSE OPTIONS...]
 *
 * Ranges are START-END, END exclusive, with k/m/g suffixes (x1024); a
 * fault option may be given several times or hold a comma list. An I/O
 * is faulted when it overlaps a range.
 *   --eio=RANGES          reads fail with EIO
 *   --eio-write           writes in the --eio ranges fail with EIO too
 *   --short=RANGES        reads return half the bytes asked for
 *   --delay=RANGE:MS,...  reads answer after MS milliseconds, or at once
 *                         with EINTR when the kernel interrupts them
 *   --no-direct           opens with O_DIRECT fail with EINVAL
 *   --eio-fsync           fsync and fdatasync fail with EIO, and so do
 *                         O_DSYNC/RWF_DSYNC writes (a cache flush that
 *                         fails: the data is not known to be durable)
 *   --stall=RANGES        reads never answer until released: a hung
 *                         device. FUSE interrupts are ignored (a dead
 *                         disk or server does not answer them either);
 *                         each stall prints "faultfs: stalled read
 *                         offset=N length=L" on stderr. SIGUSR1 releases
 *                         every stalled I/O (it answers with its real
 *                         result) and ends the stall for good.
 *   --stall-write         writes in the --stall ranges stall too
 *   --mode=OCTAL          disk.img's permission bits (default 644)
 * Everything else goes to libfuse (-f to stay in the foreground, -o ro,
 * -o allow_other, ...). Without -f it returns once mounted, and the
 * daemon ends when unmounted (fusermount3 -u MOUNTPOINT).
 */
#define FUSE_USE_VERSION 31

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <inttypes.h>
#include <linux/falloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FILE_NAME "disk.img"
#define MAX_RANGES 32

struct range {
	uint64_t start, end; /* [start, end) */
	unsigned ms; /* --delay only */
};

struct range_set {
	struct range v[MAX_RANGES];
	unsigned nr;
};

static struct range_set eio_ranges, short_ranges, delay_ranges, stall_ranges;
static bool eio_write, no_direct, eio_fsync, stall_write;
/* --stall: handlers wait on stall_cond until SIGUSR1 sets stall_over */
static pthread_mutex_t stall_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stall_cond = PTHREAD_COND_INITIALIZER;
static bool stall_over;
static unsigned nr_stalled;
static sigset_t usr1;
static mode_t file_mode = 0644;
static uint64_t file_size;
static char *data;
/* libfuse answers from several threads: copies in and out take this */
static pthread_rwlock_t data_lock = PTHREAD_RWLOCK_INITIALIZER;

/* A size with an optional k/m/g suffix; false if junk. */
static bool parse_size(const char *s, char **end, uint64_t *out)
{
	unsigned long long v;

	errno = 0;
	v = strtoull(s, end, 10);
	if (errno || *end == s || *s == '-')
		return false;
	switch (**end) {
	case 'k':
	case 'K':
		v <<= 10;
		(*end)++;
		break;
	case 'm':
	case 'M':
		v <<= 20;
		(*end)++;
		break;
	case 'g':
	case 'G':
		v <<= 30;
		(*end)++;
		break;
	}
	*out = v;
	return true;
}

/* Add the comma-separated START-END[:MS] ranges of s to set. */
static bool parse_ranges(const char *s, struct range_set *set, bool with_ms)
{
	char *p = (char *)s;

	for (;;) {
		struct range r = { 0 };
		unsigned long ms;

		if (set->nr == MAX_RANGES || !parse_size(p, &p, &r.start) ||
		    *p++ != '-' || !parse_size(p, &p, &r.end) ||
		    r.end <= r.start)
			return false;
		if (with_ms) {
			if (*p++ != ':')
				return false;
			errno = 0;
			ms = strtoul(p, &p, 10);
			if (errno || ms > 600000)
				return false;
			r.ms = (unsigned)ms;
		}
		set->v[set->nr++] = r;
		if (*p == '\0')
			return true;
		if (*p++ != ',')
			return false;
	}
}

/* The first range of set that [off, off + len) overlaps, or NULL. */
static const struct range *overlap(const struct range_set *set, uint64_t off,
				   size_t len)
{
	unsigned i;

	for (i = 0; i < set->nr; i++)
		if (off < set->v[i].end && off + len > set->v[i].start)
			return &set->v[i];
	return NULL;
}

/* Sleep ms in short steps; -EINTR as soon as the request is interrupted. */
static int delay(unsigned ms)
{
	struct timespec step = { .tv_nsec = 10 * 1000 * 1000 };
	unsigned slept;

	for (slept = 0; slept < ms; slept += 10) {
		if (fuse_interrupted())
			return -EINTR;
		nanosleep(&step, NULL);
	}
	return fuse_interrupted() ? -EINTR : 0;
}

/*
 * A hung device: wait, deaf to interrupts, until SIGUSR1 (stall_release).
 * libfuse starts another worker thread when all are busy, so the other
 * requests are still served.
 */
static void stall(const char *what, uint64_t off, size_t len)
{
	pthread_mutex_lock(&stall_lock);
	if (!stall_over) {
		nr_stalled++;
		fprintf(stderr,
			"faultfs: stalled %s offset=%" PRIu64 " length=%zu\n",
			what, off, len);
		while (!stall_over)
			pthread_cond_wait(&stall_cond, &stall_lock);
	}
	pthread_mutex_unlock(&stall_lock);
}

/* SIGUSR1, blocked in every thread, is taken here. */
static void *stall_release(void *arg)
{
	const sigset_t *set = arg;
	int sig;

	while (sigwait(set, &sig) || sig != SIGUSR1)
		;
	pthread_mutex_lock(&stall_lock);
	stall_over = true;
	fprintf(stderr, "faultfs: released %u stalled I/O%s\n", nr_stalled,
		nr_stalled == 1 ? "" : "s");
	pthread_cond_broadcast(&stall_cond);
	pthread_mutex_unlock(&stall_lock);
	return NULL;
}

static bool is_file(const char *path)
{
	return !strcmp(path, "/" FILE_NAME);
}

static void *ffs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	pthread_t releaser;

	(void)conn;
	/* here, in the process that serves (after libfuse's fork without
	 * -f): a thread does not survive a fork */
	if (stall_ranges.nr) {
		if (pthread_create(&releaser, NULL, stall_release, &usr1)) {
			fprintf(stderr, "faultfs: cannot start the release "
					"thread\n");
			exit(1);
		}
		pthread_detach(releaser);
	}
	cfg->kernel_cache = 0;
	cfg->attr_timeout = 0;
	cfg->entry_timeout = 0;
	return NULL;
}

static int ffs_getattr(const char *path, struct stat *st,
		       struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	st->st_uid = getuid();
	st->st_gid = getgid();
	if (!strcmp(path, "/")) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else if (is_file(path)) {
		st->st_mode = S_IFREG | file_mode;
		st->st_nlink = 1;
		st->st_size = (off_t)file_size;
		st->st_blocks = (blkcnt_t)((file_size + 511) / 512);
	} else {
		return -ENOENT;
	}
	return 0;
}

static int ffs_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
		       off_t off, struct fuse_file_info *fi,
		       enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
	if (strcmp(path, "/"))
		return -ENOTDIR;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, FILE_NAME, NULL, 0, 0);
	return 0;
}

static int ffs_open(const char *path, struct fuse_file_info *fi)
{
	if (!is_file(path))
		return -ENOENT;
	if (no_direct && (fi->flags & O_DIRECT))
		return -EINVAL;
	fi->direct_io = 1;
	return 0;
}

static int ffs_read(const char *path, char *buf, size_t len, off_t off,
		    struct fuse_file_info *fi)
{
	const struct range *r;
	uint64_t pos = (uint64_t)off;
	int ret;

	(void)path;
	(void)fi;
	if (pos >= file_size)
		return 0;
	if (len > file_size - pos)
		len = (size_t)(file_size - pos);
	if (overlap(&stall_ranges, pos, len))
		stall("read", pos, len);
	r = overlap(&delay_ranges, pos, len);
	if (r) {
		ret = delay(r->ms);
		if (ret)
			return ret;
	}
	if (overlap(&eio_ranges, pos, len))
		return -EIO;
	if (overlap(&short_ranges, pos, len))
		len /= 2;
	pthread_rwlock_rdlock(&data_lock);
	memcpy(buf, data + pos, len);
	pthread_rwlock_unlock(&data_lock);
	return (int)len;
}

static int ffs_write(const char *path, const char *buf, size_t len, off_t off,
		     struct fuse_file_info *fi)
{
	uint64_t pos = (uint64_t)off;

	(void)path;
	if (stall_write && overlap(&stall_ranges, pos, len))
		stall("write", pos, len);
	if (eio_write && overlap(&eio_ranges, pos, len))
		return -EIO;
	/* a write that must be durable when it returns (O_DSYNC, RWF_DSYNC:
	 * the kernel passes it in the write's flags) needs the flush */
	if (eio_fsync && (fi->flags & (O_DSYNC | O_SYNC)))
		return -EIO;
	if (pos >= file_size || len > file_size - pos)
		return -ENOSPC; /* the file has a fixed size */
	pthread_rwlock_wrlock(&data_lock);
	memcpy(data + pos, buf, len);
	pthread_rwlock_unlock(&data_lock);
	return (int)len;
}

/* Punch hole and zero range read back as zeros; the size stays. */
static int ffs_fallocate(const char *path, int mode, off_t off, off_t len,
			 struct fuse_file_info *fi)
{
	uint64_t pos = (uint64_t)off, n = (uint64_t)len;

	(void)fi;
	if (!is_file(path))
		return -ENOENT;
	if (!(mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)))
		return -EOPNOTSUPP;
	if (pos >= file_size)
		return 0;
	if (n > file_size - pos)
		n = file_size - pos;
	pthread_rwlock_wrlock(&data_lock);
	memset(data + pos, 0, (size_t)n);
	pthread_rwlock_unlock(&data_lock);
	return 0;
}

static int ffs_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)path;
	(void)datasync;
	(void)fi;
	return eio_fsync ? -EIO : 0;
}

/* O_TRUNC and ftruncate: the size is fixed, only a no-op is allowed. */
static int ffs_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	(void)fi;
	if (!is_file(path))
		return -ENOENT;
	return (uint64_t)size == file_size ? 0 : -EPERM;
}

static const struct fuse_operations ffs_ops = {
	.init = ffs_init,
	.getattr = ffs_getattr,
	.readdir = ffs_readdir,
	.open = ffs_open,
	.read = ffs_read,
	.write = ffs_write,
	.truncate = ffs_truncate,
	.fallocate = ffs_fallocate,
	.fsync = ffs_fsync,
};

static int usage(const char *arg)
{
	fprintf(stderr,
		"faultfs: bad argument '%s'\n"
		"usage: faultfs --size=SIZE [--eio=RANGES] "
		"[--eio-write] [--eio-fsync] [--short=RANGES]\n"
		"       [--delay=RANGE:MS,...] [--stall=RANGES] "
		"[--stall-write] [--no-direct]\n"
		"       [--mode=OCTAL] MOUNTPOINT [FUSE OPTIONS]\n",
		arg);
	return 2;
}

int main(int argc, char **argv)
{
	char **fargv = calloc((size_t)argc + 1, sizeof(*fargv));
	int i, fargc = 0;
	char *end;

	if (!fargv)
		return 1;
	fargv[fargc++] = argv[0];
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool ok = true;

		if (!strncmp(a, "--size=", 7)) {
			ok = parse_size(a + 7, &end, &file_size) && !*end &&
			     file_size && file_size <= (1ull << 32);
		} else if (!strncmp(a, "--eio=", 6)) {
			ok = parse_ranges(a + 6, &eio_ranges, false);
		} else if (!strcmp(a, "--eio-write")) {
			eio_write = true;
		} else if (!strncmp(a, "--short=", 8)) {
			ok = parse_ranges(a + 8, &short_ranges, false);
		} else if (!strncmp(a, "--delay=", 8)) {
			ok = parse_ranges(a + 8, &delay_ranges, true);
		} else if (!strncmp(a, "--stall=", 8)) {
			ok = parse_ranges(a + 8, &stall_ranges, false);
		} else if (!strcmp(a, "--stall-write")) {
			stall_write = true;
		} else if (!strcmp(a, "--eio-fsync")) {
			eio_fsync = true;
		} else if (!strcmp(a, "--no-direct")) {
			no_direct = true;
		} else if (!strncmp(a, "--mode=", 7)) {
			unsigned long m = strtoul(a + 7, &end, 8);

			ok = !*end && end != a + 7 && m <= 07777;
			file_mode = (mode_t)m;
		} else {
			fargv[fargc++] = argv[i];
		}
		if (!ok)
			return usage(a);
	}
	if (!file_size)
		return usage("--size missing");
	data = calloc(1, (size_t)file_size);
	if (!data) {
		fprintf(stderr, "faultfs: cannot allocate %" PRIu64 " bytes\n",
			file_size);
		return 1;
	}
	/* blocked before libfuse starts its threads, which inherit the mask
	 * (and across its daemonising fork): only the releaser takes it */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	if (pthread_sigmask(SIG_BLOCK, &usr1, NULL))
		return 1;
	return fuse_main(fargc, fargv, &ffs_ops, NULL);
}
