// SPDX-License-Identifier: MIT
/*
 * The null device, modelled on Linux null_blk: completes inline, deferred
 * through an "interrupt", or after completion_nsec on a timer; optionally
 * memory backed (sparse); with fault injection. The control case.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <mqblk/driver.h>

#define NULL_PAGE_SIZE 4096u
#define NULL_SEG_SHIFT 21 /* the store's segments: 2 MiB, one THP each */
#define NULL_SEG_SIZE (1u << NULL_SEG_SHIFT)
/* locks over the store's segments (segment i takes lock i % this) */
#define NULL_STORE_LOCKS 64
#define NULL_MAX_BADBLOCKS 16
/* memory_backed stores up to this size ask for huge pages by default */
#define NULL_HUGE_DEFAULT_MAX (16ull << 30)
#define NULL_STORE_MAX (64ull << 40) /* a 256 MiB segment table */

enum null_irqmode {
	NULL_IRQ_NONE = 0, /* complete inside queue_rq */
	NULL_IRQ_SOFTIRQ = 1, /* complete from the hw queue's interrupt */
	NULL_IRQ_TIMER = 2, /* complete completion_nsec after submission */
};

/* Per request: the link through the hw queue's pending lists. */
struct null_cmd {
	struct null_cmd *next;
	struct mqblk_rq *rq;
	uint64_t deadline_ns;
	int res; /* the timeout handler may overwrite it (atomic access) */
	bool lost; /* fault injection dropped it: only a timeout ends it */
};

struct null_dev {
	uint64_t size;
	uint32_t blocksize;
	unsigned submit_queues;
	unsigned hw_queue_depth;
	enum null_irqmode irqmode;
	uint64_t completion_nsec;
	bool memory_backed;
	bool polled;
	/* the largest READ/WRITE it takes (null_blk's max_sectors, in
	 * bytes here; 0: none): the core splits bigger ones, and one that
	 * still came would fail with -EMSGSIZE */
	uint32_t max_bytes;
	/* fault injection: every Nth request, 0 = off */
	uint64_t requeue_every;
	uint64_t timeout_every;
	uint64_t error_every;
	uint16_t error_status; /* error_every's NVMe status (0: by op) */
	/* null_blk's badblocks: reads and writes touching these byte
	 * ranges [start, end) fail with -EIO */
	unsigned nr_bad;
	struct {
		uint64_t start, end;
	} bad[NULL_MAX_BADBLOCKS];
	/* the store (memory_backed), sparse as null_blk's page tree is:
	 * 2 MiB segments, each an anonymous mapping made on the first write
	 * to it (a page in it gets memory when written; unwritten ones, and
	 * whole segments never written, read as zeros); a segment asks for
	 * a transparent huge page unless hugepages=0 */
	_Atomic(uint8_t *) *seg;
	size_t nr_seg;
	/* Two requests on one segment at once (two hw queues, or a host
	 * that sends a command again on another path while the first is
	 * still here) do not touch its bytes at the same time: a block is
	 * written whole or not (AWUN 0: one block), as null_blk's lock
	 * keeps it, and no byte is read while being written. */
	pthread_mutex_t store_lock[NULL_STORE_LOCKS];
	int hugepages; /* -1: by size (up to NULL_HUGE_DEFAULT_MAX) */
	int nt_writes; /* -1: default (on); big writes bypass the cache */
};

struct null_hctx {
	struct null_dev *nd;
	/* submit side pushes (lock free), poller pops */
	_Atomic(struct null_cmd *) pending;
	/* poller-owned FIFO of timer-mode commands, oldest first */
	struct null_cmd *fifo_head, **fifo_tail;
	int efd; /* kicked when pending goes non-empty */
	int tfd; /* timer mode: armed for the oldest deadline */
	int epfd; /* the irq fd the core waits on: efd + tfd */
	uint64_t nr_queued; /* fault-injection counter (dispatch serialised) */
};

