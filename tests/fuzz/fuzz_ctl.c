// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the input is a control socket line (what `mqblk ctl`
 * sends). tgt_ctl_parse either refuses it with a one-line reason or
 * returns a command whose fields are in range; the port it names is then
 * looked up in a two-port target (plus a discovery port) built from a
 * command line, as the target does before running it (ns-set names no
 * port: refused there).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "target/target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct tgt target;
static bool have_target;

static void check_error(const char *err, size_t errlen)
{
	FUZZ_CHECK(memchr(err, 0, errlen) != NULL);
	FUZZ_CHECK(err[0] != 0);
	FUZZ_CHECK(strchr(err, '\n') == NULL);
}

static void make_target(void)
{
	static char *argv[] = {
		"target",
		"--listen",
		"127.0.0.1:4420",
		"--listen",
		"[::1]:4421",
		"--nqn",
		"nqn.2026-01.io.mqblk:fuzz",
		"--ns",
		"null:size=1m",
		"--ns",
		"null:size=1m",
		"--ana-group",
		"2:7",
		"--discovery-port",
		"8009",
	};
	char err[256];

	FUZZ_CHECK(tgt_config_args(&target, sizeof(argv) / sizeof(argv[0]),
				   argv, err, sizeof(err)) == 0);
	have_target = true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tgt_ctl_cmd cmd;
	struct tgt_port *p;
	char err[256];

	if (!have_target)
		make_target();
	memset(err, 0, sizeof(err));
	if (tgt_ctl_parse((const char *)data, size, &cmd, err, sizeof(err))) {
		check_error(err, sizeof(err));
		return 0;
	}
	switch (cmd.op) {
	case TGT_CTL_ANA:
		FUZZ_CHECK(cmd.grp >= 1 && cmd.grp <= TGT_MAX_ANA_GROUPS);
		FUZZ_CHECK(nvme_ana_state_name(cmd.state) != NULL);
		/* fallthrough */
	case TGT_CTL_PORT_DOWN:
	case TGT_CTL_PORT_UP:
		FUZZ_CHECK(memchr(cmd.port, 0, sizeof(cmd.port)) != NULL);
		FUZZ_CHECK(cmd.port[0] != 0);
		memset(err, 0, sizeof(err));
		p = tgt_ctl_port(&target, &cmd, err, sizeof(err));
		if (!p) {
			check_error(err, sizeof(err));
			break;
		}
		FUZZ_CHECK(p >= target.ports &&
			   p < target.ports + target.nr_ports);
		if (cmd.op == TGT_CTL_ANA) {
			FUZZ_CHECK(!p->discovery_only);
			FUZZ_CHECK(cmd.grp == 1 || cmd.grp == 7);
		}
		break;
	case TGT_CTL_STATS:
		FUZZ_CHECK(cmd.format == TGT_CTL_TEXT ||
			   cmd.format == TGT_CTL_JSON ||
			   cmd.format == TGT_CTL_TABLE);
		break;
	case TGT_CTL_NS_SET:
		/* words checked for form: the NQN, NSID, KEY and VALUE the
		 * target looks up and the driver judges */
		FUZZ_CHECK(memchr(cmd.nqn, 0, sizeof(cmd.nqn)) != NULL);
		FUZZ_CHECK(cmd.nqn[0] != 0);
		FUZZ_CHECK(cmd.nsid >= 1 && cmd.nsid < UINT32_MAX);
		FUZZ_CHECK(memchr(cmd.key, 0, sizeof(cmd.key)) != NULL);
		FUZZ_CHECK(cmd.key[0] != 0 && !strchr(cmd.key, '='));
		FUZZ_CHECK(memchr(cmd.val, 0, sizeof(cmd.val)) != NULL);
		FUZZ_CHECK(cmd.val[0] != 0);
		memset(err, 0, sizeof(err));
		FUZZ_CHECK(tgt_ctl_port(&target, &cmd, err, sizeof(err)) ==
			   NULL);
		check_error(err, sizeof(err));
		break;
	default:
		FUZZ_CHECK(!"unknown op");
	}
	return 0;
}
