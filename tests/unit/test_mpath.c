// SPDX-License-Identifier: MIT
/*
 * Unit tests of NVMe multipath's pure part (src/drivers/nvmf/mpath.h):
 * the path list of a multipath URI, ANA log parsing on synthetic logs,
 * the paths of a synthetic discovery log,
 * path-related status, and the numa / round-robin / queue-depth selectors
 * over synthetic path states (what the kernel's nvme_find_path picks).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "drivers/nvmf/mpath.h"

/* ---- path lists ---- */

static void test_addrs_ok(void **state)
{
	struct mp_addr a[MP_MAX_PATHS];
	char nqn[256], err[256];
	unsigned nr = 0;

	(void)state;
	assert_int_equal(mp_parse_addrs("10.0.0.1:4420,10.0.0.2:4421/nqn.x:y",
					a, MP_MAX_PATHS, &nr, nqn, err,
					sizeof(err)),
			 0);
	assert_int_equal(nr, 2);
	assert_string_equal(a[0].host, "10.0.0.1");
	assert_string_equal(a[0].port, "4420");
	assert_string_equal(a[1].host, "10.0.0.2");
	assert_string_equal(a[1].port, "4421");
	assert_string_equal(nqn, "nqn.x:y");
	/* IPv6 in brackets, commas and slashes inside them are the host's */
	assert_int_equal(mp_parse_addrs("[::1]:4420,[fe80::1]:4420/n", a,
					MP_MAX_PATHS, &nr, nqn, err,
					sizeof(err)),
			 0);
	assert_int_equal(nr, 2);
	assert_string_equal(a[0].host, "::1");
	assert_string_equal(a[1].host, "fe80::1");
	/* one path is a multipath device too */
	assert_int_equal(mp_parse_addrs("h:1/n", a, MP_MAX_PATHS, &nr, nqn, err,
					sizeof(err)),
			 0);
	assert_int_equal(nr, 1);
	assert_string_equal(a[0].tr, "");
	/* a path over another transport names it; the same address over
	 * two transports is two paths */
	assert_int_equal(mp_parse_addrs("10.0.0.1:4420,rdma:10.0.0.1:4420,"
					"tcp:[::1]:4420,localhost:4420/n",
					a, MP_MAX_PATHS, &nr, nqn, err,
					sizeof(err)),
			 0);
	assert_int_equal(nr, 4);
	assert_string_equal(a[0].tr, "");
	assert_string_equal(a[1].tr, "rdma");
	assert_string_equal(a[1].host, "10.0.0.1");
	assert_string_equal(a[1].port, "4420");
	assert_string_equal(a[2].tr, "tcp");
	assert_string_equal(a[2].host, "::1");
	assert_string_equal(a[3].tr, "");
	assert_string_equal(a[3].host, "localhost");
}

static void expect_bad(const char *s, const char *msg)
{
	struct mp_addr a[4];
	char nqn[256], err[256] = "";
	unsigned nr = 0;

	if (mp_parse_addrs(s, a, 4, &nr, nqn, err, sizeof(err)) != -EINVAL)
		fail_msg("'%s' accepted", s);
	if (!strstr(err, msg))
		fail_msg("'%s': '%s' lacks '%s'", s, err, msg);
}

static void test_addrs_bad(void **state)
{
	(void)state;
	expect_bad("a:1,,b:2/n", "empty path");
	expect_bad(",a:1/n", "empty path");
	expect_bad("a:1,/n", "empty path");
	expect_bad("a:1,a:1/n", "given twice");
	expect_bad("rdma:a:1,rdma:a:1/n", "given twice");
	expect_bad("toolongname:a:1/n", "bad transport");
	expect_bad("a:1,b/n", "no port in 'b'");
	expect_bad("a:1,b:0/n", "bad port");
	expect_bad("a:1,b:65536/n", "bad port");
	expect_bad("a:1,b:1x/n", "bad port");
	expect_bad("a:1,b:2", "expected nvme-tcp://");
	expect_bad("a:1,b:2/", "expected nvme-tcp://");
	expect_bad("[::1]4420/n", "bad address");
	expect_bad("[::1:4420/n", "expected nvme-tcp://"); /* no ']' */
	expect_bad("a:1,b:2,c:3,d:4,e:5/n", "more than 4 paths");
}

