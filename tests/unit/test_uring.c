// SPDX-License-Identifier: MIT
/*
 * Unit tests of the uring driver (src/drivers/uring) on real storage: files
 * on tmpfs (/dev/shm) and ext4 or whatever /tmp is, and a loop device.
 * Without a loop device the loop cases are skipped and the program says
 * why ("SKIP: ...") and exits 77 (meson's skip), or 1 under CI=true
 * unless this kernel has no loop driver at all (root can set up the rest).
 * Geometry, data written and read back under every completion policy, a
 * plugged batch, flush, discard and write zeroes, the error messages;
 * registered buffers (seen in the ring's /proc fdinfo); a sole
 * submitter's ring moving to a new thread.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mqblk/mqblk.h>

#include "helpers.h"

#define FILE_SIZE (8u << 20)
#define BS 4096u

static char shm_dir[64], tmp_dir[64];
static char shm_file[128], tmp_file[128], loop_file[128];
static char loop_dev[64], loop_ro_dev[64];
/* why a loop device could not be attached, and how many cases skipped */
static char loop_why[512];
static unsigned nr_loop_skipped;

/* ---- fixture ---- */

static int make_file(const char *path, off_t size)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return -1;
	if (ftruncate(fd, size)) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * losetup [-r] --find --show FILE into dev; 0, or -1 with losetup's first
 * line of complaint (or what went wrong) in loop_why.
 */
static int loop_attach(const char *file, bool ro, char *dev, size_t len)
{
	char cmd[256], line[256] = "";
	FILE *p;
	int ok, status;

	snprintf(cmd, sizeof(cmd), "losetup %s--find --show %s 2>&1",
		 ro ? "-r " : "", file);
	p = popen(cmd, "r");
	if (!p) {
		snprintf(loop_why, sizeof(loop_why), "popen(losetup): %s",
			 strerror(errno));
		return -1;
	}
	ok = fgets(line, sizeof(line), p) != NULL;
	status = pclose(p);
	line[strcspn(line, "\n")] = '\0';
	if (status != 0 || !ok || strncmp(line, "/dev/loop", 9) != 0 ||
	    strlen(line) >= len) {
		snprintf(loop_why, sizeof(loop_why),
			 "losetup %s--find --show failed (exit %d): %s",
			 ro ? "-r " : "",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1,
			 ok ? line : "no output");
		return -1;
	}
	snprintf(dev, len, "%s", line);
	return 0;
}

/*
 * The running kernel has no loop driver at all (no loop-control device
 * registered, none in /dev): nothing root could set up here.
 */
static bool kernel_lacks_loop(void)
{
	return access("/sys/devices/virtual/misc/loop-control", F_OK) != 0 &&
	       access("/dev/loop-control", F_OK) != 0;
}

static void loop_detach(char *dev)
{
	char cmd[128];

	if (!dev[0])
		return;
	snprintf(cmd, sizeof(cmd), "losetup -d %s", dev);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot detach %s\n", dev);
	dev[0] = '\0';
}

static int group_setup(void **state)
{
	(void)state;
	snprintf(shm_dir, sizeof(shm_dir), "/dev/shm/mqblk-uring-XXXXXX");
	snprintf(tmp_dir, sizeof(tmp_dir), "/tmp/mqblk-uring-XXXXXX");
	if (!mkdtemp(shm_dir) || !mkdtemp(tmp_dir))
		return -1;
	snprintf(shm_file, sizeof(shm_file), "%s/disk.img", shm_dir);
	snprintf(tmp_file, sizeof(tmp_file), "%s/disk.img", tmp_dir);
	snprintf(loop_file, sizeof(loop_file), "%s/loop.img", tmp_dir);
	if (make_file(shm_file, FILE_SIZE) || make_file(tmp_file, FILE_SIZE) ||
	    make_file(loop_file, FILE_SIZE))
		return -1;
	if (loop_attach(loop_file, false, loop_dev, sizeof(loop_dev)))
		loop_dev[0] = '\0';
	if (loop_attach(loop_file, true, loop_ro_dev, sizeof(loop_ro_dev)))
		loop_ro_dev[0] = '\0';
	return 0;
}