/* One byte count with an optional k/m/g/t (binary) suffix. */
static int null_parse_bytes(const char *s, char **end, uint64_t *out)
{
	unsigned long long v;
	unsigned shift = 0;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, end, 10);
	if (errno)
		return -1;
	switch (**end) {
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	case 't':
	case 'T':
		shift = 40;
		break;
	}
	if (shift) {
		(*end)++;
		if (v > (UINT64_MAX >> shift))
			return -1;
		v <<= shift;
	}
	*out = v;
	return 0;
}

/* badblocks=START-END[:START-END...], bytes, END exclusive. */
static int null_parse_badblocks(struct null_dev *nd, const char *val, char *err,
				size_t errlen)
{
	const char *p = val;

	nd->nr_bad = 0;
	while (*p) {
		uint64_t start, end;
		char *e;

		if (nd->nr_bad == NULL_MAX_BADBLOCKS) {
			snprintf(err, errlen, "badblocks: at most %d ranges",
				 NULL_MAX_BADBLOCKS);
			return -EINVAL;
		}
		if (null_parse_bytes(p, &e, &start) || *e != '-' ||
		    null_parse_bytes(e + 1, &e, &end) || (*e && *e != ':') ||
		    end <= start) {
			snprintf(
				err, errlen,
				"bad badblocks '%s': expected START-END[:START-END...] in bytes, END > START",
				val);
			return -EINVAL;
		}
		nd->bad[nd->nr_bad].start = start;
		nd->bad[nd->nr_bad].end = end;
		nd->nr_bad++;
		p = *e ? e + 1 : e;
	}
	if (!nd->nr_bad) {
		snprintf(err, errlen, "badblocks is empty");
		return -EINVAL;
	}
	return 0;
}

static bool null_is_bad(const struct null_dev *nd, const struct mqblk_rq *rq)
{
	unsigned i;

	if (rq->op != MQBLK_OP_READ && rq->op != MQBLK_OP_WRITE)
		return false;
	for (i = 0; i < nd->nr_bad; i++)
		if (rq->offset < nd->bad[i].end &&
		    rq->offset + rq->len > nd->bad[i].start)
			return true;
	return false;
}

/* NVMe status for a failed request: unrecovered read error / write fault
 * for a bad block, internal error otherwise. */
/* res of an error_every failure with error_status= set */
#define NULL_RES_INJECTED (-EREMOTEIO)

static uint16_t null_status(const struct null_dev *nd,
			    const struct mqblk_rq *rq, int res)
{
	if (res >= 0)
		return 0;
	if (res == NULL_RES_INJECTED && nd->error_status)
		return nd->error_status;
	if (res == -EIO && rq->op == MQBLK_OP_READ)
		return 0x0281;
	if (res == -EIO && rq->op == MQBLK_OP_WRITE)
		return 0x0280;
	return 0x0006;
}

/* The store's segment table (the segments come with writes). */
static int null_store_init(struct null_dev *nd, char *err, size_t errlen)
{
	if (nd->size > NULL_STORE_MAX) {
		snprintf(
			err, errlen,
			"memory_backed=1 takes at most size=64t, not %llu bytes",
			(unsigned long long)nd->size);
		return -EINVAL;
	}
	nd->nr_seg = (size_t)((nd->size + NULL_SEG_SIZE - 1) >> NULL_SEG_SHIFT);
	nd->seg = calloc(nd->nr_seg, sizeof(*nd->seg));
	if (!nd->seg) {
		snprintf(err, errlen,
			 "memory_backed=1: no memory for the "
			 "store's segment table");
		return -ENOMEM;
	}
	if (nd->hugepages < 0)
		nd->hugepages = nd->size <= NULL_HUGE_DEFAULT_MAX;
	for (size_t i = 0; i < NULL_STORE_LOCKS; i++)
		pthread_mutex_init(&nd->store_lock[i], NULL);
	return 0;
}

