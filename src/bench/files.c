// SPDX-License-Identifier: MIT
/*
 * Files as fio makes them (filesetup.c's roles): each clone's file name,
 * laying files out before the timed phase, --unlink after it.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "files.h"
#include "rand.h"

#define LAYOUT_CHUNK (1u << 20)

const char *bench_file_uri(const struct bench_job *job, unsigned clone,
			   unsigned file, char *buf, size_t len)
{
	size_t plen;
	int n;

	if (job->files)
		return file < job->nrfiles ? job->files[file] : NULL;
	if (!job->filename)
		return "null";
	if (job->target != TARGET_JOBFILES)
		return job->filename;
	/* job_fixup_target made it DIR/NAME.0.0[?keys] */
	plen = strcspn(job->filename, "?");
	if (plen < 4)
		return job->filename;
	n = snprintf(buf, len, "%.*s%u.%u%s", (int)(plen - 3), job->filename,
		     clone, file, job->filename + plen);
	return n < 0 || (size_t)n >= len ? NULL : buf;
}

uint64_t bench_file_size(const struct bench_job *job, unsigned clone,
			 unsigned file)
{
	uint64_t minbs, size, seed;
	struct bench_rng rng;
	double u;

	if (!job->filesize_high)
		return job->filesize;
	minbs = bench_job_min_bs(job);
	/* one draw per file from a seed of its own: the same sizes on
	 * every run (fio's randrepeat), whatever else the job draws */
	seed = (job->randseed_set ? job->randseed : 0x66696c6573697a65ull) ^
	       ((uint64_t)clone * 0x9e3779b97f4a7c15ull) ^
	       ((uint64_t)(file + 1) * 0xbf58476d1ce4e5b9ull);
	bench_rng_seed(&rng, seed);
	u = (double)(bench_rng_next(&rng) >> 11) * 0x1p-53;
	size = job->filesize +
	       (uint64_t)((double)(job->filesize_high - job->filesize) * u);
	size -= size % minbs;
	/* fio can go below LOW by the alignment; not below one block */
	return size < minbs ? minbs : size;
}

