// SPDX-License-Identifier: MIT
/*
 * The uring driver: a regular file or a block device behind one io_uring
 * per hardware queue (liburing). The ring plays the device's submission
 * and completion queues: queue_rq fills SQEs, the last request of a batch
 * (or commit_rqs) rings the doorbell with one io_uring_submit, and poll
 * reaps CQEs. Interrupt-style policies get an eventfd registered with the
 * ring as the hardware queue's interrupt; the polled policy gets an
 * IORING_SETUP_IOPOLL ring where the device can do it (O_DIRECT on a block
 * device), else a plain ring whose CQ the submitter peeks.
 *
 * Choices worth knowing:
 * - A short read or write completes with -EIO (NVMe "unrecovered read
 *   error" / "write fault"); the remainder is not resubmitted. The core
 *   keeps requests inside the device, so a short transfer means the file
 *   shrank or the device failed.
 * - An io_uring request cannot be taken back: on timeout the driver asks
 *   the kernel to cancel it (IORING_OP_ASYNC_CANCEL) and keeps the timer
 *   running; the request completes through its own CQE, -ETIMEDOUT if the
 *   cancel won, its real result if not. A cancel loses for good where the
 *   request is not the ring's to cancel (a read handed to a FUSE daemon,
 *   an NFS server, a hung disk): after timeout_rearms= cancels the driver
 *   declares the device failed (one line, mqblk_dev_mark_dead), as the
 *   NVMe driver does a controller past its abort and reset. New requests
 *   then fail at once with -EIO instead of queueing behind the stuck one;
 *   the stuck one keeps its tag and buffer, which the kernel may still
 *   write, until its CQE comes, if ever (with its real result).
 * - An IOPOLL ring accepts only reads and writes: flush, discard and write
 *   zeroes run as plain syscalls inside queue_rq and complete inline.
 * - Discard and write zeroes are fallocate: PUNCH_HOLE|KEEP_SIZE (a hole
 *   reads back as zeros in a file; a block device zeroes it without
 *   fallback), and for block devices ZERO_RANGE for write zeroes.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <liburing.h>

#include <mqblk/driver.h>

#define URING_DEFAULT_DEPTH 128
#define URING_MAX_DEPTH 16384
#define URING_REAP_BATCH 64
/* registered-buffer slots per ring: one per software queue mapping one */
#define URING_MAX_BUFS 16
/* a sole submitter's longest sleep where it cannot be kicked (no
 * MSG_RING): how soon it rings a doorbell the timeout thread filled */
#define URING_KICK_NS (10 * 1000 * 1000)
/* cancels a request gets before the device is declared failed */
#define URING_DEFAULT_REARMS 4
#define URING_MAX_REARMS 1000000

/* user_data: the request pointer, its incarnation in the top 16 bits (a
 * cancel then never hits a later reuse of the tag); 1 marks a CQE that is
 * no request's: a cancel's own, or a kick (uring_kick). */
#define URING_UD_CANCEL 1ull
#define URING_UD_PTR_MASK ((1ull << 48) - 1)

/* NVMe status codes, (SCT << 8) | SC */
#define NVME_SC_INVALID_OPCODE 0x0001
#define NVME_SC_INTERNAL 0x0006
#define NVME_SC_WRITE_FAULT 0x0280
#define NVME_SC_READ_ERROR 0x0281
#define NVME_SC_HOST_ABORT 0x0371

struct uring_dev {
	char *path;
	int fd;
	bool is_blk;
	bool direct;
	bool registerfiles;
	bool sqpoll;
	unsigned sqthread_idle; /* ms, 0 = kernel default */
	unsigned timeout_rearms; /* cancels before the device is failed */
	atomic_bool dead; /* a request outlived its cancels: fail new I/O */
	atomic_bool warned_iopoll;
	atomic_bool warned_sqpoll;
	atomic_bool warned_files;
	/* the timeout thread's ring for waking a sole submitter */
	pthread_mutex_t kick_lock;
	struct io_uring kick_ring;
	bool kick_ready;
	atomic_bool kick_failed; /* read by submitters, unlocked */
};

struct uring_buf {
	uintptr_t base; /* 0: free slot */
	size_t len;
};

struct uring_hctx {
	struct io_uring ring;
	struct uring_dev *ud;
	int efd; /* registered eventfd: the interrupt, -1 when none */
	int fd; /* what SQEs name: 0 (fixed file) or the descriptor */
	uint8_t sqe_flags;
	bool iopoll;
	/* one thread submits and reaps (mqblk_hctx_sole_submitter): the
	 * ring is SINGLE_ISSUER|DEFER_TASKRUN where the kernel has them */
	bool single;
	bool files_registered;
	bool bufs_table; /* a sparse registered-buffer table exists */
	unsigned depth;
	unsigned setup_flags; /* what the ring was made with, to remake it */
	uint64_t owner; /* single: the thread the ring belongs to (uring_self) */
	/* serialises the SQ side: queue_rq/commit_rqs against timeout */
	pthread_spinlock_t sq_lock;
	unsigned unsubmitted; /* SQEs filled, doorbell not yet rung */
	atomic_bool retry; /* a doorbell is owed: poll rings it */
	unsigned nr_bufs; /* slots in use are below this; under sq_lock */
	struct uring_buf bufs[URING_MAX_BUFS];
	/* read at exit only, when nothing runs: in flight = issued - reaped */
	uint64_t issued; /* under sq_lock */
	uint64_t reaped; /* poll side */
};