static int group_teardown(void **state)
{
	char cmd[256];

	(void)state;
	loop_detach(loop_dev);
	loop_detach(loop_ro_dev);
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", shm_dir, tmp_dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* a loop case: skipped (and counted, see main) without its device */
static void need_loop_dev(const char *dev)
{
	if (!dev[0]) {
		nr_loop_skipped++;
		skip();
	}
}

static void need_loop(void)
{
	need_loop_dev(loop_dev);
}

/* ---- helpers ---- */

static struct mqblk_dev *open_uring(const char *uri, unsigned flags, int policy)
{
	struct mqblk_dev_opts o;
	struct mqblk_dev *dev;

	mqblk_dev_opts_init(&o);
	o.flags = flags;
	o.comp_policy = policy;
	dev = open_with(uri, &o);
	assert_string_equal(mqblk_dev_driver_name(dev), "uring");
	return dev;
}

static int open_err(const char *uri, unsigned flags, char *err, size_t len)
{
	struct mqblk_dev_opts o;
	struct mqblk_dev *dev = NULL;
	int ret;

	mqblk_dev_opts_init(&o);
	o.flags = flags;
	err[0] = '\0';
	ret = mqblk_dev_open(uri, &o, &dev, err, len);
	if (!ret) {
		mqblk_dev_close(dev);
		fail_msg("open %s succeeded", uri);
	}
	assert_true(strlen(err) > 0);
	return ret;
}

static void *abuf(size_t len)
{
	void *p = NULL;

	assert_int_equal(posix_memalign(&p, 4096, len), 0);
	return p;
}

static void fill(uint8_t *b, size_t len, uint64_t off, unsigned seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = (uint8_t)((off + i) * 31 + seed + ((off + i) >> 9));
}

/* One I/O; an error carries an NVMe status, a success none. */
static int uring_io(struct mqblk_queue *q, enum mqblk_op op, uint64_t off,
		    uint32_t len, void *buf, uint32_t flags)
{
	uint16_t status;
	int res = do_io_full(q, op, off, len, buf, flags, &status);

	if (res >= 0)
		assert_int_equal(status, 0);
	else
		assert_int_not_equal(status, 0);
	return res;
}

static uint64_t total_completions(const struct mqblk_queue_stats *st)
{
	uint64_t n = 0;
	unsigned i;

	for (i = 0; i < MQBLK_PATH_NR; i++)
		n += st->completions[i];
	return n;
}

/*
 * How many of this process's io_urings list [buf, buf+len) among their
 * registered buffers (fdinfo: "  N: 0xADDR/LEN").
 */
static int rings_with_buf(const void *buf, size_t len)
{
	char path[300], link[64], line[256], want[64];
	struct dirent *de;
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(d);
	snprintf(want, sizeof(want), ": 0x%lx/%zu", (unsigned long)buf, len);
	while ((de = readdir(d))) {
		ssize_t l;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		l = readlink(path, link, sizeof(link) - 1);
		if (l <= 0)
			continue;
		link[l] = '\0';
		if (strcmp(link, "anon_inode:[io_uring]"))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%s",
			 de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (strstr(line, want)) {
				n++;
				break;
			}
		fclose(f);
	}
	closedir(d);
	return n;
}

/*
 * Write a pattern over [0, 64 KiB) + a plugged batch of 32, read it back,
 * check the counters. With map, both buffers are registered with the
 * queue first (and must show in the ring, and be gone after close).
 */
static void rw_roundtrip_map(const char *uri, unsigned flags, int policy,
			     enum mqblk_comp_path want_path, bool map)
{
	struct mqblk_dev *dev = open_uring(uri, flags, policy);
	struct mqblk_queue_stats st;
	struct mqblk_rq *rqs[32], *out[32];
	struct mqblk_queue *q;
	uint8_t *w = abuf(32 * BS), *r = abuf(32 * BS);
	uint64_t base = 1u << 20;
	unsigned i, n = 0, ios = 0;
	int got;

	assert_int_equal(mqblk_queue_open(dev, &q), 0);
	if (map) {
		assert_int_equal(mqblk_queue_map_buf(q, w, 32 * BS), 0);
		assert_int_equal(mqblk_queue_map_buf(q, r, 32 * BS), 0);
		assert_int_equal(rings_with_buf(w, 32 * BS), 1);
		assert_int_equal(rings_with_buf(r, 32 * BS), 1);
	}
	/* one at a time, FUA on every other */
	for (i = 0; i < 16; i++) {
		fill(w, BS, i * BS, (unsigned)policy);
		assert_int_equal(uring_io(q, MQBLK_OP_WRITE, i * BS, BS, w,
					  i & 1 ? MQBLK_REQ_FUA : 0),
				 (int)BS);
		memset(r, 0, BS);
		assert_int_equal(uring_io(q, MQBLK_OP_READ, i * BS, BS, r, 0),
				 (int)BS);
		assert_memory_equal(w, r, BS);
		ios += 2;
	}
	/* a plugged batch of 32 writes, then 32 reads */
	fill(w, 32 * BS, base, 7 + (unsigned)policy);
	memset(r, 0, 32 * BS);
	for (int pass = 0; pass < 2; pass++) {
		mqblk_plug(q);
		for (i = 0; i < 32; i++) {
			rqs[i] = mqblk_rq_get(q, 0);
			assert_non_null(rqs[i]);
			rqs[i]->op = pass ? MQBLK_OP_READ : MQBLK_OP_WRITE;
			rqs[i]->offset = base + i * BS;
			rqs[i]->len = BS;
			rqs[i]->buf = (pass ? r : w) + i * BS;
			assert_int_equal(mqblk_submit(rqs[i]), 0);
		}
		mqblk_unplug(q);
		for (n = 0; n < 32; n += (unsigned)got) {
			got = mqblk_reap(q, out, 1, 32 - n, -1);
			assert_true(got > 0);
			for (i = 0; i < (unsigned)got; i++) {
				assert_int_equal(out[i]->res, (int)BS);
				mqblk_rq_put(out[i]);
			}
		}
		ios += 32;
	}
	assert_memory_equal(w, r, 32 * BS);
	mqblk_queue_get_stats(q, &st);
	assert_int_equal(st.submitted, ios);
	assert_int_equal(total_completions(&st), ios);
	assert_int_equal(st.errors, 0);
	assert_int_equal(st.timeouts, 0);
	if (policy == MQBLK_COMP_POLLED || policy == MQBLK_COMP_LOCAL)
		assert_int_equal(st.completions[want_path], ios);
	else
		assert_true(st.completions[want_path] > 0);
	assert_int_equal(mqblk_queue_inflight(q), 0);
	mqblk_queue_close(q);
	/* unmapped with the queue, though the device stays open */
	assert_int_equal(rings_with_buf(w, 32 * BS), 0);
	assert_int_equal(rings_with_buf(r, 32 * BS), 0);
	mqblk_dev_close(dev);
	free(w);
	free(r);
}

static void rw_roundtrip(const char *uri, unsigned flags, int policy,
			 enum mqblk_comp_path want_path)
{
	rw_roundtrip_map(uri, flags, policy, want_path, false);
}

static void all_policies(const char *path, unsigned flags)
{
	static const struct {
		const char *key;
		enum mqblk_comp_path path;
	} pol[] = {
		{ "local", MQBLK_PATH_LOCAL },
		{ "remote", MQBLK_PATH_REMOTE },
		{ "batched", MQBLK_PATH_BATCHED },
	};
	char uri[256];
	unsigned i;

	for (i = 0; i < sizeof(pol) / sizeof(pol[0]); i++) {
		snprintf(uri, sizeof(uri), "%s?complete=%s", path, pol[i].key);
		rw_roundtrip(uri, flags, -1, pol[i].path);
	}
	rw_roundtrip(path, flags, MQBLK_COMP_POLLED, MQBLK_PATH_POLLED);
}

/* ---- registered buffers, sole submitters ---- */

static void fixed_all_policies(const char *path, unsigned flags)
{
	static const char *const pol[] = { "local", "remote", "batched" };
	static const enum mqblk_comp_path want[] = { MQBLK_PATH_LOCAL,
						     MQBLK_PATH_REMOTE,
						     MQBLK_PATH_BATCHED };
	char uri[256];
	unsigned i;

	for (i = 0; i < 3; i++) {
		snprintf(uri, sizeof(uri), "%s?complete=%s", path, pol[i]);
		rw_roundtrip_map(uri, flags, -1, want[i], true);
	}
	rw_roundtrip_map(path, flags, MQBLK_COMP_POLLED, MQBLK_PATH_POLLED,
			 true);
}

static void test_fixed_buffers(void **state)
{
	(void)state;
	fixed_all_policies(shm_file, MQBLK_OPEN_WRITE | MQBLK_OPEN_DIRECT);
	fixed_all_policies(shm_file, MQBLK_OPEN_WRITE);
	need_loop();
	fixed_all_policies(loop_dev, MQBLK_OPEN_WRITE | MQBLK_OPEN_DIRECT);
}

static void test_fixed_buffers_refused(void **state)
{
	struct mqblk_dev *dev = open_uring(shm_file, MQBLK_OPEN_DIRECT, -1);
	struct mqblk_queue *q;
	uint8_t *b = abuf(8 * BS);
	unsigned i;

	(void)state;
	assert_int_equal(mqblk_queue_open(dev, &q), 0);
	assert_int_equal(mqblk_queue_map_buf(q, NULL, BS), -EINVAL);
	assert_int_equal(mqblk_queue_map_buf(q, b, 0), -EINVAL);
	for (i = 0; i < MQBLK_QUEUE_MAX_BUFS; i++)
		assert_int_equal(mqblk_queue_map_buf(q, b + i * BS, BS), 0);
	assert_int_equal(mqblk_queue_map_buf(q, b + i * BS, BS), -ENOSPC);
	/* a request straddling the end of a region is not a fixed one:
	 * it still reads right */
	assert_int_equal(uring_io(q, MQBLK_OP_READ, 0, 2 * BS, b + 3 * BS, 0),
			 (int)(2 * BS));
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
	free(b);
}

struct thread_io {
	struct mqblk_dev *dev;
	unsigned seed;
	int ret;
};

/* One thread's turn on the device: a queue, a write and its read-back
 * through a registered buffer, close. */
static void *thread_io_fn(void *arg)
{
	struct thread_io *t = arg;
	struct mqblk_queue *q;
	uint8_t *w = abuf(BS), *r = abuf(BS);

	t->ret = mqblk_queue_open(t->dev, &q);
	if (t->ret)
		goto out;
	t->ret = mqblk_queue_map_buf(q, w, BS);
	fill(w, BS, 0, t->seed);
	if (!t->ret && uring_io(q, MQBLK_OP_WRITE, 0, BS, w, 0) != (int)BS)
		t->ret = -EIO;
	if (!t->ret && uring_io(q, MQBLK_OP_READ, 0, BS, r, 0) != (int)BS)
		t->ret = -EIO;
	if (!t->ret && memcmp(w, r, BS))
		t->ret = -EILSEQ;
	mqblk_queue_close(q);
out:
	free(w);
	free(r);
	return NULL;
}

/*
 * A LOCAL device opened for one submitter gets a ring only its owner may
 * enter; a queue opened later by another thread must still work (the
 * driver remakes the ring as that thread), several times over, under
 * LOCAL and POLLED, and two new threads one after the other too.
 */
static void test_sole_submitter_changes_thread(void **state)
{
	int policies[] = { MQBLK_COMP_LOCAL, MQBLK_COMP_POLLED };
	unsigned p, i;

	(void)state;
	for (p = 0; p < 2; p++) {
		struct mqblk_dev *dev = open_uring(
			shm_file, MQBLK_OPEN_WRITE | MQBLK_OPEN_DIRECT,
			policies[p]);

		for (i = 0; i < 3; i++) {
			struct thread_io t = { dev, i + 10 * p, -1 };
			pthread_t th;

			assert_int_equal(
				pthread_create(&th, NULL, thread_io_fn, &t), 0);
			assert_int_equal(pthread_join(th, NULL), 0);
			assert_int_equal(t.ret, 0);
			/* a new thread right after the owner ended: glibc
			 * gives it the same stack and thread-locals, and it
			 * is still another task to the kernel */
			t.seed += 50;
			t.ret = -1;
			assert_int_equal(
				pthread_create(&th, NULL, thread_io_fn, &t), 0);
			assert_int_equal(pthread_join(th, NULL), 0);
			assert_int_equal(t.ret, 0);
			/* and the opening thread in between */
			t.seed += 100;
			thread_io_fn(&t);
			assert_int_equal(t.ret, 0);
		}
		mqblk_dev_close(dev);
	}
}

/* ---- geometry ---- */

static void test_geometry_file(void **state)
{
	char path[160], err[256];
	struct mqblk_dev *dev;

	(void)state;
	dev = open_uring(shm_file, 0, -1);
	assert_int_equal(mqblk_dev_size(dev), FILE_SIZE);
	assert_int_equal(mqblk_dev_block_size(dev), 512);
	assert_int_equal(mqblk_dev_queue_depth(dev), 128);
	mqblk_dev_close(dev);

	/* a tail that is not a whole block is not offered */
	snprintf(path, sizeof(path), "%s/odd.img", shm_dir);
	assert_int_equal(make_file(path, 4096 + 100), 0);
	dev = open_uring(path, 0, -1);
	assert_int_equal(mqblk_dev_size(dev), 4096);
	mqblk_dev_close(dev);

	snprintf(path, sizeof(path), "%s/empty.img", shm_dir);
	assert_int_equal(make_file(path, 0), 0);
	assert_int_equal(open_err(path, 0, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "empty file"));

	/* the driver's keys */
	snprintf(path, sizeof(path), "%s?depth=32,queues=3", shm_file);
	dev = open_uring(path, 0, -1);
	assert_int_equal(mqblk_dev_queue_depth(dev), 32);
	mqblk_dev_close(dev);
}

static void test_geometry_loop(void **state)
{
	struct mqblk_dev *dev;
	uint64_t size = 0;
	int fd, ssz = 0;

	(void)state;
	need_loop();
	fd = open(loop_dev, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(ioctl(fd, BLKGETSIZE64, &size), 0);
	assert_int_equal(ioctl(fd, BLKSSZGET, &ssz), 0);
	close(fd);
	assert_int_equal(size, FILE_SIZE);
	dev = open_uring(loop_dev, 0, -1);
	assert_int_equal(mqblk_dev_size(dev), size);
	assert_int_equal(mqblk_dev_block_size(dev), (uint32_t)ssz);
	mqblk_dev_close(dev);
}

/* ---- data ---- */

static void test_rw_shm_buffered(void **state)
{
	(void)state;
	all_policies(shm_file, MQBLK_OPEN_WRITE);
}

static void test_rw_shm_direct(void **state)
{
	(void)state;
	all_policies(shm_file, MQBLK_OPEN_WRITE | MQBLK_OPEN_DIRECT);
}

static void test_rw_tmp_direct(void **state)
{
	(void)state;
	all_policies(tmp_file, MQBLK_OPEN_WRITE | MQBLK_OPEN_DIRECT);
}

static void test_rw_loop(void **state)
{
	(void)state;
	need_loop();
	all_policies(loop_dev, MQBLK_OPEN_WRITE);
	/* polled + O_DIRECT on a block device: an IOPOLL ring */
	all_policies(loop_dev, MQBLK_OPEN_WRITE | MQBLK_OPEN_DIRECT);
}

static void test_rw_options(void **state)
{
	char uri[256];

	(void)state;
	snprintf(uri, sizeof(uri), "%s?registerfiles=0", shm_file);
	rw_roundtrip(uri, MQBLK_OPEN_WRITE, -1, MQBLK_PATH_LOCAL);
	snprintf(uri, sizeof(uri), "%s?sqpoll=1,sqthread_idle=10", shm_file);
	rw_roundtrip(uri, MQBLK_OPEN_WRITE, -1, MQBLK_PATH_LOCAL);
	rw_roundtrip(uri, MQBLK_OPEN_WRITE, MQBLK_COMP_POLLED,
		     MQBLK_PATH_POLLED);
	snprintf(uri, sizeof(uri), "%s?depth=32", tmp_file);
	rw_roundtrip(uri, MQBLK_OPEN_WRITE, -1, MQBLK_PATH_LOCAL);
}

/* What the file holds, read behind the driver's back. */
static void expect_file_bytes(const char *path, uint64_t off, uint32_t len,
			      uint8_t want)
{
	uint8_t *b = malloc(len);
	int fd = open(path, O_RDONLY);
	uint32_t i;

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, b, len, (off_t)off), (ssize_t)len);
	close(fd);
	for (i = 0; i < len; i++)
		if (b[i] != want)
			fail_msg("%s: byte %llu is %#x, not %#x", path,
				 (unsigned long long)(off + i), b[i], want);
	free(b);
}