static void test_iopolicy(void **state)
{
	enum mp_iopolicy p;

	(void)state;
	assert_int_equal(mp_parse_iopolicy("numa", &p), 0);
	assert_int_equal(p, MP_IOPOLICY_NUMA);
	assert_int_equal(mp_parse_iopolicy("round-robin", &p), 0);
	assert_int_equal(p, MP_IOPOLICY_RR);
	assert_int_equal(mp_parse_iopolicy("queue-depth", &p), 0);
	assert_int_equal(p, MP_IOPOLICY_QD);
	assert_int_equal(mp_parse_iopolicy("round_robin", &p), -EINVAL);
	assert_int_equal(mp_parse_iopolicy("", &p), -EINVAL);
	assert_string_equal(mp_iopolicy_name(MP_IOPOLICY_QD), "queue-depth");
}

/* ---- ANA log ---- */

static size_t put_hdr(uint8_t *b, unsigned ngrps)
{
	memset(b, 0, MP_ANA_HDR_SIZE);
	b[0] = 7; /* chgcnt */
	b[8] = (uint8_t)ngrps;
	b[9] = (uint8_t)(ngrps >> 8);
	return MP_ANA_HDR_SIZE;
}

static size_t put_group(uint8_t *b, uint32_t grpid, uint8_t st, unsigned nnsids)
{
	unsigned i;

	memset(b, 0, MP_ANA_DESC_SIZE + 4 * nnsids);
	memcpy(b, &grpid, 4); /* little-endian host */
	memcpy(b + 4, &nnsids, 4);
	b[16] = st;
	for (i = 0; i < nnsids; i++)
		b[MP_ANA_DESC_SIZE + 4 * i] = (uint8_t)(i + 1);
	return MP_ANA_DESC_SIZE + 4 * nnsids;
}

static void test_ana_log(void **state)
{
	uint8_t log[512];
	size_t len;
	uint8_t st = 0;

	(void)state;
	len = put_hdr(log, 3);
	len += put_group(log + len, 1, MP_ANA_OPTIMIZED, 2);
	len += put_group(log + len, 2, MP_ANA_INACCESSIBLE, 0);
	len += put_group(log + len, 5, 0xf0 | MP_ANA_NONOPTIMIZED, 1);
	assert_int_equal(mp_ana_log_check(log, len), 3);
	assert_int_equal(mp_ana_log_state(log, len, 1, &st), 0);
	assert_int_equal(st, MP_ANA_OPTIMIZED);
	assert_int_equal(mp_ana_log_state(log, len, 2, &st), 0);
	assert_int_equal(st, MP_ANA_INACCESSIBLE);
	/* reserved bits 7:4 of the state byte are ignored */
	assert_int_equal(mp_ana_log_state(log, len, 5, &st), 0);
	assert_int_equal(st, MP_ANA_NONOPTIMIZED);
	assert_int_equal(mp_ana_log_state(log, len, 3, &st), -ENOENT);
	/* the buffer may be longer than the log (a 4 KiB read) */
	assert_int_equal(mp_ana_log_check(log, sizeof(log)), 3);
	/* cut inside the last NSID list, inside a descriptor, the header */
	assert_int_equal(mp_ana_log_check(log, len - 1), -EBADMSG);
	assert_int_equal(mp_ana_log_state(log, len - 1, 1, &st), -EBADMSG);
	assert_int_equal(mp_ana_log_check(log, MP_ANA_HDR_SIZE + 10), -EBADMSG);
	assert_int_equal(mp_ana_log_check(log, 8), -EBADMSG);
	/* no groups */
	len = put_hdr(log, 0);
	assert_int_equal(mp_ana_log_check(log, len), 0);
	assert_int_equal(mp_ana_log_state(log, len, 1, &st), -ENOENT);
	/* an NSID count that runs past the end (and would wrap 32 bits) */
	len = put_hdr(log, 1);
	len += put_group(log + len, 1, MP_ANA_OPTIMIZED, 0);
	log[MP_ANA_HDR_SIZE + 4] = 0xff;
	log[MP_ANA_HDR_SIZE + 5] = 0xff;
	log[MP_ANA_HDR_SIZE + 6] = 0xff;
	log[MP_ANA_HDR_SIZE + 7] = 0x7f;
	assert_int_equal(mp_ana_log_check(log, sizeof(log)), -EBADMSG);
	/* group id 0 is not a group */
	len = put_hdr(log, 1);
	len += put_group(log + len, 0, MP_ANA_OPTIMIZED, 0);
	assert_int_equal(mp_ana_log_check(log, len), -EBADMSG);
	/* more groups claimed than there are */
	len = put_hdr(log, 2);
	len += put_group(log + len, 1, MP_ANA_OPTIMIZED, 0);
	assert_int_equal(mp_ana_log_check(log, len), -EBADMSG);
}