static int null_init(struct mqblk_dev *dev, struct mqblk_params *params,
		     struct mqblk_dev_limits *lim, char *err, size_t errlen)
{
	struct null_dev *nd = calloc(1, sizeof(*nd));
	bool shared_tags = false;
	uint64_t v;
	unsigned i;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (!nd)
		return -ENOMEM;
	nd->size = 250ull << 30; /* null_blk's gb=250 */
	nd->blocksize = 512;
	nd->submit_queues = cpus > 0 ? (unsigned)cpus : 1;
	nd->hw_queue_depth = lim->queue_depth ? lim->queue_depth : 64;
	nd->irqmode = NULL_IRQ_NONE;
	nd->completion_nsec = 10000;
	nd->hugepages = -1;
	nd->nt_writes = -1;
	for (i = 0; i < params->nr; i++) {
		struct mqblk_param *p = &params->v[i];
		int r = 0;

		if (!strcmp(p->key, "size")) {
			r = mqblk_param_u64(p, 4096, 1ull << 50, true,
					    &nd->size, err, errlen);
		} else if (!strcmp(p->key, "gb")) {
			r = mqblk_param_u64(p, 1, 1ull << 20, false, &v, err,
					    errlen);
			nd->size = v << 30;
		} else if (!strcmp(p->key, "blocksize") ||
			   !strcmp(p->key, "bs")) {
			r = mqblk_param_u64(p, 512, 65536, true, &v, err,
					    errlen);
			if (!r && (v & (v - 1))) {
				snprintf(err, errlen,
					 "blocksize %llu is not a power of two",
					 (unsigned long long)v);
				r = -EINVAL;
			}
			nd->blocksize = (uint32_t)v;
		} else if (!strcmp(p->key, "submit_queues")) {
			r = mqblk_param_u64(p, 1, 4096, false, &v, err, errlen);
			nd->submit_queues = (unsigned)v;
		} else if (!strcmp(p->key, "hw_queue_depth")) {
			r = mqblk_param_u64(p, 1, 65536, false, &v, err,
					    errlen);
			nd->hw_queue_depth = (unsigned)v;
		} else if (!strcmp(p->key, "irqmode")) {
			r = mqblk_param_u64(p, 0, 2, false, &v, err, errlen);
			nd->irqmode = (enum null_irqmode)v;
		} else if (!strcmp(p->key, "completion_nsec")) {
			r = mqblk_param_u64(p, 0, 10ull * 1000 * 1000 * 1000,
					    false, &nd->completion_nsec, err,
					    errlen);
		} else if (!strcmp(p->key, "memory_backed")) {
			r = mqblk_param_bool(p, &nd->memory_backed, err,
					     errlen);
		} else if (!strcmp(p->key, "hugepages")) {
			bool on = false; /* read only when parsed */

			r = mqblk_param_bool(p, &on, err, errlen);
			nd->hugepages = on;
		} else if (!strcmp(p->key, "nt_writes")) {
			bool on = false;

			r = mqblk_param_bool(p, &on, err, errlen);
			nd->nt_writes = on;
		} else if (!strcmp(p->key, "shared_tags")) {
			r = mqblk_param_bool(p, &shared_tags, err, errlen);
		} else if (!strcmp(p->key, "requeue_every")) {
			r = mqblk_param_u64(p, 0, UINT64_MAX, false,
					    &nd->requeue_every, err, errlen);
		} else if (!strcmp(p->key, "timeout_every")) {
			r = mqblk_param_u64(p, 0, UINT64_MAX, false,
					    &nd->timeout_every, err, errlen);
		} else if (!strcmp(p->key, "error_every")) {
			r = mqblk_param_u64(p, 0, UINT64_MAX, false,
					    &nd->error_every, err, errlen);
		} else if (!strcmp(p->key, "error_status")) {
			uint64_t st;

			/* any NVMe status (SCT/SC, no DNR or More): a path
			 * error for a multipath host behind the target */
			r = mqblk_param_u64(p, 1, 0x7ff, false, &st, err,
					    errlen);
			nd->error_status = (uint16_t)st;
		} else if (!strcmp(p->key, "max_sectors")) {
			/* 512-byte sectors, as null_blk's */
			r = mqblk_param_u64(p, 1, UINT32_MAX >> 9, false, &v,
					    err, errlen);
			nd->max_bytes = (uint32_t)(v << 9);
		} else if (!strcmp(p->key, "max_bytes")) {
			r = mqblk_param_u64(p, 512, UINT32_MAX, true, &v, err,
					    errlen);
			nd->max_bytes = (uint32_t)v;
		} else if (!strcmp(p->key, "badblocks")) {
			r = null_parse_badblocks(nd, p->val, err, errlen);
		} else {
			continue;
		}
		if (r) {
			free(nd);
			return r;
		}
		p->used = true;
	}
	if (nd->size % nd->blocksize) {
		snprintf(err, errlen,
			 "size %llu is not a multiple of blocksize %u",
			 (unsigned long long)nd->size, nd->blocksize);
		free(nd);
		return -EINVAL;
	}
	if (nd->max_bytes && nd->max_bytes < nd->blocksize) {
		snprintf(err, errlen,
			 "max_bytes %u is less than blocksize %u (one "
			 "block at least)",
			 nd->max_bytes, nd->blocksize);
		free(nd);
		return -EINVAL;
	}
	nd->max_bytes &= ~(nd->blocksize - 1);
	if ((nd->hugepages >= 0 || nd->nt_writes >= 0) && !nd->memory_backed) {
		snprintf(err, errlen, "%s= needs memory_backed=1",
			 nd->hugepages >= 0 ? "hugepages" : "nt_writes");
		free(nd);
		return -EINVAL;
	}
	if (nd->nt_writes < 0)
		nd->nt_writes = 1;
	if (nd->memory_backed) {
		int r = null_store_init(nd, err, errlen);

		if (r) {
			free(nd);
			return r;
		}
	}
	lim->capacity = nd->size;
	lim->logical_block_size = nd->blocksize;
	lim->max_hw_bytes = nd->max_bytes;
	lim->max_hw_queues = nd->submit_queues;
	lim->queue_depth = nd->hw_queue_depth;
	lim->shared_tags = shared_tags;
	lim->cmd_size = sizeof(struct null_cmd);
	lim->default_policy = MQBLK_COMP_LOCAL;
	lim->has_irq = nd->irqmode != NULL_IRQ_NONE;
	mqblk_dev_set_data(dev, nd);
	return 0;
}