static void flush_discard_zeroes(const char *path, unsigned flags, int policy)
{
	struct mqblk_dev *dev = open_uring(path, flags, policy);
	struct mqblk_queue *q;
	uint8_t *w = abuf(16 * BS), *r = abuf(16 * BS), *z = abuf(16 * BS);
	uint64_t base = 2u << 20;

	memset(z, 0, 16 * BS);
	assert_int_equal(mqblk_queue_open(dev, &q), 0);
	memset(w, 0x5a, 16 * BS);
	assert_int_equal(uring_io(q, MQBLK_OP_WRITE, base, 16 * BS, w, 0),
			 (int)(16 * BS));
	assert_true(uring_io(q, MQBLK_OP_FLUSH, 0, 0, NULL, 0) >= 0);
	/* discard the middle 8 blocks */
	assert_true(uring_io(q, MQBLK_OP_DISCARD, base + 4 * BS, 8 * BS, NULL,
			     0) >= 0);
	assert_int_equal(uring_io(q, MQBLK_OP_READ, base, 16 * BS, r, 0),
			 (int)(16 * BS));
	assert_memory_equal(r, w, 4 * BS);
	assert_memory_equal(r + 4 * BS, z, 8 * BS);
	assert_memory_equal(r + 12 * BS, w, 4 * BS);
	/* write zeroes over the first 4 */
	assert_true(uring_io(q, MQBLK_OP_WRITE_ZEROES, base, 4 * BS, NULL, 0) >=
		    0);
	assert_int_equal(uring_io(q, MQBLK_OP_READ, base, 16 * BS, r, 0),
			 (int)(16 * BS));
	assert_memory_equal(r, z, 12 * BS);
	assert_memory_equal(r + 12 * BS, w, 4 * BS);
	assert_true(uring_io(q, MQBLK_OP_FLUSH, 0, 0, NULL, 0) >= 0);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
	free(w);
	free(r);
	free(z);
}