/*
 * Per request: what the completion side needs of it, published with a
 * release store before the doorbell. The kernel orders the rest, but
 * tools like TSan cannot see through io_uring; this makes the hand-over
 * visible at the cost of a plain store and load on x86.
 */
struct uring_cmd {
	_Atomic uint64_t info; /* len << 32 | op */
	/* the timeout thread's: cancels sent for this incarnation (zeroed
	 * by queue_rq before the doorbell) and when it first timed out */
	_Atomic unsigned cancels;
	_Atomic uint64_t first_timeout_ns;
};

/*
 * The calling thread's number (a SINGLE_ISSUER ring's owner), from 1,
 * never reused: a thread-local's address would be, by a thread started
 * after the owner ended, which would then take the ring for its own and
 * be refused by the kernel (-EEXIST) instead of remaking it.
 */
static _Atomic uint64_t uring_threads;
static _Thread_local uint64_t uring_thread_id;

static inline uint64_t uring_self(void)
{
	if (__builtin_expect(!uring_thread_id, 0))
		uring_thread_id =
			atomic_fetch_add_explicit(&uring_threads, 1,
						  memory_order_relaxed) +
			1;
	return uring_thread_id;
}

static inline uint64_t uring_rq_ud(const struct mqblk_rq *rq)
{
	return (uint64_t)(uintptr_t)rq | ((uint64_t)(rq->gen & 0xffff) << 48);
}

/* Open the file and find its geometry; fills ud->fd, lim. */
static int uring_open(struct uring_dev *ud, unsigned flags,
		      struct mqblk_dev_limits *lim, char *err, size_t errlen)
{
	int oflags = O_CLOEXEC;
	uint64_t size = 0;
	uint32_t lbs = 512;
	struct stat st;
	int ret;

	oflags |= flags & MQBLK_OPEN_WRITE ? O_RDWR : O_RDONLY;
	if (flags & MQBLK_OPEN_DIRECT)
		oflags |= O_DIRECT;
	if (flags & MQBLK_OPEN_SYNC)
		oflags |= O_SYNC;
	else if (flags & MQBLK_OPEN_DSYNC)
		oflags |= O_DSYNC;
	ud->direct = flags & MQBLK_OPEN_DIRECT;
	ud->fd = open(ud->path, oflags);
	if (ud->fd < 0) {
		ret = -errno;
		if (ret == -EINVAL && ud->direct)
			snprintf(
				err, errlen,
				"%s: O_DIRECT refused by the filesystem (EINVAL)",
				ud->path);
		else
			snprintf(err, errlen, "%s: %s", ud->path,
				 strerror(-ret));
		return ret;
	}
	if (fstat(ud->fd, &st))
		goto out_errno;
	if (S_ISBLK(st.st_mode)) {
		int ssz = 0;

		int ro = 0;

		ud->is_blk = true;
		if (ioctl(ud->fd, BLKGETSIZE64, &size) ||
		    ioctl(ud->fd, BLKSSZGET, &ssz) ||
		    ioctl(ud->fd, BLKROGET, &ro))
			goto out_errno;
		/* the kernel opens a read-only device for writing and
		 * fails each write: refuse up front, as open(2) would */
		if (ro && (flags & MQBLK_OPEN_WRITE)) {
			snprintf(err, errlen, "%s: %s", ud->path,
				 strerror(EROFS));
			ret = -EROFS;
			goto out_close;
		}
		if (ssz >= 512 && !(ssz & (ssz - 1)))
			lbs = (uint32_t)ssz;
	} else if (S_ISREG(st.st_mode)) {
		size = (uint64_t)st.st_size;
	} else {
		snprintf(err, errlen, "%s: not a regular file or block device",
			 ud->path);
		ret = -EINVAL;
		goto out_close;
	}
	size -= size % lbs;
	if (!size) {
		snprintf(err, errlen, "%s: empty %s", ud->path,
			 ud->is_blk ? "device" : "file");
		ret = -EINVAL;
		goto out_close;
	}
	lim->capacity = size;
	lim->logical_block_size = lbs;
	return 0;

out_errno:
	ret = -errno;
	snprintf(err, errlen, "%s: %s", ud->path, strerror(-ret));
out_close:
	close(ud->fd);
	ud->fd = -1;
	return ret;
}

static int uring_init(struct mqblk_dev *dev, struct mqblk_params *params,
		      struct mqblk_dev_limits *lim, char *err, size_t errlen)
{
	struct uring_dev *ud = calloc(1, sizeof(*ud));
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned queues = cpus > 0 ? (unsigned)cpus : 1;
	unsigned depth = lim->queue_depth ? lim->queue_depth :
					    URING_DEFAULT_DEPTH;
	const char *path = NULL;
	uint64_t v;
	unsigned i;
	int ret;

