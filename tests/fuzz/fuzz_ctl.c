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
#include "target/config/config.h"
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

static bool terminated(const char *s, size_t size)
{
	return memchr(s, 0, size) != NULL;
}

/* What tgt_ctl_config_parse promised of a live configuration command. */
static void check_live(const struct tgt_ctl_cmd *c)
{
	FUZZ_CHECK(terminated(c->nqn, sizeof(c->nqn)));
	FUZZ_CHECK(terminated(c->hostnqn, sizeof(c->hostnqn)));
	FUZZ_CHECK(terminated(c->uri, sizeof(c->uri)));
	FUZZ_CHECK(terminated(c->serial, sizeof(c->serial)));
	FUZZ_CHECK(terminated(c->model, sizeof(c->model)));
	FUZZ_CHECK(terminated(c->traddr, sizeof(c->traddr)));
	FUZZ_CHECK(terminated(c->trsvcid, sizeof(c->trsvcid)));
	FUZZ_CHECK(terminated(c->dhchap_key, sizeof(c->dhchap_key)));
	FUZZ_CHECK(terminated(c->tls_key, sizeof(c->tls_key)));
	/* keys are add-host's alone */
	FUZZ_CHECK(c->op == TGT_CTL_ADD_HOST ||
		   (!c->dhchap_key[0] && !c->tls_key[0]));
	FUZZ_CHECK(c->enable >= -1 && c->enable <= 1);
	FUZZ_CHECK(c->allow_any >= -1 && c->allow_any <= 1);
	FUZZ_CHECK(c->anagrpid <= TGT_MAX_ANA_GROUPS);
	switch (c->op) {
	case TGT_CTL_ADD_PORT:
		FUZZ_CHECK(c->trtype == NVMF_TRTYPE_TCP ||
			   c->trtype == NVMF_TRTYPE_RDMA);
		FUZZ_CHECK(c->traddr[0] && c->trsvcid[0]);
		break;
	case TGT_CTL_REMOVE_PORT:
		break;
	case TGT_CTL_LINK:
	case TGT_CTL_UNLINK:
		FUZZ_CHECK(c->port[0] && c->nqn[0]);
		break;
	case TGT_CTL_ALLOW_HOST:
	case TGT_CTL_DISALLOW_HOST:
		FUZZ_CHECK(c->nqn[0] && c->hostnqn[0]);
		break;
	case TGT_CTL_ALLOW_ANY_HOST:
		FUZZ_CHECK(c->nqn[0] && c->allow_any >= 0);
		break;
	case TGT_CTL_ADD_NS:
		FUZZ_CHECK(c->uri[0]);
		/* fallthrough */
	case TGT_CTL_REMOVE_NS:
	case TGT_CTL_ENABLE_NS:
	case TGT_CTL_DISABLE_NS:
		FUZZ_CHECK(c->nsid >= 1 && c->nsid <= TGT_MAX_NS);
		/* fallthrough */
	default:
		FUZZ_CHECK(c->nqn[0]);
		FUZZ_CHECK(tgt_cfg_nqn_problem(c->nqn, strlen(c->nqn)) == NULL);
		break;
	}
	if (c->op != TGT_CTL_ADD_NS)
		FUZZ_CHECK(!c->has_uuid && !c->has_nguid && !c->anagrpid);
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
	/* -o: one of the formats, json said in both fields, a table for
	 * stats alone */
	FUZZ_CHECK(cmd.format == TGT_CTL_TEXT || cmd.format == TGT_CTL_JSON ||
		   cmd.format == TGT_CTL_TABLE);
	FUZZ_CHECK(cmd.json == (cmd.format == TGT_CTL_JSON));
	FUZZ_CHECK(cmd.format != TGT_CTL_TABLE || cmd.op == TGT_CTL_STATS);
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
		break;
	case TGT_CTL_ADD_SUBSYS:
	case TGT_CTL_REMOVE_SUBSYS:
	case TGT_CTL_ADD_NS:
	case TGT_CTL_REMOVE_NS:
	case TGT_CTL_ENABLE_NS:
	case TGT_CTL_DISABLE_NS:
	case TGT_CTL_ADD_PORT:
	case TGT_CTL_REMOVE_PORT:
	case TGT_CTL_LINK:
	case TGT_CTL_UNLINK:
	case TGT_CTL_ADD_HOST:
	case TGT_CTL_REMOVE_HOST:
	case TGT_CTL_ALLOW_HOST:
	case TGT_CTL_DISALLOW_HOST:
	case TGT_CTL_ALLOW_ANY_HOST:
		check_live(&cmd);
		/* not a port command: tgt_ctl_port refuses it */
		memset(err, 0, sizeof(err));
		FUZZ_CHECK(tgt_ctl_port(&target, &cmd, err, sizeof(err)) ==
			   NULL);
		check_error(err, sizeof(err));
		break;
	case TGT_CTL_SAVE:
	case TGT_CTL_SHOW:
		/* save: FILE or "" (--config's), terminated; show: nothing */
		FUZZ_CHECK(terminated(cmd.path, sizeof(cmd.path)));
		FUZZ_CHECK(cmd.op == TGT_CTL_SAVE || !cmd.path[0]);
		FUZZ_CHECK(!cmd.nqn[0] && !cmd.port[0]);
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