static void test_flush_discard_zeroes_files(void **state)
{
	(void)state;
	flush_discard_zeroes(shm_file, MQBLK_OPEN_WRITE, -1);
	expect_file_bytes(shm_file, (2u << 20), 12 * BS, 0);
	expect_file_bytes(shm_file, (2u << 20) + 12 * BS, 4 * BS, 0x5a);
	flush_discard_zeroes(tmp_file, MQBLK_OPEN_WRITE | MQBLK_OPEN_DIRECT,
			     -1);
	expect_file_bytes(tmp_file, (2u << 20), 12 * BS, 0);
}

static void test_flush_discard_zeroes_loop(void **state)
{
	(void)state;
	need_loop();
	flush_discard_zeroes(loop_dev, MQBLK_OPEN_WRITE, -1);
	/* IOPOLL ring: these run as syscalls */
	flush_discard_zeroes(loop_dev, MQBLK_OPEN_WRITE | MQBLK_OPEN_DIRECT,
			     MQBLK_COMP_POLLED);
}

/* ---- errors ---- */

static void test_err_missing_file(void **state)
{
	char path[160], err[256];

	(void)state;
	snprintf(path, sizeof(path), "%s/nope.img", shm_dir);
	assert_int_equal(open_err(path, 0, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, strerror(ENOENT)));
	assert_int_equal(open_err("./no/such/disk.img", MQBLK_OPEN_WRITE, err,
				  sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "./no/such/disk.img"));
}