	if (!ud)
		return -ENOMEM;
	ud->fd = -1;
	ud->registerfiles = true;
	ud->timeout_rearms = URING_DEFAULT_REARMS;
	pthread_mutex_init(&ud->kick_lock, NULL);
	for (i = 0; i < params->nr; i++) {
		struct mqblk_param *p = &params->v[i];
		int r = 0;

		if (!strcmp(p->key, "path")) {
			path = p->val;
		} else if (!strcmp(p->key, "registerfiles")) {
			r = mqblk_param_bool(p, &ud->registerfiles, err,
					     errlen);
		} else if (!strcmp(p->key, "sqpoll")) {
			r = mqblk_param_bool(p, &ud->sqpoll, err, errlen);
		} else if (!strcmp(p->key, "sqthread_idle")) {
			r = mqblk_param_u64(p, 0, 3600 * 1000, false, &v, err,
					    errlen);
			ud->sqthread_idle = (unsigned)v;
		} else if (!strcmp(p->key, "timeout_rearms")) {
			r = mqblk_param_u64(p, 0, URING_MAX_REARMS, false, &v,
					    err, errlen);
			ud->timeout_rearms = (unsigned)v;
		} else if (!strcmp(p->key, "queues")) {
			r = mqblk_param_u64(p, 1, 4096, false, &v, err, errlen);
			queues = (unsigned)v;
		} else if (!strcmp(p->key, "depth")) {
			r = mqblk_param_u64(p, 1, URING_MAX_DEPTH, false, &v,
					    err, errlen);
			depth = (unsigned)v;
		} else {
			continue;
		}
		if (r) {
			free(ud);
			return r;
		}
		p->used = true;
	}
	if (!path || !*path) {
		snprintf(err, errlen, "uring: no path given");
		free(ud);
		return -EINVAL;
	}
	if (depth > URING_MAX_DEPTH) {
		snprintf(err, errlen, "%s: queue depth %u above %u", path,
			 depth, URING_MAX_DEPTH);
		free(ud);
		return -EINVAL;
	}
	ud->path = strdup(path);
	if (!ud->path) {
		free(ud);
		return -ENOMEM;
	}
	ret = uring_open(ud, mqblk_dev_open_flags(dev), lim, err, errlen);
	if (ret) {
		free(ud->path);
		free(ud);
		return ret;
	}
	lim->max_hw_queues = queues;
	lim->queue_depth = depth;
	lim->shared_tags = false;
	lim->cmd_size = sizeof(struct uring_cmd);
	lim->default_policy = MQBLK_COMP_LOCAL;
	lim->has_irq = true;
	mqblk_dev_set_data(dev, ud);
	return 0;
}

static void uring_exit(struct mqblk_dev *dev)
{
	struct uring_dev *ud = mqblk_dev_data(dev);

	if (!ud)
		return;
	if (ud->kick_ready)
		io_uring_queue_exit(&ud->kick_ring);
	pthread_mutex_destroy(&ud->kick_lock);
	if (ud->fd >= 0)
		close(ud->fd);
	free(ud->path);
	free(ud);
}

/* ---- hw queues ---- */

static void uring_warn_once(atomic_bool *flag, const char *path,
			    const char *what)
{
	if (!atomic_exchange(flag, true))
		fprintf(stderr, "mqblk: uring: %s: %s\n", path, what);
}

/* Make a ring with exactly these setup flags; the calling thread becomes
 * a SINGLE_ISSUER ring's owner. */
static int uring_ring_init(const struct uring_hctx *uh, struct io_uring *ring,
			   unsigned flags)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	p.cq_entries = 2 * uh->depth;
	if (flags & IORING_SETUP_SQPOLL)
		p.sq_thread_idle = uh->ud->sqthread_idle;
	return io_uring_queue_init_params(uh->depth, ring, &p);
}

static int uring_ring_setup(struct uring_hctx *uh, unsigned flags)
{
	/*
	 * Task-work modes, best first; an older kernel refuses a flag with
	 * -EINVAL and gets the next. COOP_TASKRUN (5.19): completions that
	 * io-wq workers finish reach the submitter as task work without an
	 * IPI (tmpfs file, QD64 here: 208k -> 403k IOPS). DEFER_TASKRUN
	 * (6.1, needs SINGLE_ISSUER): that task work waits until the owner
	 * asks for completions, and wakes it only when enough are there to
	 * end its wait. Only for a sole submitter: another thread could not
	 * reap (or even submit) on such a ring.
	 */
	static const unsigned modes[] = {
		IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER |
			IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_COOP_TASKRUN,
		0,
	};
	unsigned i = uh->single && !(flags & IORING_SETUP_SQPOLL) ? 0 : 1;
	int ret;

	flags |= IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP |
		 IORING_SETUP_SUBMIT_ALL;
	for (; i < sizeof(modes) / sizeof(modes[0]); i++) {
		ret = uring_ring_init(uh, &uh->ring, flags | modes[i]);
		if (ret != -EINVAL)
			break;
	}
	if (!ret) {
		uh->setup_flags = flags | modes[i];
		uh->owner = uring_self();
	}
	if (!(uh->setup_flags & IORING_SETUP_SINGLE_ISSUER))
		uh->single = false;
	return ret;
}

/* Does this IOPOLL ring take a read? Some devices only say so on I/O. */
static int uring_iopoll_probe(struct uring_hctx *uh, uint32_t lbs)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&uh->ring);
	struct io_uring_cqe *cqe;
	size_t len = lbs > 4096 ? lbs : 4096;
	void *buf;
	int ret;

	if (!sqe || posix_memalign(&buf, 4096, len))
		return -ENOMEM;
	io_uring_prep_read(sqe, uh->ud->fd, buf, lbs, 0);
	io_uring_sqe_set_data64(sqe, 2);
	ret = io_uring_submit(&uh->ring);
	if (ret == 1) {
		ret = io_uring_wait_cqe(&uh->ring, &cqe);
		if (!ret) {
			ret = cqe->res < 0 ? cqe->res : 0;
			io_uring_cqe_seen(&uh->ring, cqe);
		}
	} else if (ret >= 0) {
		ret = -EIO;
	}
	free(buf);
	return ret;
}