/* ---- discovery log records ---- */

static const char *tr_tcp_rdma(uint8_t trtype)
{
	return trtype == 3 ? "tcp" : trtype == 1 ? "rdma" : NULL;
}

/* one record: trtype, space-padded TRSVCID and TRADDR, NUL-padded NQN */
static void disc_rec(uint8_t *e, uint8_t trtype, const char *addr,
		     const char *port, const char *nqn)
{
	memset(e, 0, MP_DISC_ENTRY_SIZE);
	e[0] = trtype;
	memset(e + 32, ' ', 32);
	memcpy(e + 32, port, strlen(port));
	memcpy(e + 256, nqn, strlen(nqn));
	memset(e + 512, ' ', 256);
	memcpy(e + 512, addr, strlen(addr));
}

static void test_disc_paths(void **state)
{
	static uint8_t log[8 * MP_DISC_ENTRY_SIZE];
	struct mp_addr a[MP_MAX_PATHS], b;
	uint8_t *e = log;

	(void)state;
	disc_rec(e, 3, "10.0.0.1", "4420", "nqn.x:a");
	disc_rec(e += MP_DISC_ENTRY_SIZE, 3, "10.0.0.2", "4420", "nqn.x:b");
	disc_rec(e += MP_DISC_ENTRY_SIZE, 3, "10.0.0.1", "4420", "nqn.x:a");
	disc_rec(e += MP_DISC_ENTRY_SIZE, 2, "10.0.0.3", "4420", "nqn.x:a");
	disc_rec(e += MP_DISC_ENTRY_SIZE, 1, "10.0.0.1", "4420", "nqn.x:a");
	disc_rec(e += MP_DISC_ENTRY_SIZE, 3, "fe80::1", "4421", "nqn.x:a");
	disc_rec(e += MP_DISC_ENTRY_SIZE, 3, "", "4420", "nqn.x:a");
	disc_rec(e += MP_DISC_ENTRY_SIZE, 3, "10.0.0.4", "4420", "nqn.x:aa");
	/* another NQN, a repeat, an unknown transport (FC), no address and
	 * a longer NQN are left out; the same address over RDMA is a path */
	assert_int_equal(mp_disc_paths(log, 8, "nqn.x:a", tr_tcp_rdma, a,
				       MP_MAX_PATHS),
			 3);
	assert_string_equal(a[0].tr, "tcp");
	assert_string_equal(a[0].host, "10.0.0.1");
	assert_string_equal(a[0].port, "4420");
	assert_string_equal(a[1].tr, "rdma");
	assert_string_equal(a[1].host, "10.0.0.1");
	assert_string_equal(a[2].host, "fe80::1");
	assert_string_equal(a[2].port, "4421");
	assert_true(mp_addr_same(&a[0], &a[0]));
	assert_false(mp_addr_same(&a[0], &a[1]));
	b = a[2];
	assert_true(mp_addr_same(&a[2], &b));
	/* max: the first ones; no records, or another NQN: none */
	assert_int_equal(mp_disc_paths(log, 8, "nqn.x:a", tr_tcp_rdma, a, 1),
			 1);
	assert_int_equal(mp_disc_paths(log, 0, "nqn.x:a", tr_tcp_rdma, a,
				       MP_MAX_PATHS),
			 0);
	assert_int_equal(mp_disc_paths(log, 8, "nqn.x:c", tr_tcp_rdma, a,
				       MP_MAX_PATHS),
			 0);
	/* a port too long for a path (8 bytes with its NUL) is left out */
	disc_rec(log, 3, "10.0.0.1", "123456789", "nqn.x:a");
	assert_int_equal(mp_disc_paths(log, 1, "nqn.x:a", tr_tcp_rdma, a,
				       MP_MAX_PATHS),
			 0);
}

