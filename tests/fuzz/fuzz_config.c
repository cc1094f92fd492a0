// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the input is an nvmetcli JSON file. It goes through
 * cj_parse (json-c's tree walked and checked) and tgt_config_load_buf (the
 * model checked: ports, subsystems, namespaces, hosts), then everything
 * is freed (LeakSanitizer watches that). An input starting "ARGS\n" is
 * instead a NUL-separated `mqblk target` command line for
 * tgt_config_args.
 */
#include <math.h>
#include <stdio.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "target/config/json.h"
#include "target/target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 64

/* A refusal: a non-empty one-line message, terminated inside err. */
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

/* Valid UTF-8 by a second, independent reading: any byte >= 0x80 starts
 * a sequence whose continuation bytes are 10xxxxxx. */
static bool utf8_ok(const unsigned char *s, size_t len)
{
	size_t i = 0, n, k;

	while (i < len) {
		if (s[i] < 0x80)
			n = 1;
		else if ((s[i] & 0xe0) == 0xc0 && s[i] >= 0xc2)
			n = 2;
		else if ((s[i] & 0xf0) == 0xe0)
			n = 3;
		else if ((s[i] & 0xf8) == 0xf0 && s[i] <= 0xf4)
			n = 4;
		else
			return false;
		if (len - i < n)
			return false;
		for (k = 1; k < n; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
		i += n;
	}
	return true;
}

static void check_json(const struct json_object *v, unsigned depth)
{
	const char *str;
	size_t i, n, len;
	int64_t iv;
	double d;
	bool b;

	FUZZ_CHECK(depth <= JSON_MAX_DEPTH + 1);
	switch (cj_type(v)) {
	case CJ_NULL:
		break;
	case CJ_BOOL:
		FUZZ_CHECK(!cj_bool(v, &b));
		break;
	case CJ_NUMBER:
		FUZZ_CHECK(!cj_num(v, &d));
		FUZZ_CHECK(isfinite(d));
		if (!cj_int(v, &iv))
			FUZZ_CHECK((double)iv == d);
		break;
	case CJ_STRING:
		str = cj_str(v, &len);
		FUZZ_CHECK(str[len] == 0);
		FUZZ_CHECK(len <= JSON_MAX_STRING);
		FUZZ_CHECK(utf8_ok((const unsigned char *)str, len));
		break;
	case CJ_ARRAY:
		n = cj_count(v);
		for (i = 0; i < n; i++)
			check_json(cj_at(v, i), depth + 1);
		FUZZ_CHECK(cj_at(v, n) == NULL);
		break;
	case CJ_OBJECT:
		n = 0;
		json_object_object_foreach((struct json_object *)v, key, m)
		{
			FUZZ_CHECK(utf8_ok((const unsigned char *)key,
					   strlen(key)));
			/* keys are unique: the lookup finds this member */
			FUZZ_CHECK(cj_get(v, key) != NULL);
			if (m)
				FUZZ_CHECK(cj_get(v, key) == m);
			else
				FUZZ_CHECK(cj_type(cj_get(v, key)) == CJ_NULL);
			check_json(cj_get(v, key), depth + 1);
			n++;
		}
		FUZZ_CHECK(n == cj_count(v));
		break;
	default:
		FUZZ_CHECK(!"bad json type");
	}
}

static bool nqn_ok(const char *nqn)
{
	size_t len;

	if (!terminated(nqn, TGT_NQN_MAX + 1))
		return false;
	len = strlen(nqn);
	return len >= 1 && len <= TGT_NQN_MAX;
}

static bool is_subsys(const struct tgt *t, const struct tgt_subsys *s)
{
	unsigned i;

	for (i = 0; i < t->nr_subsys; i++)
		if (t->subsys[i] == s)
			return true;
	return false;
}

static void check_subsys(const struct tgt_subsys *s)
{
	unsigned i;

	FUZZ_CHECK(nqn_ok(s->nqn));
	FUZZ_CHECK(strcmp(s->nqn, NVME_DISC_SUBSYS_NAME) != 0);
	FUZZ_CHECK(!s->discovery);
	FUZZ_CHECK(terminated(s->serial, sizeof(s->serial)));
	FUZZ_CHECK(terminated(s->model, sizeof(s->model)));
	FUZZ_CHECK(terminated(s->firmware, sizeof(s->firmware)));
	FUZZ_CHECK(s->serial[0] && s->model[0] && s->firmware[0]);
	FUZZ_CHECK(s->cntlid_min >= 1 && s->cntlid_min <= s->cntlid_max &&
		   s->cntlid_max <= 0xffef);
	FUZZ_CHECK(!(s->allow_any_host && s->nr_hosts));
	FUZZ_CHECK(s->nr_hosts == 0 || s->hosts != NULL);
	for (i = 0; i < s->nr_hosts; i++) {
		FUZZ_CHECK(nqn_ok(s->hosts[i].nqn));
		FUZZ_CHECK(tgt_host_allowed(s, s->hosts[i].nqn));
	}
	FUZZ_CHECK(s->nr_ns <= TGT_MAX_NS);
	FUZZ_CHECK(s->nr_ns == 0 || s->ns != NULL);
	for (i = 0; i < s->nr_ns; i++) {
		struct tgt_ns *ns = s->ns[i];

		FUZZ_CHECK(ns->nsid >= 1 && ns->nsid <= TGT_MAX_NS);
		if (i)
			FUZZ_CHECK(s->ns[i - 1]->nsid < ns->nsid);
		if (ns->enabled)
			FUZZ_CHECK(ns->uri && ns->uri[0]);
		FUZZ_CHECK(tgt_subsys_ns((struct tgt_subsys *)s, ns->nsid) ==
			   (ns->enabled ? ns : NULL));
		FUZZ_CHECK(ns->dev == NULL && ns->q == NULL);
	}
	FUZZ_CHECK(tgt_subsys_ns((struct tgt_subsys *)s, 0) == NULL);
}

static void check_tgt(const struct tgt *t)
{
	unsigned i, j;

	FUZZ_CHECK(t->disc.discovery && t->disc.allow_any_host);
	FUZZ_CHECK(nqn_ok(t->disc.nqn));
	FUZZ_CHECK(t->disc.nr_ns == 0 && t->disc.nr_hosts == 0);
	FUZZ_CHECK(t->stall_ms > 0);
	FUZZ_CHECK(t->nr_ports >= 1 && t->ports != NULL);
	for (i = 0; i < t->nr_subsys; i++) {
		check_subsys(t->subsys[i]);
		for (j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(t->subsys[i]->nqn,
					  t->subsys[j]->nqn) != 0);
	}
	for (i = 0; i < t->nr_ports; i++) {
		const struct tgt_port *p = &t->ports[i];
		unsigned long port;
		char *end;

		FUZZ_CHECK(p->listen_fd == -1);
		FUZZ_CHECK(p->adrfam == NVMF_ADDR_FAMILY_IP4 ||
			   p->adrfam == NVMF_ADDR_FAMILY_IP6);
		FUZZ_CHECK(terminated(p->traddr, sizeof(p->traddr)));
		FUZZ_CHECK(p->traddr[0] != 0);
		FUZZ_CHECK(terminated(p->trsvcid, sizeof(p->trsvcid)));
		port = strtoul(p->trsvcid, &end, 10);
		FUZZ_CHECK(*end == 0 && port >= 1 && port <= 65535);
		FUZZ_CHECK(p->nr_subsys <= t->nr_subsys);
		FUZZ_CHECK(p->nr_subsys == 0 || p->subsys != NULL);
		for (j = 0; j < p->nr_subsys; j++) {
			FUZZ_CHECK(is_subsys(t, p->subsys[j]));
			if (j)
				FUZZ_CHECK(p->subsys[j] != p->subsys[0]);
		}
		for (j = 0; j < i; j++)
			FUZZ_CHECK(t->ports[j].portid != p->portid);
	}
}

static void check_failed(const struct tgt *t)
{
	FUZZ_CHECK(t->ports == NULL && t->nr_ports == 0);
	FUZZ_CHECK(t->subsys == NULL && t->nr_subsys == 0);
	FUZZ_CHECK(!t->disc.discovery);
}

/* save's JSON of t loads back into a model whose JSON is the same bytes
 * (`mqblk ctl save`, a restart with the file, save again). */
static void check_round_trip(const struct tgt *t)
{
	char *j1 = NULL, *j2 = NULL, err[256];
	struct tgt t2;

	memset(err, 0, sizeof(err));
	if (tgt_config_to_json(t, &j1, err, sizeof(err))) {
		/* the command line takes bytes JSON cannot hold */
		check_error(err, sizeof(err));
		FUZZ_CHECK(strstr(err, "UTF-8") != NULL);
		return;
	}
	memset(&t2, 0, sizeof(t2));
	if (tgt_config_load_buf(&t2, "saved.json", j1, strlen(j1), err,
				sizeof(err))) {
		fprintf(stderr, "saved JSON refused: %s\n%s", err, j1);
		FUZZ_CHECK(!"the saved JSON loads");
	}
	FUZZ_CHECK(tgt_config_to_json(&t2, &j2, err, sizeof(err)) == 0);
	if (strcmp(j1, j2)) {
		fprintf(stderr, "first:\n%s\nsecond:\n%s", j1, j2);
		FUZZ_CHECK(!"a second save is the same");
	}
	tgt_config_free(&t2);
	free(j1);
	free(j2);
}

static void fuzz_args(const uint8_t *data, size_t size)
{
	char *buf, *argv[MAX_ARGS + 1], *p, *end;
	char err[256];
	struct tgt t;
	int argc = 0, ret;

	buf = fuzz_string(data, size);
	if (!buf)
		return;
	end = buf + size;
	argv[argc++] = (char *)"target";
	for (p = buf; p < end && argc < MAX_ARGS; p += strlen(p) + 1) {
		/* no files read, no usage printed: the parser only */
		/* getopt_long takes an unambiguous prefix ("--he") and
		 * clustered short options ("-vh") */
		if (!strncmp(p, "--config", 8) ||
		    (p[0] == '-' && p[1] != '-' && strchr(p, 'h')) ||
		    !strncmp(p, "--help", 6) ||
		    (strlen(p) >= 3 && (!strncmp("--help", p, strlen(p)) ||
					!strncmp("--config", p, strlen(p)))))
			goto out;
		argv[argc++] = p;
	}
	argv[argc] = NULL;
	memset(&t, 0x5a, sizeof(t));
	memset(err, 0x55, sizeof(err));
	ret = tgt_config_args(&t, argc, argv, err, sizeof(err));
	FUZZ_CHECK(ret == 0 || ret == -1);
	if (ret) {
		check_error(err, sizeof(err));
		check_failed(&t);
		FUZZ_CHECK(t.stats_path == NULL);
	} else {
		check_tgt(&t);
		FUZZ_CHECK(t.nr_subsys == 1);
		FUZZ_CHECK(t.nr_ports == 1 || t.nr_ports == 2);
		FUZZ_CHECK(t.subsys[0]->nr_ns >= 1);
		FUZZ_CHECK(t.ports[0].nr_subsys == 1);
		check_round_trip(&t);
	}
	tgt_config_free(&t);
	check_failed(&t);
out:
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_object *root;
	char err[256];
	struct tgt t;

	if (size >= 5 && !memcmp(data, "ARGS\n", 5)) {
		fuzz_args(data + 5, size - 5);
		return 0;
	}

	/* the parser alone */
	memset(err, 0x55, sizeof(err));
	if (cj_parse((const char *)data, size, &root, err, sizeof(err))) {
		FUZZ_CHECK(root == NULL);
		check_error(err, sizeof(err));
		FUZZ_CHECK(err[0] >= '1' && err[0] <= '9'); /* "LINE:COL: " */
	} else {
		check_json(root, 0);
		cj_free(root);
	}

	/* and the configuration it describes */
	memset(&t, 0, sizeof(t));
	memset(err, 0x55, sizeof(err));
	if (tgt_config_load_buf(&t, "fuzz.json", (const char *)data, size, err,
				sizeof(err))) {
		check_error(err, sizeof(err));
		FUZZ_CHECK(!strncmp(err, "fuzz.json", 9));
		check_failed(&t);
	} else {
		check_tgt(&t);
		check_round_trip(&t);
	}
	tgt_config_free(&t);
	return 0;
}