/* Ring with the wanted modes, dropping (with one line) what is refused. */
static int uring_ring_create(struct uring_hctx *uh, bool want_iopoll,
			     uint32_t lbs)
{
	struct uring_dev *ud = uh->ud;
	unsigned flags = 0;
	int ret;

	if (want_iopoll)
		flags |= IORING_SETUP_IOPOLL;
	if (ud->sqpoll)
		flags |= IORING_SETUP_SQPOLL;
	for (;;) {
		bool probed = false;
		char msg[128];

		ret = uring_ring_setup(uh, flags);
		if (!ret && (flags & IORING_SETUP_IOPOLL)) {
			/* any failure of the probe read: do without */
			ret = uring_iopoll_probe(uh, lbs);
			probed = true;
			if (ret)
				io_uring_queue_exit(&uh->ring);
		}
		if (!ret)
			break;
		if ((flags & IORING_SETUP_IOPOLL) &&
		    (probed || ret == -EOPNOTSUPP || ret == -EINVAL)) {
			flags &= ~IORING_SETUP_IOPOLL;
			snprintf(msg, sizeof(msg),
				 "IOPOLL not supported (%s), polling the "
				 "completion queue instead",
				 strerror(-ret));
			uring_warn_once(&ud->warned_iopoll, ud->path, msg);
			continue;
		}
		if (flags & IORING_SETUP_SQPOLL) {
			flags &= ~IORING_SETUP_SQPOLL;
			snprintf(msg, sizeof(msg),
				 "SQPOLL refused (%s), submitting from the "
				 "caller instead",
				 strerror(-ret));
			uring_warn_once(&ud->warned_sqpoll, ud->path, msg);
			continue;
		}
		return ret;
	}
	uh->iopoll = flags & IORING_SETUP_IOPOLL;
	return 0;
}

/* Register on a remade ring what uh's ring had: the file, the buffer
 * table and the buffers mapped in it. */
static int uring_ring_register(struct uring_hctx *uh, struct io_uring *ring)
{
	struct uring_dev *ud = uh->ud;
	unsigned i;
	int ret;

	if (uh->files_registered) {
		ret = io_uring_register_files(ring, &ud->fd, 1);
		if (ret)
			return ret;
	}
	if (uh->bufs_table) {
		ret = io_uring_register_buffers_sparse(ring, URING_MAX_BUFS);
		if (ret)
			return ret;
	}
	for (i = 0; i < uh->nr_bufs; i++) {
		struct iovec iov = { (void *)uh->bufs[i].base,
				     uh->bufs[i].len };

		if (uh->bufs[i].len && io_uring_register_buffers_update_tag(
					       ring, i, &iov, NULL, 1) != 1)
			return -ENOMEM;
	}
	return 0;
}

/*
 * A sole submitter's queue closed and another thread's opened: a
 * SINGLE_ISSUER ring answers only the thread that made it, so make the
 * ring again, as this thread. Nothing is in flight: the core drained the
 * old queue before closing it.
 */
static int uring_rehome(struct uring_hctx *uh)
{
	struct io_uring ring, old;
	int ret;

	ret = uring_ring_init(uh, &ring, uh->setup_flags);
	if (!ret) {
		ret = uring_ring_register(uh, &ring);
		if (ret)
			io_uring_queue_exit(&ring);
	}
	if (ret) {
		/* the old ring stays (its owner's calls fail cleanly); the
		 * request fails and the next one tries again */
		fprintf(stderr,
			"mqblk: uring: %s: cannot remake the ring for a new "
			"submitter: %s\n",
			uh->ud->path, strerror(-ret));
		return ret;
	}
	pthread_spin_lock(&uh->sq_lock);
	old = uh->ring;
	uh->ring = ring;
	uh->owner = uring_self();
	uh->unsubmitted = 0;
	uh->reaped = uh->issued;
	atomic_store_explicit(&uh->retry, false, memory_order_relaxed);
	pthread_spin_unlock(&uh->sq_lock);
	io_uring_queue_exit(&old);
	return 0;
}

static inline int uring_own(struct uring_hctx *uh)
{
	if (__builtin_expect(uh->single && uh->owner != uring_self(), 0))
		return uring_rehome(uh);
	return 0;
}

static int uring_init_hctx(struct mqblk_hctx *hctx, unsigned idx)
{
	struct mqblk_dev *dev = mqblk_hctx_dev(hctx);
	struct uring_dev *ud = mqblk_dev_data(dev);
	bool polled = mqblk_dev_comp_policy(dev) == MQBLK_COMP_POLLED;
	struct uring_hctx *uh;
	int ret;

	(void)idx;
	if (posix_memalign((void **)&uh, 64, sizeof(*uh)))
		return -ENOMEM;
	memset(uh, 0, sizeof(*uh));
	uh->ud = ud;
	uh->efd = -1;
	uh->fd = ud->fd;
	uh->depth = mqblk_hctx_depth(hctx);
	uh->single = mqblk_hctx_sole_submitter(hctx);
	pthread_spin_init(&uh->sq_lock, PTHREAD_PROCESS_PRIVATE);
	ret = uring_ring_create(uh, polled && ud->direct && ud->is_blk,
				mqblk_dev_block_size(dev));
	if (ret)
		goto out_free;
	if (ud->registerfiles) {
		if (!io_uring_register_files(&uh->ring, &ud->fd, 1)) {
			uh->fd = 0;
			uh->sqe_flags = IOSQE_FIXED_FILE;
			uh->files_registered = true;
		} else {
			uring_warn_once(&ud->warned_files, ud->path,
					"cannot register the file, using "
					"its descriptor");
		}
	}
	/* slots for mqblk_queue_map_buf(); without them (before 5.19)
	 * map_buf says -EOPNOTSUPP */
	uh->bufs_table =
		!io_uring_register_buffers_sparse(&uh->ring, URING_MAX_BUFS);
	/*
	 * Interrupt-style policies get an eventfd; a sole LOCAL submitter
	 * does not need one: it sleeps in io_uring_enter (the wait op), and
	 * an eventfd would cost a signal per completion and a read per reap.
	 */
	if (!polled && !uh->single) {
		uh->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (uh->efd < 0) {
			ret = -errno;
			goto out_ring;
		}
		ret = io_uring_register_eventfd(&uh->ring, uh->efd);
		if (ret)
			goto out_efd;
		mqblk_hctx_set_irq_fd(hctx, uh->efd);
	}
	mqblk_hctx_set_data(hctx, uh);
	return 0;

out_efd:
	close(uh->efd);
out_ring:
	io_uring_queue_exit(&uh->ring);
out_free:
	pthread_spin_destroy(&uh->sq_lock);
	free(uh);
	return ret;
}

