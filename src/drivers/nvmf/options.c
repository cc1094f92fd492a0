// SPDX-License-Identifier: MIT
/*
 * The fabrics host's URI: nvme-TRANSPORT://HOST:PORT/SUBNQN?key=value&...
 * with the keys every transport shares (nr_io_queues, queue_size, kato,
 * reconnect_delay, ctrl_loss_tmo, nsid, stall_ms, multipath, discovery,
 * hostnqn, hostid, dhchap_secret, dhchap_ctrl_secret), as nvme-cli's
 * connect options; a key the core does
 * not know is the transport's (hdr_digest, data_digest for TCP), and a
 * key no one takes is refused by the core's URI check.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabrics.h"
#include "mpath.h"

/* "HOST:PORT/SUBNQN" or "[V6]:PORT/SUBNQN" */
static int parse_addr(struct nvmf_ctrl *d, const char *s, char *err,
		      size_t errlen)
{
	const char *slash = strchr(s, '/'), *colon;
	size_t hl;

	if (!slash || !slash[1]) {
		nvmf_err(err, errlen,
			 "nvme-%s URI: expected nvme-%s://HOST:PORT/SUBNQN, "
			 "got '%s'",
			 d->ops->name, d->ops->name, s);
		return -EINVAL;
	}
	if (s[0] == '[') {
		const char *rb = memchr(s, ']', (size_t)(slash - s));

		if (!rb || rb[1] != ':') {
			nvmf_err(err, errlen, "nvme-%s URI: bad address '%.*s'",
				 d->ops->name, (int)(slash - s), s);
			return -EINVAL;
		}
		hl = (size_t)(rb - s - 1);
		memcpy(d->host, s + 1, hl < sizeof(d->host) ? hl : 0);
		colon = rb + 1;
	} else {
		colon = memchr(s, ':', (size_t)(slash - s));
		if (!colon) {
			nvmf_err(err, errlen,
				 "nvme-%s URI: no port in '%.*s' (HOST:PORT)",
				 d->ops->name, (int)(slash - s), s);
			return -EINVAL;
		}
		hl = (size_t)(colon - s);
		if (hl >= sizeof(d->host)) {
			nvmf_err(err, errlen, "nvme-%s URI: host too long",
				 d->ops->name);
			return -EINVAL;
		}
		memcpy(d->host, s, hl);
	}
	if (!hl || slash - colon - 1 <= 0 ||
	    (size_t)(slash - colon - 1) >= sizeof(d->port)) {
		nvmf_err(err, errlen, "nvme-%s URI: bad address '%.*s'",
			 d->ops->name, (int)(slash - s), s);
		return -EINVAL;
	}
	memcpy(d->port, colon + 1, (size_t)(slash - colon - 1));
	{
		unsigned long p = strtoul(d->port, NULL, 10);
		size_t i;

		for (i = 0; d->port[i]; i++)
			if (d->port[i] < '0' || d->port[i] > '9')
				p = 0;
		if (!p || p > 65535) {
			nvmf_err(err, errlen, "nvme-%s URI: bad port '%s'",
				 d->ops->name, d->port);
			return -EINVAL;
		}
	}
	if (strlen(slash + 1) > 223) {
		nvmf_err(err, errlen,
			 "nvme-%s URI: subsystem NQN longer than 223 "
			 "bytes",
			 d->ops->name);
		return -EINVAL;
	}
	strcpy(d->subnqn, slash + 1);
	return 0;
}

static int parse_uuid(const char *s, uint8_t out[16])
{
	unsigned i = 0;

	while (*s && i < 32) {
		int v;

		if (*s == '-') {
			s++;
			continue;
		}
		if (*s >= '0' && *s <= '9')
			v = *s - '0';
		else if ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f')
			v = (*s | 0x20) - 'a' + 10;
		else
			return -1;
		if (i & 1)
			out[i / 2] |= (uint8_t)v;
		else
			out[i / 2] = (uint8_t)(v << 4);
		i++;
		s++;
	}
	return i == 32 && !*s ? 0 : -1;
}

/* The host's identity: hostnqn= or /etc/nvme/hostnqn, else one made
 * from hostid= or a random UUID (as nvme-cli's gen-hostnqn). */
static void default_host(struct nvmf_ctrl *d, bool have_id)
{
	FILE *f;

	if (!have_id) {
		f = fopen("/dev/urandom", "r");
		if (!f || fread(d->hostid, 1, 16, f) != 16)
			memset(d->hostid, 0x5a, 16);
		if (f)
			fclose(f);
		d->hostid[6] = (uint8_t)((d->hostid[6] & 0x0f) | 0x40);
		d->hostid[8] = (uint8_t)((d->hostid[8] & 0x3f) | 0x80);
	}
	if (d->hostnqn[0])
		return;
	f = fopen("/etc/nvme/hostnqn", "r");
	if (f) {
		if (fgets(d->hostnqn, sizeof(d->hostnqn), f))
			d->hostnqn[strcspn(d->hostnqn, "\r\n")] = 0;
		fclose(f);
	}
	if (!d->hostnqn[0]) {
		const uint8_t *u = d->hostid;

		snprintf(d->hostnqn, sizeof(d->hostnqn),
			 "nqn.2014-08.org.nvmexpress:uuid:%02x%02x%02x%02x-"
			 "%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
			 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8],
			 u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
	}
}