static void test_err_readonly_loop(void **state)
{
	struct mqblk_dev *dev;
	char err[256];
	int ret;

	(void)state;
	need_loop_dev(loop_ro_dev);
	ret = open_err(loop_ro_dev, MQBLK_OPEN_WRITE, err, sizeof(err));
	if (ret != -EROFS && ret != -EACCES)
		fail_msg("read-only loop opened for write: %d %s", ret, err);
	assert_non_null(strstr(err, loop_ro_dev));
	assert_non_null(strstr(err, strerror(-ret)));
	/* a read job still works on it */
	dev = open_uring(loop_ro_dev, 0, -1);
	mqblk_dev_close(dev);
}

static void test_err_not_a_file(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(open_err(shm_dir, 0, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, shm_dir));
	assert_int_equal(open_err("/dev/null", 0, err, sizeof(err)), -EINVAL);
}

static void test_err_unknown_and_bad_keys(void **state)
{
	char uri[256], err[256];

	(void)state;
	snprintf(uri, sizeof(uri), "%s?bogus=1", shm_file);
	assert_int_equal(open_err(uri, 0, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "bogus"));
	snprintf(uri, sizeof(uri), "%s?registerfiles=2", shm_file);
	assert_int_equal(open_err(uri, 0, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "registerfiles"));
	snprintf(uri, sizeof(uri), "%s?depth=0", shm_file);
	assert_int_equal(open_err(uri, 0, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "depth"));
}