static void uring_exit_hctx(struct mqblk_hctx *hctx)
{
	struct uring_hctx *uh = mqblk_hctx_data(hctx);
	struct io_uring_sqe *sqe;

	if (!uh)
		return;
	/*
	 * The core closes queues only after their I/O is reaped; anything
	 * still in flight (a request given up on) is cancelled and waited
	 * for, so the kernel is done with its buffer before we return. A
	 * SINGLE_ISSUER ring takes no call from another thread: its owner's
	 * exit cancels and waits for its requests (the kernel does that for
	 * every exiting task), and closing the ring cancels the rest.
	 */
	if (uh->issued != uh->reaped &&
	    (!uh->single || uh->owner == uring_self())) {
		struct __kernel_timespec ts = { .tv_sec = 1 };
		struct io_uring_cqe *cqe;
		uint64_t left = uh->issued - uh->reaped;

		sqe = io_uring_get_sqe(&uh->ring);
		if (sqe) {
			io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY);
			io_uring_sqe_set_data64(sqe, URING_UD_CANCEL);
		}
		io_uring_submit(&uh->ring);
		while (left &&
		       !io_uring_wait_cqe_timeout(&uh->ring, &cqe, &ts)) {
			if (cqe->user_data != URING_UD_CANCEL)
				left--;
			io_uring_cqe_seen(&uh->ring, cqe);
		}
	}
	io_uring_queue_exit(&uh->ring);
	if (uh->efd >= 0)
		close(uh->efd);
	pthread_spin_destroy(&uh->sq_lock);
	free(uh);
}

/*
 * Wake a sole submitter sleeping in io_uring_enter on its ring: post it a
 * CQE (IORING_OP_MSG_RING) from a ring of the device's own, made on first
 * use. Where the kernel has no MSG_RING (before 5.18), the owner's sleep
 * is bounded instead (uring_wait). Not under sq_lock.
 */
static void uring_kick(struct uring_hctx *uh)
{
	struct uring_dev *ud = uh->ud;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;

	pthread_mutex_lock(&ud->kick_lock);
	if (!ud->kick_ready && !atomic_load(&ud->kick_failed)) {
		ud->kick_ready = !io_uring_queue_init(4, &ud->kick_ring, 0);
		atomic_store(&ud->kick_failed, !ud->kick_ready);
	}
	sqe = ud->kick_ready ? io_uring_get_sqe(&ud->kick_ring) : NULL;
	if (sqe) {
		/* MSG_RING completes at once: its CQE says if it went */
		io_uring_prep_msg_ring(sqe, uh->ring.ring_fd, 0,
				       URING_UD_CANCEL, 0);
		if (io_uring_submit_and_wait(&ud->kick_ring, 1) != 1 ||
		    io_uring_peek_cqe(&ud->kick_ring, &cqe)) {
			atomic_store(&ud->kick_failed, true);
		} else {
			if (cqe->res < 0)
				atomic_store(&ud->kick_failed, true);
			io_uring_cqe_seen(&ud->kick_ring, cqe);
		}
	}
	pthread_mutex_unlock(&ud->kick_lock);
}

/*
 * Ring the doorbell for the SQEs filled so far. Under sq_lock. Only the
 * owner may enter a SINGLE_ISSUER ring: for anyone else (the timeout
 * thread's cancel) the SQEs wait in the ring and the owner rings for them
 * in its next poll; that caller kicks the owner awake (uring_kick) once
 * it has dropped sq_lock, or the owner, woken at once, would find the
 * lock still held, skip the doorbell and sleep again with the SQEs
 * unsubmitted (cancels went out a second late, all at once).
 */
static void uring_doorbell(struct uring_hctx *uh)
{
	int ret;

	if (!uh->unsubmitted)
		return;
	if (__builtin_expect(uh->single && uh->owner != uring_self(), 0)) {
		atomic_store_explicit(&uh->retry, true, memory_order_relaxed);
		return;
	}
	ret = io_uring_submit(&uh->ring);
	if (__builtin_expect(ret < 0, 0)) {
		/* -EAGAIN/-EBUSY: the SQEs stay in the ring; poll retries */
		atomic_store_explicit(&uh->retry, true, memory_order_relaxed);
		return;
	}
	uh->unsubmitted = 0;
	if (__builtin_expect(
		    atomic_load_explicit(&uh->retry, memory_order_relaxed), 0))
		atomic_store_explicit(&uh->retry, false, memory_order_relaxed);
}