/*
 * completion_nsec, live: a timer-mode device turned slow (or fast) under
 * load. Requests already waiting keep their deadline; the timer FIFO stays
 * ordered enough: a later, shorter deadline waits behind a longer one, as
 * requests behind a slow one on a real queue do.
 */
static int null_set_param(struct mqblk_dev *dev, const char *key,
			  const char *val, char *err, size_t errlen)
{
	struct null_dev *nd = mqblk_dev_data(dev);
	struct mqblk_param p = { .key = key, .val = val };
	uint64_t v;
	int r;

	if (strcmp(key, "completion_nsec")) {
		snprintf(
			err, errlen,
			"%s: the null driver changes only completion_nsec live",
			key);
		return -EOPNOTSUPP;
	}
	if (nd->irqmode != NULL_IRQ_TIMER) {
		snprintf(err, errlen,
			 "completion_nsec: this null device has irqmode=%d; "
			 "only irqmode=2 completes on a timer",
			 (int)nd->irqmode);
		return -EOPNOTSUPP;
	}
	r = mqblk_param_u64(&p, 0, 10ull * 1000 * 1000 * 1000, false, &v, err,
			    errlen);
	if (r)
		return r;
	__atomic_store_n(&nd->completion_nsec, v, __ATOMIC_RELAXED);
	return 0;
}