int nvmf_parse_params(struct nvmf_ctrl *d, struct mqblk_params *params,
		      char *err, size_t errlen)
{
	bool have_id = false, have_discovery = false, have_kato = false;
	unsigned i;

	d->queue_size = NVMF_DEFAULT_QUEUE_SIZE;
	d->kato_ms = 5000;
	d->reconnect_delay_ms = 10000; /* the Linux host's defaults */
	d->ctrl_loss_tmo_ms = 600000;
	d->want_queues = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	for (i = 0; i < params->nr; i++) {
		struct mqblk_param *p = &params->v[i];
		uint64_t v;
		int ret = 0;

		if (!strcmp(p->key, "addr")) {
			p->used = true;
			ret = parse_addr(d, p->val, err, errlen);
		} else if (!strcmp(p->key, "nr_io_queues")) {
			ret = mqblk_param_u64(p, 1, 1024, false, &v, err,
					      errlen);
			d->want_queues = (unsigned)v;
		} else if (!strcmp(p->key, "queue_size")) {
			ret = mqblk_param_u64(p, 2, NVMF_MAX_QUEUE_SIZE, false,
					      &v, err, errlen);
			d->queue_size = (unsigned)v;
		} else if (!strcmp(p->key, "kato")) {
			ret = mqblk_param_u64(p, 0, 3600, false, &v, err,
					      errlen);
			d->kato_ms = (uint32_t)v * 1000;
			have_kato = true;
		} else if (!strcmp(p->key, "reconnect_delay")) {
			ret = mqblk_param_u64(p, 1, 3600, false, &v, err,
					      errlen);
			d->reconnect_delay_ms = (uint32_t)v * 1000;
		} else if (!strcmp(p->key, "ctrl_loss_tmo")) {
			ret = mqblk_param_u64(p, 0, 86400, false, &v, err,
					      errlen);
			d->ctrl_loss_tmo_ms = (uint32_t)v * 1000;
		} else if (!strcmp(p->key, "nsid")) {
			ret = mqblk_param_u64(p, 1, 0xfffffffe, false, &v, err,
					      errlen);
			d->nsid = (uint32_t)v;
		} else if (!strcmp(p->key, "stall_ms")) {
			ret = mqblk_param_u64(p, 0, 3600000, false, &v, err,
					      errlen);
			d->stall_ms = (uint32_t)v;
		} else if (!strcmp(p->key, "multipath")) {
			ret = mqblk_param_bool(p, &d->multipath, err, errlen);
		} else if (!strcmp(p->key, "discovery")) {
			ret = mqblk_param_bool(p, &d->discovery, err, errlen);
			if (!ret)
				have_discovery = true;
		} else if (!strcmp(p->key, "hostnqn")) {
			p->used = true;
			if (strlen(p->val) > 223) {
				nvmf_err(err, errlen,
					 "hostnqn longer than 223 bytes");
				return -EINVAL;
			}
			snprintf(d->hostnqn, sizeof(d->hostnqn), "%s", p->val);
		} else if (!strcmp(p->key, "dhchap_secret") ||
			   !strcmp(p->key, "dhchap_ctrl_secret")) {
			bool ctrl = p->key[7] == 'c';
			char why[160];

			p->used = true;
			if (nvme_auth_key_load(p->val,
					       ctrl ? &d->dhchap_ctrl_key :
						      &d->dhchap_key,
					       why, sizeof(why))) {
				nvmf_err(err, errlen, "%s: %s", p->key, why);
				return -EINVAL;
			}
		} else if (!strcmp(p->key, "hostid")) {
			p->used = true;
			if (parse_uuid(p->val, d->hostid)) {
				nvmf_err(err, errlen,
					 "bad hostid '%s': expected a UUID",
					 p->val);
				return -EINVAL;
			}
			have_id = true;
		} else {
			bool taken = false;

			ret = d->ops->parse_param(d, p, &taken, err, errlen);
			if (!ret && !taken && !p->used) {
				/* not the core's either: said now, before
				 * any connection (the core's own check comes
				 * only after the driver's set-up) */
				char pk[64];

				nvmf_err(err, errlen,
					 "unknown parameter '%s' for device %s",
					 mp_printable(p->key, 40, pk,
						      sizeof(pk)),
					 d->ops->driver);
				return -EINVAL;
			}
		}
		if (ret)
			return ret;
	}
	if (!d->subnqn[0]) {
		nvmf_err(err, errlen, "nvme-%s URI: no address", d->ops->name);
		return -EINVAL;
	}
	if (d->dhchap_ctrl_key.len && !d->dhchap_key.len) {
		nvmf_err(err, errlen,
			 "dhchap_ctrl_secret without dhchap_secret: the host "
			 "must have its own secret to authenticate");
		return -EINVAL;
	}
	if (!have_discovery)
		d->discovery = !strcmp(d->subnqn, NVME_DISC_SUBSYS_NAME);
	if (d->discovery && !have_kato)
		d->kato_ms = 0; /* as nvme-cli's one-shot discovery */
	default_host(d, have_id);
	return 0;
}