/* An IOPOLL ring takes only reads and writes: do the rest here. */
static int uring_sync_op(struct uring_hctx *uh, struct mqblk_rq *rq, int mode)
{
	int fd = uh->ud->fd;
	int ret;

	if (rq->op == MQBLK_OP_FLUSH)
		ret = fdatasync(fd);
	else
		ret = fallocate(fd, mode, (off_t)rq->offset, (off_t)rq->len);
	return ret ? -errno : (int)rq->len;
}

static void uring_complete(struct mqblk_rq *rq, enum mqblk_op op, uint32_t len,
			   int res);
static void uring_commit_rqs(struct mqblk_hctx *hctx);

/* The registered buffer [buf, buf+len) lies in, or -1. Under sq_lock. */
static inline int uring_buf_index(const struct uring_hctx *uh, void *buf,
				  uint32_t len)
{
	uintptr_t b = (uintptr_t)buf;
	unsigned i;

	for (i = 0; i < uh->nr_bufs; i++)
		if (b - uh->bufs[i].base < uh->bufs[i].len &&
		    uh->bufs[i].len - (b - uh->bufs[i].base) >= len)
			return (int)i;
	return -1;
}

/* A read or write SQE, READ_FIXED/WRITE_FIXED when rq->buf lies in a
 * registered buffer. Under sq_lock. */
static inline void uring_prep_rw(const struct uring_hctx *uh,
				 struct io_uring_sqe *sqe,
				 const struct mqblk_rq *rq, bool write)
{
	static const uint8_t ops[2][2] = {
		{ IORING_OP_READ, IORING_OP_READ_FIXED },
		{ IORING_OP_WRITE, IORING_OP_WRITE_FIXED },
	};
	int buf = uring_buf_index(uh, rq->buf, rq->len);

	io_uring_prep_rw(ops[write][buf >= 0], sqe, uh->fd, rq->buf, rq->len,
			 rq->offset);
	if (buf >= 0)
		sqe->buf_index = (uint16_t)buf;
}

static enum mqblk_status uring_queue_rq(struct mqblk_hctx *hctx,
					struct mqblk_rq *rq, bool last)
{
	struct uring_hctx *uh = mqblk_hctx_data(hctx);
	struct io_uring_sqe *sqe;
	struct uring_cmd *cmd;
	int mode = 0;

	if (__builtin_expect(atomic_load_explicit(&uh->ud->dead,
						  memory_order_relaxed),
			     0)) {
		/* a failed device: at once, not behind the stuck request */
		mqblk_complete_rq(rq, -EIO, NVME_SC_INTERNAL);
		if (last)
			uring_commit_rqs(hctx);
		return MQBLK_STS_OK;
	}
	if (rq->op == MQBLK_OP_DISCARD)
		mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
	else if (rq->op == MQBLK_OP_WRITE_ZEROES)
		mode = uh->ud->is_blk ?
			       FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE :
			       FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
	if (__builtin_expect(uh->iopoll && rq->op != MQBLK_OP_READ &&
				     rq->op != MQBLK_OP_WRITE,
			     0)) {
		uring_complete(rq, rq->op, rq->len,
			       uring_sync_op(uh, rq, mode));
		if (last) {
			pthread_spin_lock(&uh->sq_lock);
			uring_doorbell(uh);
			pthread_spin_unlock(&uh->sq_lock);
		}
		return MQBLK_STS_OK;
	}

	if (__builtin_expect(uring_own(uh), 0))
		return MQBLK_STS_ERROR;
	pthread_spin_lock(&uh->sq_lock);
	sqe = io_uring_get_sqe(&uh->ring);
	if (__builtin_expect(!sqe, 0)) {
		pthread_spin_unlock(&uh->sq_lock);
		return MQBLK_STS_BUSY; /* commit_rqs rings for the rest */
	}
	switch (rq->op) {
	case MQBLK_OP_READ:
		uring_prep_rw(uh, sqe, rq, false);
		break;
	case MQBLK_OP_WRITE:
		uring_prep_rw(uh, sqe, rq, true);
		if (rq->flags & MQBLK_REQ_FUA)
			sqe->rw_flags = RWF_DSYNC;
		break;
	case MQBLK_OP_FLUSH:
		io_uring_prep_fsync(sqe, uh->fd, IORING_FSYNC_DATASYNC);
		break;
	case MQBLK_OP_DISCARD:
	case MQBLK_OP_WRITE_ZEROES:
		io_uring_prep_fallocate(sqe, uh->fd, mode, (off_t)rq->offset,
					(off_t)rq->len);
		break;
	default:
		/* not queued: hand the slot back as a no-op */
		io_uring_prep_nop(sqe);
		io_uring_sqe_set_data64(sqe, URING_UD_CANCEL);
		uh->unsubmitted++;
		if (last)
			uring_doorbell(uh);
		pthread_spin_unlock(&uh->sq_lock);
		return MQBLK_STS_ERROR;
	}
	sqe->flags |= uh->sqe_flags;
	io_uring_sqe_set_data64(sqe, uring_rq_ud(rq));
	cmd = mqblk_rq_pdu(rq);
	atomic_store_explicit(&cmd->cancels, 0, memory_order_relaxed);
	atomic_store_explicit(&cmd->info,
			      (uint64_t)rq->len << 32 | (uint32_t)rq->op,
			      memory_order_release);
	uh->unsubmitted++;
	uh->issued++;
	if (last)
		uring_doorbell(uh);
	pthread_spin_unlock(&uh->sq_lock);
	return MQBLK_STS_OK;
}