static void null_exit(struct mqblk_dev *dev)
{
	struct null_dev *nd = mqblk_dev_data(dev);

	if (!nd)
		return;
	for (size_t i = 0; nd->seg && i < nd->nr_seg; i++) {
		uint8_t *m = atomic_load(&nd->seg[i]);

		if (m)
			munmap(m, NULL_SEG_SIZE);
	}
	if (nd->seg)
		for (size_t i = 0; i < NULL_STORE_LOCKS; i++)
			pthread_mutex_destroy(&nd->store_lock[i]);
	free(nd->seg);
	free(nd);
}

/* ---- the store ---- */

/* Segment i, made (2 MiB aligned, so one huge page can back it) when
 * create is set; NULL if it was never written or there is no memory. */
static uint8_t *null_seg(struct null_dev *nd, size_t i, bool create)
{
	uint8_t *m = atomic_load_explicit(&nd->seg[i], memory_order_acquire);
	uint8_t *map, *a, *none = NULL;

	if (m || !create)
		return m;
	map = mmap(NULL, 2 * NULL_SEG_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED)
		return NULL;
	a = (uint8_t *)(((uintptr_t)map + NULL_SEG_SIZE - 1) &
			~(uintptr_t)(NULL_SEG_SIZE - 1));
	if (a > map)
		munmap(map, (size_t)(a - map));
	munmap(a + NULL_SEG_SIZE, (size_t)(map + NULL_SEG_SIZE - a));
	if (nd->hugepages)
		madvise(a, NULL_SEG_SIZE, MADV_HUGEPAGE); /* a request only */
	if (!atomic_compare_exchange_strong(&nd->seg[i], &none, a)) {
		munmap(a, NULL_SEG_SIZE); /* another writer made it first */
		return none;
	}
	return a;
}

/* Writes this big (and 16-byte aligned) go to the store past the cache:
 * a page and up (4 KiB randwrite QD64 through the target ~650k -> ~770k
 * here, QD1 a little faster too) */
#define NULL_NT_MIN (4u << 10)

#ifdef __SSE2__
/* Copy n bytes (a multiple of 64, both ends 16-byte aligned) into the
 * store with non-temporal stores, as Linux's pmem driver writes
 * (memcpy_flushcache): the store is not read back soon, so no line is
 * fetched for ownership and none of the cache is spent on it. With the
 * host's copy into the socket and the target's out of it, a cached copy
 * into a 64 MiB store was the target's largest cost for 128 KiB writes;
 * this took that run from ~29k to ~38k IOPS here. For 4 KiB writes the
 * cost hid in the completion's locked cmpxchg (a full fence: it waited
 * for the copy's 64 ownership misses), 27 % of the target's profile. */
static void null_copy_nt(uint8_t *dst, const uint8_t *src, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i += 64) {
		__m128i a = _mm_load_si128((const __m128i *)(src + i));
		__m128i b = _mm_load_si128((const __m128i *)(src + i + 16));
		__m128i c = _mm_load_si128((const __m128i *)(src + i + 32));
		__m128i d = _mm_load_si128((const __m128i *)(src + i + 48));

		_mm_stream_si128((__m128i *)(dst + i), a);
		_mm_stream_si128((__m128i *)(dst + i + 16), b);
		_mm_stream_si128((__m128i *)(dst + i + 32), c);
		_mm_stream_si128((__m128i *)(dst + i + 48), d);
	}
	/* ordered before the completion that says the data is stored */
	_mm_sfence();
}
#endif

static void null_store_write(const struct null_dev *nd, uint8_t *dst,
			     const uint8_t *src, uint32_t n)
{
#ifdef __SSE2__
	if (nd->nt_writes && n >= NULL_NT_MIN && !(n & 63) &&
	    !(((uintptr_t)dst | (uintptr_t)src) & 15)) {
		null_copy_nt(dst, src, n);
		return;
	}
#endif
	(void)nd;
	memcpy(dst, src, n);
}