static void test_status(void **state)
{
	(void)state;
	assert_true(mp_status_fails_over(0x301));
	assert_true(mp_status_fails_over(0x302));
	assert_true(mp_status_fails_over(0x303));
	assert_true(mp_status_fails_over(0x370));
	assert_true(mp_status_fails_over(0x371));
	assert_true(mp_status_fails_over(0x300));
	assert_true(mp_status_fails_over(0x2000 | 0x302)); /* More */
	assert_false(mp_status_fails_over(0x4000 | 0x302)); /* DNR */
	assert_false(mp_status_fails_over(0));
	assert_false(mp_status_fails_over(0x002));
	/* SQ deleted: the command did not run; its controller is going */
	assert_true(mp_status_fails_over(0x008));
	assert_false(mp_status_fails_over(0x4000 | 0x008));
	assert_false(mp_status_fails_over(0x108)); /* SCT 1h, SC 08h */
	assert_false(mp_status_fails_over(0x281));
	assert_false(mp_status_fails_over(0x022)); /* transient transport */
	assert_int_equal(mp_status_ana_state(0x301), MP_ANA_PERSISTENT_LOSS);
	assert_int_equal(mp_status_ana_state(0x302), MP_ANA_INACCESSIBLE);
	assert_int_equal(mp_status_ana_state(0x303), MP_ANA_CHANGE);
	assert_int_equal(mp_status_ana_state(0x370), 0);
	assert_int_equal(mp_status_ana_state(0x4302), MP_ANA_INACCESSIBLE);
}

/* A path that did not answer is retried; one that answered no is not. */
static void test_transient(void **state)
{
	(void)state;
	assert_true(mp_err_transient(-ECONNREFUSED));
	assert_true(mp_err_transient(ECONNREFUSED));
	assert_true(mp_err_transient(-ETIMEDOUT));
	assert_true(mp_err_transient(-ECONNRESET));
	assert_true(mp_err_transient(-EHOSTUNREACH));
	assert_true(mp_err_transient(-ENETUNREACH));
	assert_false(mp_err_transient(-EACCES)); /* host not allowed */
	assert_false(mp_err_transient(-EINVAL)); /* bad Connect parameter */
	assert_false(mp_err_transient(-EPROTO)); /* a peer off the wire spec */
	assert_false(mp_err_transient(-ENOMEM));
	assert_false(mp_err_transient(0));
}

/* A group in change is given twice ANATT before its controller is reset. */
static void test_anatt(void **state)
{
	(void)state;
	assert_int_equal(mp_anatt_ms(10), 20000);
	assert_int_equal(mp_anatt_ms(1), 2000);
	assert_int_equal(mp_anatt_ms(255), 510000);
	assert_int_equal(mp_anatt_ms(0), 2000); /* not reported */
}

/* ---- path selection ---- */

#define O MP_ANA_OPTIMIZED
#define N MP_ANA_NONOPTIMIZED
#define I MP_ANA_INACCESSIBLE
#define L MP_ANA_PERSISTENT_LOSS
#define C MP_ANA_CHANGE

static void views(struct mp_path_view *v, unsigned nr, const uint8_t *ana,
		  const bool *usable)
{
	unsigned i;

	for (i = 0; i < nr; i++) {
		v[i].ana = ana[i];
		v[i].usable = usable ? usable[i] : true;
		v[i].inflight = 0;
	}
}

static void test_numa(void **state)
{
	struct mp_path_view v[4];
	int cur = -1;

	(void)state;
	/* the first optimized one, sticky */
	views(v, 4, (const uint8_t[]){ N, O, O, I }, NULL);
	assert_int_equal(mp_select(MP_IOPOLICY_NUMA, v, 4, &cur), 1);
	assert_int_equal(mp_select(MP_IOPOLICY_NUMA, v, 4, &cur), 1);
	assert_int_equal(cur, 1);
	/* the current one goes down: the next optimized, sticky again */
	v[1].usable = false;
	assert_int_equal(mp_select(MP_IOPOLICY_NUMA, v, 4, &cur), 2);
	v[1].usable = true;
	assert_int_equal(mp_select(MP_IOPOLICY_NUMA, v, 4, &cur), 2);
	/* the current one turns non-optimized: an optimized one instead */
	v[2].ana = N;
	assert_int_equal(mp_select(MP_IOPOLICY_NUMA, v, 4, &cur), 1);
	/* no optimized path: the first non-optimized */
	views(v, 4, (const uint8_t[]){ I, N, N, C }, NULL);
	assert_int_equal(mp_select(MP_IOPOLICY_NUMA, v, 4, &cur), 1);
	/* inaccessible, persistent loss, change: none */
	views(v, 3, (const uint8_t[]){ I, L, C }, NULL);
	cur = -1;
	assert_int_equal(mp_select(MP_IOPOLICY_NUMA, v, 3, &cur), -1);
	assert_int_equal(cur, -1);
	/* optimized but not usable (controller resetting) is skipped */
	views(v, 2, (const uint8_t[]){ O, N }, (const bool[]){ false, true });
	assert_int_equal(mp_select(MP_IOPOLICY_NUMA, v, 2, &cur), 1);
}