static void uring_commit_rqs(struct mqblk_hctx *hctx)
{
	struct uring_hctx *uh = mqblk_hctx_data(hctx);

	pthread_spin_lock(&uh->sq_lock);
	uring_doorbell(uh);
	pthread_spin_unlock(&uh->sq_lock);
}

static void uring_complete(struct mqblk_rq *rq, enum mqblk_op op, uint32_t len,
			   int res)
{
	uint16_t status = 0;

	if (res >= 0) {
		if (op == MQBLK_OP_READ || op == MQBLK_OP_WRITE) {
			if ((uint32_t)res != len)
				res = -EIO; /* short: see the top comment */
		} else {
			res = (int)len;
		}
	}
	if (res < 0) {
		switch (res) {
		case -EIO:
			status = op == MQBLK_OP_READ ? NVME_SC_READ_ERROR :
						       NVME_SC_WRITE_FAULT;
			break;
		case -ECANCELED: /* our timeout's cancel won */
			res = -ETIMEDOUT;
			status = NVME_SC_HOST_ABORT;
			break;
		case -EOPNOTSUPP:
			status = NVME_SC_INVALID_OPCODE;
			break;
		default:
			status = NVME_SC_INTERNAL;
		}
	}
	mqblk_complete_rq(rq, res, status);
}