/* Move data between the store and buf; NULL buf zeroes (discard, write
 * zeroes): whole pages of a big range are given back to the kernel
 * (null_blk frees them too), the rest cleared. 0 or -ENOMEM. */
static int null_transfer(struct null_dev *nd, enum mqblk_op op, uint64_t off,
			 uint32_t len, uint8_t *buf)
{
	while (len) {
		size_t i = (size_t)(off >> NULL_SEG_SHIFT);
		uint32_t in = (uint32_t)(off & (NULL_SEG_SIZE - 1));
		uint32_t n = NULL_SEG_SIZE - in < len ? NULL_SEG_SIZE - in :
							len;
		uint8_t *m = null_seg(nd, i, op == MQBLK_OP_WRITE);
		pthread_mutex_t *lk = &nd->store_lock[i % NULL_STORE_LOCKS];

		pthread_mutex_lock(lk);
		if (op == MQBLK_OP_READ) {
			if (m)
				memcpy(buf, m + in, n);
			else
				memset(buf, 0, n); /* never written: zeros */
		} else if (op == MQBLK_OP_WRITE) {
			if (!m) {
				pthread_mutex_unlock(lk);
				return -ENOMEM;
			}
			null_store_write(nd, m + in, buf, n);
		} else if (m) {
			uint32_t a = (in + NULL_PAGE_SIZE - 1) &
				     ~(NULL_PAGE_SIZE - 1);
			uint32_t e = (in + n) & ~(NULL_PAGE_SIZE - 1);

			/* pages go back only from big ranges: madvise is a
			 * TLB shootdown, dearer than clearing a little */
			if (n >= (256u << 10) && e > a &&
			    !madvise(m + a, e - a, MADV_DONTNEED)) {
				memset(m + in, 0, a - in);
				memset(m + e, 0, in + n - e);
			} else {
				memset(m + in, 0, n);
			}
		}
		pthread_mutex_unlock(lk);
		off += n;
		len -= n;
		if (buf)
			buf += n;
	}
	return 0;
}

static int null_do_io(struct null_dev *nd, struct mqblk_rq *rq)
{
	int ret = 0;

	if (!nd->memory_backed || rq->op == MQBLK_OP_FLUSH)
		return (int)rq->len;
	switch (rq->op) {
	case MQBLK_OP_READ:
	case MQBLK_OP_WRITE:
		ret = null_transfer(nd, rq->op, rq->offset, rq->len, rq->buf);
		break;
	case MQBLK_OP_DISCARD:
	case MQBLK_OP_WRITE_ZEROES:
		ret = null_transfer(nd, rq->op, rq->offset, rq->len, NULL);
		break;
	default:
		ret = -EOPNOTSUPP;
	}
	return ret < 0 ? ret : (int)rq->len;
}

/* ---- hw queues ---- */

static int null_init_hctx(struct mqblk_hctx *hctx, unsigned idx)
{
	struct mqblk_dev *dev = mqblk_hctx_dev(hctx);
	struct null_dev *nd = mqblk_dev_data(dev);
	struct null_hctx *nh = calloc(1, sizeof(*nh));
	struct epoll_event ev = { .events = EPOLLIN };
	int ret;

	(void)idx;
	if (!nh)
		return -ENOMEM;
	nh->nd = nd;
	nh->fifo_tail = &nh->fifo_head;
	nh->efd = nh->tfd = nh->epfd = -1;
	nd->polled = mqblk_dev_comp_policy(dev) == MQBLK_COMP_POLLED;
	mqblk_hctx_set_data(hctx, nh);
	/* polled queues and inline completion raise no interrupts */
	if (nd->irqmode == NULL_IRQ_NONE || nd->polled)
		return 0;
	nh->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (nh->efd < 0)
		goto out_errno;
	if (nd->irqmode == NULL_IRQ_SOFTIRQ) {
		mqblk_hctx_set_irq_fd(hctx, nh->efd);
		return 0;
	}
	nh->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	nh->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (nh->tfd < 0 || nh->epfd < 0)
		goto out_errno;
	if (epoll_ctl(nh->epfd, EPOLL_CTL_ADD, nh->efd, &ev) ||
	    epoll_ctl(nh->epfd, EPOLL_CTL_ADD, nh->tfd, &ev))
		goto out_errno;
	mqblk_hctx_set_irq_fd(hctx, nh->epfd);
	return 0;

out_errno:
	ret = -errno;
	if (nh->efd >= 0)
		close(nh->efd);
	if (nh->tfd >= 0)
		close(nh->tfd);
	if (nh->epfd >= 0)
		close(nh->epfd);
	free(nh);
	mqblk_hctx_set_data(hctx, NULL);
	return ret;
}