static void test_round_robin(void **state)
{
	struct mp_path_view v[4];
	int cur = -1, i, hits[4] = { 0 };

	(void)state;
	views(v, 4, (const uint8_t[]){ O, N, O, O }, NULL);
	for (i = 0; i < 300; i++)
		hits[mp_select(MP_IOPOLICY_RR, v, 4, &cur)]++;
	/* rotates over the optimized ones only, evenly */
	assert_int_equal(hits[0], 100);
	assert_int_equal(hits[1], 0);
	assert_int_equal(hits[2], 100);
	assert_int_equal(hits[3], 100);
	/* one optimized: always it, not the non-optimized one */
	views(v, 3, (const uint8_t[]){ N, O, N }, NULL);
	cur = 1;
	assert_int_equal(mp_select(MP_IOPOLICY_RR, v, 3, &cur), 1);
	assert_int_equal(mp_select(MP_IOPOLICY_RR, v, 3, &cur), 1);
	/* no optimized: rotates over the non-optimized */
	views(v, 3, (const uint8_t[]){ N, I, N }, NULL);
	cur = 0;
	assert_int_equal(mp_select(MP_IOPOLICY_RR, v, 3, &cur), 2);
	assert_int_equal(mp_select(MP_IOPOLICY_RR, v, 3, &cur), 0);
	/* the current one non-optimized and unusable others: stays */
	views(v, 2, (const uint8_t[]){ N, O }, (const bool[]){ true, false });
	cur = 0;
	assert_int_equal(mp_select(MP_IOPOLICY_RR, v, 2, &cur), 0);
	/* nothing usable */
	views(v, 2, (const uint8_t[]){ C, O }, (const bool[]){ true, false });
	assert_int_equal(mp_select(MP_IOPOLICY_RR, v, 2, &cur), -1);
	/* a current index out of range (paths changed): starts over */
	views(v, 2, (const uint8_t[]){ O, O }, NULL);
	cur = 9;
	assert_int_equal(mp_select(MP_IOPOLICY_RR, v, 2, &cur), 0);
}

static void test_queue_depth(void **state)
{
	struct mp_path_view v[4];
	int cur = -1;

	(void)state;
	views(v, 4, (const uint8_t[]){ O, O, N, O }, NULL);
	v[0].inflight = 5;
	v[1].inflight = 3;
	v[2].inflight = 0; /* non-optimized: only without optimized */
	v[3].inflight = 4;
	assert_int_equal(mp_select(MP_IOPOLICY_QD, v, 4, &cur), 1);
	v[3].inflight = 0;
	assert_int_equal(mp_select(MP_IOPOLICY_QD, v, 4, &cur), 3);
	/* the least busy optimized one even when busier than a
	 * non-optimized one */
	v[3].usable = false;
	assert_int_equal(mp_select(MP_IOPOLICY_QD, v, 4, &cur), 1);
	/* no optimized: the least busy non-optimized */
	views(v, 3, (const uint8_t[]){ N, N, I }, NULL);
	v[0].inflight = 2;
	v[1].inflight = 1;
	assert_int_equal(mp_select(MP_IOPOLICY_QD, v, 3, &cur), 1);
	views(v, 2, (const uint8_t[]){ L, C }, NULL);
	assert_int_equal(mp_select(MP_IOPOLICY_QD, v, 2, &cur), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addrs_ok),
		cmocka_unit_test(test_addrs_bad),
		cmocka_unit_test(test_iopolicy),
		cmocka_unit_test(test_ana_log),
		cmocka_unit_test(test_disc_paths),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_transient),
		cmocka_unit_test(test_anatt),
		cmocka_unit_test(test_numa),
		cmocka_unit_test(test_round_robin),
		cmocka_unit_test(test_queue_depth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