uint64_t bench_file_real_size(const struct bench_job *job, unsigned clone,
			      unsigned file)
{
	const char *uri;
	char buf[4096];
	struct stat st;
	size_t plen;

	if (job->filesize)
		return bench_file_size(job, clone, file);
	uri = bench_file_uri(job, clone, file, buf, sizeof(buf));
	if (!uri)
		return 0;
	plen = strcspn(uri, "?");
	if (plen >= sizeof(buf))
		return 0;
	if (uri != buf)
		memmove(buf, uri, plen);
	buf[plen] = 0;
	if (stat(buf, &st))
		return 0;
	if (S_ISBLK(st.st_mode)) {
		/* a block device of a list (filename=/dev/a:/dev/b) */
		uint64_t bytes = 0;
		int fd = open(buf, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			return 0;
		if (ioctl(fd, BLKGETSIZE64, &bytes))
			bytes = 0;
		close(fd);
		return bytes;
	}
	return S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}

uint64_t bench_file_io_size(const struct bench_job *job, unsigned clone,
			    unsigned file, uint64_t start)
{
	uint64_t fs = bench_file_real_size(job, clone, file), io, share;

	if (fs < start)
		return 0;
	io = fs - start;
	/* fio: a list's files each take size= over their number */
	if (job->files && job->size && job->size / job->nrfiles < io)
		io = job->size / job->nrfiles;
	if (job->size_pct && job->size_pct != 100) {
		/* fio: N% of the whole file, at most what lies past the
		 * offset, aligned down to the smallest block */
		share = fs / 100 * job->size_pct +
			fs % 100 * job->size_pct / 100;
		if (share < io)
			io = share;
		io -= io % bench_job_min_bs(job);
	}
	return io;
}

/* The job reads what it has not written: its file needs real data. */
static bool job_reads(const struct bench_job *job)
{
	return job->verify_only ||
	       (job->rw != RW_WRITE && job->rw != RW_RANDWRITE);
}

static int add_file(struct bench_files *bf, const struct bench_job *job,
		    unsigned job_idx, unsigned clone, unsigned file,
		    const char *uri)
{
	size_t plen = strcspn(uri, "?");
	uint64_t need;
	struct bench_file *f;
	struct stat st;
	unsigned k;

	need = job->target == TARGET_JOBFILES ?
		       bench_file_size(job, clone, file) :
	       job->filesize ? job->filesize :
	       job->files    ? (job->size ?
					job->offset + job->size / job->nrfiles :
					0) :
			       job->offset + job->size;
	if (job->target == TARGET_JOBFILES && job->size_pct && need) {
		/* fio extends a file to what the job does of it: size=N%
		 * of --filesize lays out that share past the offset */
		uint64_t start = job->offset + clone * job->offset_increment;

		need = start + bench_file_io_size(job, clone, file, start);
	}
	for (k = 0; k < bf->nr; k++) {
		f = &bf->f[k];
		if (strlen(f->path) != plen || strncmp(f->path, uri, plen))
			continue;
		/* another job on the same file: the larger need wins */
		if (need > f->size)
			f->size = need;
		f->data |= job_reads(job);
		return 0;
	}
	f = realloc(bf->f, (bf->nr + 1) * sizeof(*f));
	if (!f) {
		fprintf(stderr, "mqblk: out of memory\n");
		return -1;
	}
	bf->f = f;
	f = &bf->f[bf->nr];
	memset(f, 0, sizeof(*f));
	f->path = strndup(uri, plen);
	if (!f->path) {
		fprintf(stderr, "mqblk: out of memory\n");
		return -1;
	}
	bf->nr++;
	f->size = need;
	f->job_idx = job_idx;
	f->clone = clone;
	f->data = job_reads(job);
	if (stat(f->path, &st)) {
		/* a path named with no file engine: opening it says what
		 * is wrong, as it always did */
		if (errno == ENOENT && job->target == TARGET_PATH &&
		    !job->path_may_create)
			return 0;
		if (errno != ENOENT) {
			fprintf(stderr, "mqblk: %s: %s: %s\n", job->name,
				f->path, strerror(errno));
			return -1;
		}
		if (!need && job->size_pct) {
			/* fio's size=N% is of what the files hold: it
			 * refuses one with none ("you need to specify
			 * size="); this names the file */
			fprintf(stderr,
				"mqblk: %s: you need to specify size= (size=%u%% of %s, which does not exist yet)\n",
				job->name, job->size_pct, f->path);
			return -1;
		}
		if (!need) {
			/* a path with no size= and no file yet */
			fprintf(stderr,
				"mqblk: %s: %s does not exist; you need to specify size= to lay it out\n",
				job->name, f->path);
			return -1;
		}
		f->create = true;
		return 0;
	}
	/* fio extends its own jobname files when too small; a file the
	 * user named is used as it is (job_resolve checks it fits) */
	if (job->target == TARGET_JOBFILES && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size < need)
		f->create = true;
	return 0;
}

/* Bytes to be written on the filesystem of f's directory, checked
 * against its free space: the whole plan, before any byte is written. */
static int check_space(const struct bench_files *bf,
		       const struct bench_job *jobs)
{
	unsigned k, m;

	for (k = 0; k < bf->nr; k++) {
		const struct bench_file *f = &bf->f[k];
		struct statvfs vfs;
		struct stat dst, ost;
		uint64_t need = 0, avail;
		char *dup, *dir;

		if (!f->create)
			continue;
		dup = strdup(f->path);
		if (!dup) {
			fprintf(stderr, "mqblk: out of memory\n");
			return -1;
		}
		dir = dirname(dup);
		if (statvfs(dir, &vfs) || stat(dir, &dst)) {
			fprintf(stderr, "mqblk: %s: %s: %s\n",
				jobs[f->job_idx].name, dir, strerror(errno));
			free(dup);
			return -1;
		}
		/* every file to lay out on this filesystem */
		for (m = 0; m < bf->nr; m++) {
			char *d2;

			if (!bf->f[m].create)
				continue;
			d2 = strdup(bf->f[m].path);
			if (!d2) {
				free(dup);
				fprintf(stderr, "mqblk: out of memory\n");
				return -1;
			}
			if (!stat(dirname(d2), &ost) &&
			    ost.st_dev == dst.st_dev)
				need += bf->f[m].size;
			free(d2);
		}
		avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
		if (need > avail) {
			fprintf(stderr,
				"mqblk: %s: laying out %s needs %llu bytes in %s, which has %llu free\n",
				jobs[f->job_idx].name, f->path,
				(unsigned long long)need, dir,
				(unsigned long long)avail);
			free(dup);
			return -1;
		}
		free(dup);
	}
	return 0;
}

static int write_all(int fd, const void *buf, size_t len, uint64_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/*
 * Lay out one file as fio's extend_file does: a job that reads gets every
 * byte written (random data, or zeroes with --zero_buffers) and synced
 * (fio's create_fsync); a job that only writes gets the space allocated.
 */
static int layout_one(struct bench_file *f, const struct bench_job *job)
{
	struct bench_rng rng;
	uint64_t off, *buf = NULL;
	int fd, ret = 0;

	fd = open(f->path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	f->created = true;
	if (!f->data && job->fallocate_none) {
		/* fio's fallocate=none: a sparse file of the size */
		ret = ftruncate(fd, (off_t)f->size) ? -errno : 0;
		goto out;
	}
	if (!f->data) {
		ret = posix_fallocate(fd, 0, (off_t)f->size);
		/* a filesystem without fallocate: a sparse file, as fio's
		 * fallocate=none */
		if (ret == EOPNOTSUPP || ret == EINVAL)
			ret = ftruncate(fd, (off_t)f->size) ? errno : 0;
		ret = -ret;
		goto out;
	}
	buf = malloc(LAYOUT_CHUNK);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	bench_rng_seed(&rng, 0x89 + f->job_idx);
	for (off = 0; off < f->size && !ret; off += LAYOUT_CHUNK) {
		size_t len = f->size - off < LAYOUT_CHUNK ?
				     (size_t)(f->size - off) :
				     LAYOUT_CHUNK;
		size_t i;

		if (job->zero_buffers)
			memset(buf, 0, len);
		else
			for (i = 0; i < (len + 7) / 8; i++)
				buf[i] = bench_rng_next(&rng);
		ret = write_all(fd, buf, len, off);
	}
	if (!ret && ftruncate(fd, (off_t)f->size))
		ret = -errno;
	if (!ret && fsync(fd))
		ret = -errno;
out:
	free(buf);
	if (fd >= 0 && close(fd) && !ret)
		ret = -errno;
	if (ret)
		fprintf(stderr, "mqblk: %s: laying out %s: %s\n", job->name,
			f->path, strerror(-ret));
	return ret;
}

int bench_files_prepare(const struct bench_job *jobs, unsigned nr,
			struct bench_files *bf)
{
	char buf[4096];
	unsigned i, c, k, n;

	memset(bf, 0, sizeof(*bf));
	for (i = 0; i < nr; i++) {
		const struct bench_job *job = &jobs[i];
		unsigned clones =
			job->target == TARGET_JOBFILES ? job->numjobs : 1;

		if (job->target != TARGET_JOBFILES &&
		    job->target != TARGET_PATH)
			continue;
		for (c = 0; c < clones; c++) {
			for (n = 0; n < job->nrfiles; n++) {
				const char *uri = bench_file_uri(job, c, n, buf,
								 sizeof(buf));

				if (!uri) {
					fprintf(stderr,
						"mqblk: %s: file name too long\n",
						job->name);
					goto fail;
				}
				if (add_file(bf, job, i, c, n, uri))
					goto fail;
			}
		}
	}
	for (k = 0; k < bf->nr; k++) {
		const struct bench_job *job = &jobs[bf->f[k].job_idx];

		/* fio creates it at open, empty: a job reading it fails */
		if (bf->f[k].create && job->create_on_open && job_reads(job)) {
			fprintf(stderr,
				"mqblk: %s: create_on_open: %s would be created empty, and this job reads it\n",
				job->name, bf->f[k].path);
			goto fail;
		}
	}
	if (check_space(bf, jobs))
		goto fail;
	for (k = 0; k < bf->nr; k++) {
		struct bench_file *f = &bf->f[k];
		const struct bench_job *job = &jobs[f->job_idx];

		if (!f->create)
			continue;
		if (job->create_on_open)
			f->data = false; /* made at open: nothing written */
		if (layout_one(f, job))
			goto fail;
		f->laid_out = !job->create_on_open;
	}
	return 0;
fail:
	bench_files_unlink(bf, jobs, true);
	bench_files_free(bf);
	return -1;
}

void bench_files_print_layout(FILE *out, const struct bench_files *bf,
			      const struct bench_job *jobs, unsigned first,
			      unsigned last)
{
	unsigned k, m, nr;
	uint64_t total;

	/* fio's line per clone: its files laid out, their total in whole
	 * MiB (a clone's files are added one after the other) */
	for (k = 0; k < bf->nr; k = m) {
		const struct bench_file *f = &bf->f[k];

		nr = 0;
		total = 0;
		for (m = k; m < bf->nr && bf->f[m].job_idx == f->job_idx &&
			    bf->f[m].clone == f->clone;
		     m++) {
			if (!bf->f[m].laid_out)
				continue;
			nr++;
			total += bf->f[m].size;
		}
		if (!nr || f->job_idx < first || f->job_idx >= last)
			continue;
		fprintf(out,
			"%s: Laying out IO file%s (%u file%s / %s%lluMiB)\n",
			jobs[f->job_idx].name, nr > 1 ? "s" : "", nr,
			nr > 1 ? "s" : "", nr > 1 ? "total " : "",
			(unsigned long long)(total >> 20));
	}
}

void bench_files_unlink(const struct bench_files *bf,
			const struct bench_job *jobs, bool all)
{
	unsigned k;

	for (k = 0; k < bf->nr; k++) {
		const struct bench_file *f = &bf->f[k];

		if (all ? !f->created : !jobs[f->job_idx].unlink)
			continue;
		if (unlink(f->path) && errno != ENOENT)
			fprintf(stderr, "mqblk: %s: unlink %s: %s\n",
				jobs[f->job_idx].name, f->path,
				strerror(errno));
	}
}

void bench_files_free(struct bench_files *bf)
{
	unsigned k;

	for (k = 0; k < bf->nr; k++)
		free(bf->f[k].path);
	free(bf->f);
	memset(bf, 0, sizeof(*bf));
}

int bench_file_invalidate(const char *uri)
{
	char *path = strndup(uri, strcspn(uri, "?"));
	int fd, ret = 0;

	if (!path)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return -errno;
	ret = -posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	return ret;
}