static void null_exit_hctx(struct mqblk_hctx *hctx)
{
	struct null_hctx *nh = mqblk_hctx_data(hctx);

	if (!nh)
		return;
	if (nh->efd >= 0)
		close(nh->efd);
	if (nh->tfd >= 0)
		close(nh->tfd);
	if (nh->epfd >= 0)
		close(nh->epfd);
	free(nh);
}

static void null_kick(struct null_hctx *nh)
{
	uint64_t one = 1;

	if (nh->efd >= 0 && write(nh->efd, &one, sizeof(one)) < 0 &&
	    errno != EAGAIN)
		abort();
}

static enum mqblk_status null_queue_rq(struct mqblk_hctx *hctx,
				       struct mqblk_rq *rq, bool last)
{
	struct null_hctx *nh = mqblk_hctx_data(hctx);
	struct null_dev *nd = nh->nd;
	struct null_cmd *cmd, *old;
	uint64_t nr = ++nh->nr_queued;
	int res;

	(void)last;
	cmd = mqblk_rq_pdu(rq);
	__atomic_store_n(&cmd->lost, false, __ATOMIC_RELAXED);
	if (__builtin_expect(nd->requeue_every != 0, 0) &&
	    nr % nd->requeue_every == 0)
		return MQBLK_STS_BUSY;
	if (__builtin_expect(nd->timeout_every != 0, 0) &&
	    nr % nd->timeout_every == 0) {
		/* the timeout handler finds it */
		__atomic_store_n(&cmd->lost, true, __ATOMIC_RELAXED);
		return MQBLK_STS_OK;
	}
	if (__builtin_expect(nd->max_bytes != 0, 0) &&
	    rq->len > nd->max_bytes &&
	    (rq->op == MQBLK_OP_READ || rq->op == MQBLK_OP_WRITE))
		res = -EMSGSIZE; /* the core should have split it */
	else if (__builtin_expect(nd->nr_bad != 0, 0) && null_is_bad(nd, rq))
		res = -EIO; /* nothing stored, nothing read */
	else
		res = null_do_io(nd, rq);
	if (__builtin_expect(nd->error_every != 0, 0) &&
	    nr % nd->error_every == 0)
		res = nd->error_status ? NULL_RES_INJECTED : -EIO;
	if (nd->irqmode == NULL_IRQ_NONE) {
		mqblk_complete_rq(rq, res, null_status(nd, rq, res));
		return MQBLK_STS_OK;
	}
	cmd->rq = rq;
	__atomic_store_n(&cmd->res, res, __ATOMIC_RELAXED);
	if (nd->irqmode == NULL_IRQ_TIMER)
		cmd->deadline_ns =
			mqblk_clock_ns() +
			__atomic_load_n(&nd->completion_nsec, __ATOMIC_RELAXED);
	old = atomic_load_explicit(&nh->pending, memory_order_relaxed);
	do {
		cmd->next = old;
	} while (!atomic_compare_exchange_weak_explicit(&nh->pending, &old, cmd,
							memory_order_release,
							memory_order_relaxed));
	/* raise the interrupt when the list goes non-empty; the poller
	 * reads the eventfd before taking the list, so none is missed */
	if (!old)
		null_kick(nh);
	return MQBLK_STS_OK;
}

