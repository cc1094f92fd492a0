// SPDX-License-Identifier: MIT
/*
 * Unit tests of src/target/core/req.c's checks before a command runs,
 * where a wire test cannot place a command at will: one that arrives
 * after its controller's keep-alive ran out but before the admin queue's
 * tick has torn the controller down (a reactor stopped between its tick
 * and its sockets, then resumed) keeps nothing alive and is answered SQ
 * Deletion; one within KATO restarts the timer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "mqblk/mqblk.h"
#include "target/core/nvmet.h"
#include "target/target.h"

/* ---- Doubles: what req.c calls in admin_cmd.c, config.c, the reactor ----
 * The tests give it only commands answered before any of these runs but
 * the namespace lookup (none) and the admin data direction (none). */

struct tgt_ns *tgt_subsys_ns(struct tgt_subsys *s, uint32_t nsid)
{
	(void)s, (void)nsid;
	return NULL;
}

int tgt_admin_data_dir(const union nvme_command *sqe)
{
	(void)sqe;
	return 0;
}

bool tgt_auth_pending(const struct tgt_queue *q)
{
	(void)q;
	return false;
}

uint16_t tgt_admin_exec(struct tgt_ctrl *ctrl, const union nvme_command *c,
			void *buf, uint32_t len, uint32_t *result)
{
	(void)ctrl, (void)c, (void)buf, (void)len, (void)result;
	fail_msg("tgt_admin_exec");
	return 0;
}

void tgt_ctrl_log_error(struct tgt_ctrl *ctrl, uint16_t sqid, uint16_t cid,
			uint16_t status, uint16_t param_loc, uint64_t lba,
			uint32_t nsid)
{
	(void)ctrl, (void)sqid, (void)cid, (void)status, (void)param_loc;
	(void)lba, (void)nsid;
	fail_msg("tgt_ctrl_log_error");
}

void *tgt_buf_get(struct tgt_reactor *r, uint32_t len, uint32_t *cap)
{
	(void)r, (void)len, (void)cap;
	fail_msg("tgt_buf_get");
	return NULL;
}

void tgt_buf_put(struct tgt_reactor *r, void *buf, uint32_t cap)
{
	(void)r, (void)buf, (void)cap;
	fail_msg("tgt_buf_put");
}

void tgt_fabrics_exec(struct tgt_req *req)
{
	(void)req;
	fail_msg("tgt_fabrics_exec");
}

struct mqblk_queue *tgt_ns_queue(struct tgt_reactor *r, struct tgt_ns *ns)
{
	(void)r, (void)ns;
	fail_msg("tgt_ns_queue");
	return NULL;
}

void tgt_reactor_wait_tag(struct tgt_reactor *r, struct tgt_req *req)
{
	(void)r, (void)req;
	fail_msg("tgt_reactor_wait_tag");
}

/* ---- Tests --------------------------------------------------------------- */

#define MS 1000000ull

static union nvme_command cmd(uint8_t opcode, uint16_t cid, uint32_t nsid)
{
	union nvme_command c;

	memset(&c, 0, sizeof(c));
	c.common.opcode = opcode;
	c.common.command_id = cid;
	c.common.nsid = cpu_to_le32(nsid);
	return c;
}

/* init then prepare, as a transport does once the capsule is in */
static uint16_t arrive(struct tgt_queue *q, struct tgt_req *r,
		       union nvme_command c)
{
	memset(r, 0, sizeof(*r));
	r->sqe = c;
	tgt_req_init(r, q);
	return tgt_req_prepare(r);
}

static void test_command_past_kato(void **state)
{
	struct tgt_ctrl ctrl = { .kato_ms = 1000, .csts = NVME_CSTS_RDY };
	struct tgt_queue io = {
		.ctrl = &ctrl, .qid = 1, .sqsize = 31, .connected = true
	};
	struct tgt_queue adm = { .ctrl = &ctrl,
				 .sqsize = 31,
				 .connected = true };
	struct tgt_req r;
	uint64_t stale = mqblk_clock_ns() - 1500 * MS;

	(void)state;
	/* 1.5 s since anything, KATO 1 s: a Write and a Keep Alive are
	 * answered SQ Deletion and leave the timer where it was */
	ctrl.last_ka_ns = stale;
	assert_int_equal(arrive(&io, &r, cmd(nvme_cmd_write, 9, 1)),
			 NVME_SC_ABORT_QUEUE);
	assert_int_equal(ctrl.last_ka_ns, stale);
	assert_int_equal(arrive(&adm, &r, cmd(nvme_admin_keep_alive, 10, 0)),
			 NVME_SC_ABORT_QUEUE);
	assert_int_equal(ctrl.last_ka_ns, stale);
	/* the admin queue's tick tears it down, not the command */
	assert_false(ctrl.dead);
	assert_true(tgt_ka_expired(&ctrl, mqblk_clock_ns()));

	/* 0.5 s: the timer starts over at the command; the Write goes on to
	 * its namespace check (none here) */
	ctrl.last_ka_ns = mqblk_clock_ns() - 500 * MS;
	assert_int_equal(arrive(&adm, &r, cmd(nvme_admin_keep_alive, 11, 0)),
			 0);
	assert_int_equal(ctrl.last_ka_ns, r.start_ns);
	ctrl.last_ka_ns = mqblk_clock_ns() - 500 * MS;
	assert_int_equal(arrive(&io, &r, cmd(nvme_cmd_write, 12, 1)),
			 NVME_SC_INVALID_NS | NVME_SC_DNR);
	assert_int_equal(ctrl.last_ka_ns, r.start_ns);

	/* KATO 0 (no keep-alive): never too late */
	ctrl.kato_ms = 0;
	ctrl.last_ka_ns = stale;
	assert_false(tgt_ka_expired(&ctrl, mqblk_clock_ns()));
	assert_int_equal(arrive(&adm, &r, cmd(nvme_admin_keep_alive, 13, 0)),
			 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_command_past_kato),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