static int uring_poll(struct mqblk_hctx *hctx, unsigned budget)
{
	struct uring_hctx *uh = mqblk_hctx_data(hctx);
	struct io_uring *ring = &uh->ring;
	struct io_uring_cqe *cqe;
	unsigned head, seen = 0;
	uint64_t v;
	int done = 0;

	/* clear the interrupt first: a CQE posted after this raises it
	 * again, so none is left behind unsignalled */
	if (uh->efd >= 0 && read(uh->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		abort();
	if (__builtin_expect(atomic_load_explicit(&uh->retry,
						  memory_order_relaxed),
			     0)) {
		/* a doorbell that failed: ring it again */
		if (!pthread_spin_trylock(&uh->sq_lock)) {
			uring_doorbell(uh);
			pthread_spin_unlock(&uh->sq_lock);
		}
	}
	/*
	 * Polled and the CQ is empty: ask the kernel. An IOPOLL ring finds
	 * completions only then, and a plain ring may owe us task work (a
	 * request finished by an io-wq worker or a wake-up posts its CQE
	 * when this task next enters the kernel, and a poller never would).
	 */
	if (uh->efd < 0 && !io_uring_cq_ready(ring))
		io_uring_get_events(ring);
	io_uring_for_each_cqe(ring, head, cqe)
	{
		uint64_t ud = cqe->user_data, info;
		struct mqblk_rq *rq;

		if ((unsigned)done >= budget)
			break;
		seen++;
		if (ud == URING_UD_CANCEL)
			continue;
		rq = (struct mqblk_rq *)(uintptr_t)(ud & URING_UD_PTR_MASK);
		info = atomic_load_explicit(
			&((struct uring_cmd *)mqblk_rq_pdu(rq))->info,
			memory_order_acquire);
		uring_complete(rq, (enum mqblk_op)(uint32_t)info,
			       (uint32_t)(info >> 32), cqe->res);
		done++;
	}
	io_uring_cq_advance(ring, seen);
	uh->reaped += (uint64_t)done;
	/* budget spent with CQEs left: raise the interrupt again */
	if (uh->efd >= 0 && io_uring_cq_ready(ring)) {
		v = 1;
		if (write(uh->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			abort();
	}
	return done;
}

/*
 * The local submitter's wait: sleep inside io_uring_enter(GETEVENTS), as
 * fio does, instead of on the eventfd: one wake, and the task work that
 * posts the CQE runs in the same kernel entry.
 */
static void uring_wait(struct mqblk_hctx *hctx, int64_t timeout_ns)
{
	struct uring_hctx *uh = mqblk_hctx_data(hctx);
	struct io_uring_cqe *cqe;

	/* a sole submitter that cannot be kicked wakes now and then to ring
	 * for the timeout thread's cancels (uring_doorbell) */
	if (uh->single &&
	    atomic_load_explicit(&uh->ud->kick_failed, memory_order_relaxed) &&
	    (timeout_ns < 0 || timeout_ns > URING_KICK_NS))
		timeout_ns = URING_KICK_NS;
	if (timeout_ns < 0) {
		io_uring_wait_cqe(&uh->ring, &cqe);
	} else {
		struct __kernel_timespec ts = {
			.tv_sec = timeout_ns / 1000000000,
			.tv_nsec = timeout_ns % 1000000000,
		};

		io_uring_wait_cqe_timeout(&uh->ring, &cqe, &ts);
	}
}

/*
 * Register [base, base+len) in a free slot of the buffer table: reads and
 * writes inside it become READ_FIXED/WRITE_FIXED, which skip pinning the
 * pages on every I/O. Called by the queue's owner (a SINGLE_ISSUER ring
 * takes registrations only from it).
 */
static int uring_map_buf(struct mqblk_hctx *hctx, void *base, size_t len)
{
	struct uring_hctx *uh = mqblk_hctx_data(hctx);
	struct iovec iov = { base, len };
	unsigned slot;
	int ret;

	if (!uh->bufs_table)
		return -EOPNOTSUPP;
	if (!base || !len)
		return -EINVAL;
	ret = uring_own(uh);
	if (ret)
		return ret;
	pthread_spin_lock(&uh->sq_lock);
	for (slot = 0; slot < URING_MAX_BUFS && uh->bufs[slot].base; slot++)
		;
	if (slot == URING_MAX_BUFS) {
		pthread_spin_unlock(&uh->sq_lock);
		return -ENOSPC;
	}
	uh->bufs[slot].base = (uintptr_t)base; /* reserved, len 0: unused */
	pthread_spin_unlock(&uh->sq_lock);
	ret = io_uring_register_buffers_update_tag(&uh->ring, slot, &iov, NULL,
						   1);
	pthread_spin_lock(&uh->sq_lock);
	if (ret == 1) {
		uh->bufs[slot].len = len;
		if (slot >= uh->nr_bufs)
			uh->nr_bufs = slot + 1;
		ret = 0;
	} else {
		uh->bufs[slot].base = 0;
		if (ret >= 0)
			ret = -EIO;
	}
	pthread_spin_unlock(&uh->sq_lock);
	return ret;
}

static void uring_unmap_buf(struct mqblk_hctx *hctx, void *base)
{
	struct uring_hctx *uh = mqblk_hctx_data(hctx);
	struct iovec none = { NULL, 0 };
	unsigned slot;

	pthread_spin_lock(&uh->sq_lock);
	for (slot = 0; slot < uh->nr_bufs; slot++)
		if (uh->bufs[slot].base == (uintptr_t)base)
			break;
	if (slot == uh->nr_bufs) {
		pthread_spin_unlock(&uh->sq_lock);
		return;
	}
	uh->bufs[slot].base = 0;
	uh->bufs[slot].len = 0;
	while (uh->nr_bufs && !uh->bufs[uh->nr_bufs - 1].base)
		uh->nr_bufs--;
	pthread_spin_unlock(&uh->sq_lock);
	/* the queue's I/O is reaped: the kernel holds no request on it. A
	 * refused update (another thread's SINGLE_ISSUER ring) leaves the
	 * pages pinned until the ring goes. */
	if (!uh->single || uh->owner == uring_self())
		io_uring_register_buffers_update_tag(&uh->ring, slot, &none,
						     NULL, 1);
}

/*
 * rq has had its cancels and is still the kernel's: the device is failed.
 * One line for the device (the first request to get here); the request
 * itself stays in flight, its tag and buffer untouched, until its CQE.
 */
static void uring_fail_dev(struct uring_dev *ud, struct mqblk_rq *rq,
			   struct uring_cmd *cmd)
{
	static const char *const ops[] = { "read", "write", "flush", "discard",
					   "write zeroes" };
	struct mqblk_dev *dev = mqblk_hctx_dev(rq->hctx);
	uint64_t first = atomic_load_explicit(&cmd->first_timeout_ns,
					      memory_order_relaxed);
	uint64_t stuck = mqblk_clock_ns() - first + mqblk_dev_timeout_ns(dev);

	if (atomic_exchange(&ud->dead, true))
		return;
	mqblk_dev_mark_dead(dev);
	fprintf(stderr,
		"mqblk: uring: %s: %s offset=%llu length=%u stuck for %.1f s "
		"(%u cancels refused, timeout_rearms=%u): device failed, new "
		"I/O fails with EIO\n",
		ud->path, (unsigned)rq->op < 5 ? ops[rq->op] : "?",
		(unsigned long long)rq->offset, rq->len, (double)stuck / 1e9,
		ud->timeout_rearms, ud->timeout_rearms);
}

static enum mqblk_timeout_ret uring_timeout(struct mqblk_rq *rq)
{
	struct uring_hctx *uh = mqblk_hctx_data(rq->hctx);
	struct uring_cmd *cmd = mqblk_rq_pdu(rq);
	struct io_uring_sqe *sqe;
	bool kick = false;
	unsigned n;

	/* the core keeps calling for it each timeout period: once the
	 * device is failed there is nothing more to ask of the kernel */
	if (atomic_load(&uh->ud->dead))
		return MQBLK_EH_RESET_TIMER;
	n = atomic_fetch_add_explicit(&cmd->cancels, 1, memory_order_relaxed);
	if (!n)
		atomic_store_explicit(&cmd->first_timeout_ns, mqblk_clock_ns(),
				      memory_order_relaxed);
	if (n >= uh->ud->timeout_rearms) {
		uring_fail_dev(uh->ud, rq, cmd);
		return MQBLK_EH_RESET_TIMER;
	}
	/* an IOPOLL ring has no cancel: the poller finds it when it ends */
	if (uh->iopoll)
		return MQBLK_EH_RESET_TIMER;
	pthread_spin_lock(&uh->sq_lock);
	sqe = io_uring_get_sqe(&uh->ring);
	if (sqe) {
		io_uring_prep_cancel64(sqe, uring_rq_ud(rq), 0);
		io_uring_sqe_set_data64(sqe, URING_UD_CANCEL);
		uh->unsubmitted++;
		uring_doorbell(uh);
		kick = uh->single && uh->owner != uring_self();
	}
	pthread_spin_unlock(&uh->sq_lock);
	if (kick)
		uring_kick(uh); /* after the unlock: see uring_doorbell */
	return MQBLK_EH_RESET_TIMER;
}

const struct mqblk_driver_ops mqblk_uring_driver = {
	.name = "uring",
	.open_flags = MQBLK_OPEN_SYNC | MQBLK_OPEN_DSYNC,
	.init = uring_init,
	.exit = uring_exit,
	.init_hctx = uring_init_hctx,
	.exit_hctx = uring_exit_hctx,
	.queue_rq = uring_queue_rq,
	.commit_rqs = uring_commit_rqs,
	.poll = uring_poll,
	.wait = uring_wait,
	.timeout = uring_timeout,
	.map_buf = uring_map_buf,
	.unmap_buf = uring_unmap_buf,
};