static void null_arm_timer(struct null_hctx *nh, uint64_t now)
{
	struct itimerspec its = { 0 };
	uint64_t delta;

	if (nh->tfd < 0)
		return;
	if (nh->fifo_head) {
		delta = nh->fifo_head->deadline_ns > now ?
				nh->fifo_head->deadline_ns - now :
				1;
		its.it_value.tv_sec = (time_t)(delta / 1000000000ull);
		its.it_value.tv_nsec = (long)(delta % 1000000000ull);
	}
	timerfd_settime(nh->tfd, 0, &its, NULL);
}

static int null_poll(struct mqblk_hctx *hctx, unsigned budget)
{
	struct null_hctx *nh = mqblk_hctx_data(hctx);
	struct null_dev *nd = nh->nd;
	struct null_cmd *chain, *prev = NULL;
	uint64_t v, now = 0;
	int done = 0, res;

	if (nh->efd >= 0 && read(nh->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		abort();
	if (nh->tfd >= 0 && read(nh->tfd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		abort();
	chain = atomic_exchange_explicit(&nh->pending, NULL,
					 memory_order_acquire);
	/* the list is newest first: reverse onto the FIFO tail */
	while (chain) {
		struct null_cmd *next = chain->next;

		chain->next = prev;
		prev = chain;
		chain = next;
	}
	if (prev) {
		*nh->fifo_tail = prev;
		while (prev->next)
			prev = prev->next;
		nh->fifo_tail = &prev->next;
	}
	if (nd->irqmode == NULL_IRQ_TIMER && nh->fifo_head)
		now = mqblk_clock_ns();
	while (nh->fifo_head && (unsigned)done < budget) {
		struct null_cmd *cmd = nh->fifo_head;

		if (nd->irqmode == NULL_IRQ_TIMER && cmd->deadline_ns > now)
			break;
		nh->fifo_head = cmd->next;
		if (!nh->fifo_head)
			nh->fifo_tail = &nh->fifo_head;
		res = __atomic_load_n(&cmd->res, __ATOMIC_RELAXED);
		mqblk_complete_rq(cmd->rq, res, null_status(nd, cmd->rq, res));
		done++;
	}
	if (nh->fifo_head) {
		if (nd->irqmode == NULL_IRQ_TIMER && (unsigned)done < budget)
			null_arm_timer(nh, now);
		else
			null_kick(nh); /* budget spent: come back soon */
	}
	return done;
}

static enum mqblk_timeout_ret null_timeout(struct mqblk_rq *rq)
{
	struct null_cmd *cmd = mqblk_rq_pdu(rq);

	/* a request lost by fault injection: fail it like null_blk does */
	if (__atomic_load_n(&cmd->lost, __ATOMIC_RELAXED)) {
		mqblk_complete_rq(rq, -ETIMEDOUT,
				  0x0371 /* SCT path, cmd abort */);
		return MQBLK_EH_DONE;
	}
	/*
	 * Still queued (the timer has not fired): like null_blk, mark it
	 * timed out and let the device finish it. Completing it here would
	 * free the tag while its command is still linked in the hw queue's
	 * FIFO, and the next incarnation would link it a second time.
	 */
	__atomic_store_n(&cmd->res, -ETIMEDOUT, __ATOMIC_RELAXED);
	return MQBLK_EH_DONE;
}

const struct mqblk_driver_ops mqblk_null_driver = {
	.name = "null",
	.init = null_init,
	.exit = null_exit,
	.init_hctx = null_init_hctx,
	.exit_hctx = null_exit_hctx,
	.queue_rq = null_queue_rq,
	.poll = null_poll,
	.timeout = null_timeout,
	.set_param = null_set_param,
};