static void test_err_beyond_eof(void **state)
{
	struct mqblk_dev *dev = open_uring(shm_file, 0, -1);
	struct mqblk_queue_stats st;
	struct mqblk_queue *q;
	struct mqblk_rq *rq;
	uint8_t *b = abuf(BS);

	(void)state;
	assert_int_equal(mqblk_queue_open(dev, &q), 0);
	rq = mqblk_rq_get(q, 0);
	rq->op = MQBLK_OP_READ;
	rq->offset = FILE_SIZE;
	rq->len = BS;
	rq->buf = b;
	assert_int_equal(mqblk_submit(rq), -EINVAL);
	rq->offset = FILE_SIZE - 512;
	assert_int_equal(mqblk_submit(rq), -EINVAL);
	/* a write on a device opened read-only is refused at submit */
	rq->op = MQBLK_OP_WRITE;
	rq->offset = 0;
	assert_int_equal(mqblk_submit(rq), -EBADF);
	mqblk_rq_put(rq);
	assert_int_equal(uring_io(q, MQBLK_OP_READ, 0, BS, b, 0), (int)BS);
	mqblk_queue_get_stats(q, &st);
	assert_int_equal(st.submitted, 1);
	assert_int_equal(st.errors, 0);
	assert_int_equal(total_completions(&st), 1);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_geometry_file),
		cmocka_unit_test(test_geometry_loop),
		cmocka_unit_test(test_rw_shm_buffered),
		cmocka_unit_test(test_rw_shm_direct),
		cmocka_unit_test(test_rw_tmp_direct),
		cmocka_unit_test(test_rw_loop),
		cmocka_unit_test(test_rw_options),
		cmocka_unit_test(test_fixed_buffers),
		cmocka_unit_test(test_fixed_buffers_refused),
		cmocka_unit_test(test_sole_submitter_changes_thread),
		cmocka_unit_test(test_flush_discard_zeroes_files),
		cmocka_unit_test(test_flush_discard_zeroes_loop),
		cmocka_unit_test(test_err_missing_file),
		cmocka_unit_test(test_err_readonly_loop),
		cmocka_unit_test(test_err_not_a_file),
		cmocka_unit_test(test_err_unknown_and_bad_keys),
		cmocka_unit_test(test_err_beyond_eof),
	};

	const char *ci = getenv("CI");
	int nr_failed;

	nr_failed = cmocka_run_group_tests(tests, group_setup, group_teardown);
	if (nr_failed || !nr_loop_skipped)
		return nr_failed ? 1 : 0;
	if (kernel_lacks_loop()) {
		printf("SKIP: %u loop-device cases: this kernel has no loop "
		       "driver (no loop-control device; %s)\n",
		       nr_loop_skipped, loop_why);
		return 77;
	}
	if (ci && !strcmp(ci, "true")) {
		printf("FAIL: %u loop-device cases skipped under CI=true, "
		       "where root must set a loop device up: %s\n",
		       nr_loop_skipped, loop_why);
		return 1;
	}
	printf("SKIP: %u loop-device cases: %s\n", nr_loop_skipped, loop_why);
	return 77;
}
