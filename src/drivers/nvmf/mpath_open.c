// SPDX-License-Identifier: MIT
/*
 * Opening and closing the multipath device (its driver's init and exit):
 * its URI's keys, the paths from the URI or a discovery log (every entry
 * of a transport this host has), each path opened and its namespace
 * checked against the first, the device's limits from what its paths
 * take; at the end the control thread stopped and the paths closed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mqblk/driver.h>

#include "host.h"
#include "mpath_dev.h"

/* URI keys handed to every path's nvme-tcp:// device */
static const char *const pass_keys[] = {
	"nr_io_queues",
	"queue_size",
	"kato",
	"reconnect_delay",
	"ctrl_loss_tmo",
	"nsid",
	"hdr_digest",
	"data_digest",
	"hostnqn",
	"hostid",
	"stall_ms",
	"dhchap_secret",
	"dhchap_ctrl_secret",
	"tls",
	"tls_key",
	"tls_identity",
};

/* ... and to the discovery controller of paths=discover: the host's
 * identity and its keys (a TLS-only port refuses a plaintext discovery
 * controller; one that wants DH-HMAC-CHAP asks with AUTHREQ as a path
 * would) */
static const char *const disc_keys[] = {
	"hostnqn", "hostid",  "dhchap_secret", "dhchap_ctrl_secret",
	"tls",	   "tls_key", "tls_identity",
};

/* s ("&k=v...") is key's "&key=" */
static bool q_key(const char *s, const char *key)
{
	size_t n = strlen(key);

	return s[0] == '&' && !strncmp(s + 1, key, n) && s[n + 1] == '=';
}

static unsigned online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1;
}

static unsigned mp_hw_queues(const struct mqblk_params *params)
{
	unsigned i;

	for (i = 0; i < params->nr; i++)
		if (!strcmp(params->v[i].key, "nr_hw_queues"))
			return (unsigned)strtoul(params->v[i].val, NULL, 0);
	return online_cpus();
}

static bool ids_empty(const struct ns_ids *a)
{
	static const struct ns_ids zero;

	return !memcmp(a, &zero, sizeof(zero));
}

void mp_free(struct mp_dev *md)
{
	unsigned i;

	if (md->running) {
		atomic_store(&md->stop, true);
		mp_wake(md);
		pthread_join(md->thread, NULL);
	}
	for (i = 0; i < md->nr; i++) {
		mp_path_connect_join(&md->path[i]); /* as long as its connect */
		if (md->path[i].dev)
			mqblk_dev_close(md->path[i].dev);
		free(md->path[i].uri);
	}
	if (md->disc)
		mqblk_dev_close(md->disc);
	if (md->efd >= 0)
		close(md->efd);
	pthread_mutex_destroy(&md->lock);
	free(md);
}

void mp_exit(struct mqblk_dev *dev)
{
	struct mp_dev *md = mqblk_dev_data(dev);

	if (md)
		mp_free(md);
}

int mp_init(struct mqblk_dev *dev, struct mqblk_params *params,
	    struct mqblk_dev_limits *lim, char *err, size_t errlen)
{
	struct mp_dev *md = calloc(1, sizeof(*md));
	struct mp_addr addrs[MP_MAX_PATHS];
	char perr[MP_MAX_PATHS][256];
	struct ns_ids ids;
	struct mqblk_dev_opts o;
	unsigned nr_hw = mp_hw_queues(params), i, k, nr = 0, hw_min = ~0u;
	unsigned depth_min = ~0u, joined = 0;
	uint32_t xfer_min = 0; /* 0: no limit */
	int first_ret = 0;
	bool disc = false, have_hostid = false, have_persist = false;
	char q[2048] = "";
	char def_tr[sizeof(addrs[0].tr)] = MP_DEFAULT_TR;
	size_t ql = 0;
	int ret;

	if (!md)
		return -ENOMEM;
	md->efd = -1;
	md->current = -1;
	pthread_mutex_init(&md->lock, NULL);
	md->dev = dev;
	for (i = 0; i < params->nr; i++) {
		struct mqblk_param *p = &params->v[i];

		if (!strcmp(p->key, "addr")) {
			p->used = true;
			ret = mp_parse_addrs(p->val, addrs, MP_MAX_PATHS, &nr,
					     md->subnqn, err, errlen);
			if (ret)
				goto fail;
			for (k = 0; k < nr; k++) {
				if (addrs[k].tr[0] &&
				    !nvmf_transport_known(addrs[k].tr)) {
					snprintf(err, errlen,
						 "nvme-mpath: path %s:%s: no "
						 "transport '%s' (this host "
						 "has: %s)",
						 addrs[k].host, addrs[k].port,
						 addrs[k].tr,
						 nvmf_transport_names());
					ret = -EINVAL;
					goto fail;
				}
			}
		} else if (!strcmp(p->key, "transport")) {
			/* nvme-rdma://A,B/...: the scheme's transport, for
			 * the paths that name none (uri.c) */
			p->used = true;
			snprintf(def_tr, sizeof(def_tr), "%s", p->val);
		} else if (!strcmp(p->key, "iopolicy")) {
			p->used = true;
			if (mp_parse_iopolicy(p->val, &md->pol)) {
				char b[48];

				snprintf(err, errlen,
					 "bad iopolicy '%s': expected numa, "
					 "round-robin or queue-depth",
					 mp_printable(p->val, 40, b,
						      sizeof(b)));
				ret = -EINVAL;
				goto fail;
			}
		} else if (!strcmp(p->key, "paths")) {
			p->used = true;
			if (strcmp(p->val, "discover")) {
				char b[48];

				snprintf(err, errlen,
					 "bad paths '%s': expected "
					 "paths=discover",
					 mp_printable(p->val, 40, b,
						      sizeof(b)));
				ret = -EINVAL;
				goto fail;
			}
			disc = true;
		} else if (!strcmp(p->key, "persistent_discovery")) {
			ret = mqblk_param_bool(p, &md->persist, err, errlen);
			if (ret)
				goto fail;
			have_persist = true;
		} else {
			for (k = 0;
			     k < sizeof(pass_keys) / sizeof(pass_keys[0]); k++)
				if (!strcmp(p->key, pass_keys[k]))
					break;
			if (k == sizeof(pass_keys) / sizeof(pass_keys[0])) {
				char b[48];

				if (p->used)
					continue; /* a core key */
				/* unknown: said before any path connects */
				snprintf(err, errlen,
					 "unknown parameter '%s' for device "
					 "nvme_mpath",
					 mp_printable(p->key, 40, b,
						      sizeof(b)));
				ret = -EINVAL;
				goto fail;
			}
			p->used = true;
			if (!strcmp(p->key, "hostid"))
				have_hostid = true;
			ql += (size_t)snprintf(q + ql, sizeof(q) - ql, "&%s=%s",
					       p->key, p->val);
			if (ql >= sizeof(q)) {
				snprintf(err, errlen,
					 "nvme-mpath: URI too long");
				ret = -EINVAL;
				goto fail;
			}
		}
	}
	if (!nr) {
		snprintf(err, errlen, "nvme-mpath URI: no address");
		ret = -EINVAL;
		goto fail;
	}
	if (have_persist && !disc) {
		snprintf(err, errlen,
			 "persistent_discovery= goes with paths=discover");
		ret = -EINVAL;
		goto fail;
	}
	if (disc && !have_persist)
		md->persist = true;
	for (k = 0; k < nr; k++)
		if (!addrs[k].tr[0] && strcmp(def_tr, MP_DEFAULT_TR))
			memcpy(addrs[k].tr, def_tr, sizeof(addrs[k].tr));
	if (!have_hostid) {
		/* one host identity on every path (each controller sees
		 * the same host, as the kernel's one nvmf_host) */
		uint8_t u[16];
		FILE *f = fopen("/dev/urandom", "r");

		if (!f || fread(u, 1, 16, f) != 16)
			memset(u, 0x6d, 16);
		if (f)
			fclose(f);
		u[6] = (uint8_t)((u[6] & 0x0f) | 0x40);
		u[8] = (uint8_t)((u[8] & 0x3f) | 0x80);
		ql += (size_t)snprintf(
			q + ql, sizeof(q) - ql,
			"&hostid=%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
			"%02x%02x%02x%02x%02x%02x",
			u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8],
			u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
		if (ql >= sizeof(q)) {
			/* the keys passed on filled it: no room for it */
			snprintf(err, errlen, "nvme-mpath: URI too long");
			ret = -EINVAL;
			goto fail;
		}
	}
	if (disc) {
		char hq[sizeof(q) + 32] = ""; /* a part of q, and kato=: fits */
		size_t hl = 0;
		const char *s;
		bool have_kato = false;
		uint64_t gen;

		if (nr != 1) {
			snprintf(err, errlen,
				 "paths=discover takes one discovery address, "
				 "got %u",
				 nr);
			ret = -EINVAL;
			goto fail;
		}
		/* disc_keys; a persistent one also reconnects as the
		 * paths do, and keeps alive */
		for (s = q; (s = strchr(s, '&'));) {
			const char *e = strchr(s + 1, '&');
			size_t l = e ? (size_t)(e - s) : strlen(s);
			bool take = false;

			for (k = 0;
			     k < sizeof(disc_keys) / sizeof(disc_keys[0]); k++)
				take |= q_key(s, disc_keys[k]);
			if (md->persist && (q_key(s, "reconnect_delay") ||
					    q_key(s, "ctrl_loss_tmo") ||
					    (q_key(s, "kato") && l > 6 &&
					     strtoul(s + 6, NULL, 0)))) {
				take = true;
				have_kato |= q_key(s, "kato");
			}
			if (take && hl + l < sizeof(hq)) {
				memcpy(hq + hl, s, l);
				hl += l;
				hq[hl] = '\0';
			}
			s += l;
		}
		if (md->persist && !have_kato)
			snprintf(hq + hl, sizeof(hq) - hl, "&kato=%s",
				 MP_DISC_KATO);
		mp_host_str(md->disc_name, sizeof(md->disc_name), &addrs[0]);
		ret = mp_disc_open(&addrs[0], hq, &md->disc, err, errlen);
		if (ret)
			goto fail;
		ret = mp_disc_read(md->disc, md->subnqn, addrs, &nr, &gen);
		if (ret) {
			snprintf(err, errlen,
				 "nvme-mpath: discovery at %s: reading the "
				 "log: %s",
				 md->disc_name,
				 ret == -EAGAIN ? "it kept changing" :
						  strerror(-ret));
			goto fail;
		}
		if (!nr) {
			snprintf(err, errlen,
				 "nvme-mpath: the discovery log at %s lists no "
				 "port for %s over a transport this host has",
				 md->disc_name, md->subnqn);
			ret = -ENODEV;
			goto fail;
		}
		if (md->persist) {
			struct nvmf_ctrl_info ci;

			nvmf_ctrl_info(md->disc, &ci);
			md->disc_gen_seen = ci.disc_gen;
			md->disc_resets_seen = ci.resets;
			md->disc_state_seen = ci.state;
		} else {
			mqblk_dev_close(md->disc);
			md->disc = NULL;
		}
	}
	memcpy(md->q, q, sizeof(md->q));
	if (!nr_hw)
		nr_hw = 1;
	mqblk_dev_opts_init(&o);
	o.nr_hw_queues = nr_hw;
	o.nr_queues = 2 * nr_hw; /* no single-thread queues: see stripe */
	o.comp_policy = MQBLK_COMP_LOCAL;
	o.flags = mqblk_dev_open_flags(dev);
	for (i = 0; i < nr; i++) {
		struct mp_path *p = &md->path[i];
		char *uri = mp_path_uri(&addrs[i], md->subnqn, q);

		if (!uri) {
			ret = -ENOMEM;
			goto fail;
		}
		mp_host_str(p->name, sizeof(p->name), &addrs[i]);
		p->addr = addrs[i];
		p->uri = uri;
		md->nr = i + 1;
		perr[i][0] = '\0';
		ret = mqblk_dev_open(uri, &o, &p->dev, perr[i],
				     sizeof(perr[i]));
		if (ret && mp_err_transient(ret)) {
			/* no answer: the device opens on the others and the
			 * control thread connects this one later */
			p->dev = NULL;
			p->waiting = true;
			if (!first_ret) {
				first_ret = ret;
				snprintf(err, errlen,
					 "nvme-mpath: path %s: %s (no path "
					 "answered)",
					 p->name,
					 perr[i][0] ? perr[i] : strerror(-ret));
			}
			continue;
		}
		if (ret) {
			snprintf(err, errlen, "nvme-mpath: path %s: %s",
				 p->name,
				 perr[i][0] ? perr[i] : strerror(-ret));
			goto fail;
		}
		mp_path_baseline(p);
		ret = mp_path_identify(md, p, &ids, err, errlen);
		if (ret)
			goto fail;
		if (!joined++) {
			struct nvmf_ctrl_info ci;

			/* a path not yet connected is retried as this
			 * controller reconnects (same URI keys) */
			nvmf_ctrl_info(p->dev, &ci);
			md->reconnect_ms = ci.reconnect_delay_ms;
			md->loss_ms = ci.ctrl_loss_tmo_ms;
			md->ref = i;
			memcpy(md->ids, &ids, sizeof(ids));
			md->size = mqblk_dev_size(p->dev);
			md->bs = mqblk_dev_block_size(p->dev);
		} else {
			ret = mp_path_matches(md, p, &ids, err, errlen);
			if (ret)
				goto fail;
		}
		if (mqblk_dev_nr_hw_queues(p->dev) < hw_min)
			hw_min = mqblk_dev_nr_hw_queues(p->dev);
		if (mqblk_dev_queue_depth(p->dev) < depth_min)
			depth_min = mqblk_dev_queue_depth(p->dev);
		if (mqblk_dev_max_transfer(p->dev) &&
		    (!xfer_min || mqblk_dev_max_transfer(p->dev) < xfer_min))
			xfer_min = mqblk_dev_max_transfer(p->dev);
		atomic_store(&p->joined, true);
	}
	if (!joined) {
		ret = first_ret;
		goto fail;
	}
	if (nr > 1 && ids_empty((const struct ns_ids *)md->ids)) {
		snprintf(err, errlen,
			 "nvme-mpath: the namespace has no NGUID, EUI-64 or "
			 "UUID to match its paths by");
		ret = -EINVAL;
		goto fail;
	}
	for (i = 0; i < nr; i++) {
		struct mp_path *p = &md->path[i];

		if (!p->waiting)
			continue;
		mp_path_wait(md, p);
		fprintf(stderr,
			"mqblk: nvme-mpath: %s: path %s: %s; opening without "
			"it, retrying every %u s for up to ctrl_loss_tmo (%u "
			"s)\n",
			md->subnqn, p->name,
			perr[i][0] ? perr[i] : strerror(ECONNREFUSED),
			md->reconnect_ms / 1000, md->loss_ms / 1000);
	}
	md->popts = o;
	md->depth = depth_min;
	lim->capacity = md->size;
	lim->logical_block_size = md->bs;
	/* the smallest MDTS of the paths that joined: requests are split
	 * once, here, to fit any of them. A path that joins later with a
	 * smaller one is still safe: a child goes to its path through
	 * mqblk_submit, and the path's core splits it again (a second
	 * level of pieces on that path only) */
	lim->max_hw_bytes = xfer_min;
	lim->max_hw_queues = hw_min;
	/* one child per parent at a time, on the path's queue of the same
	 * index: never more than the path's tags */
	lim->queue_depth = depth_min;
	lim->shared_tags = false;
	lim->cmd_size = sizeof(struct mp_cmd);
	lim->default_policy = MQBLK_COMP_LOCAL;
	lim->has_irq = true;
	mqblk_dev_set_data(dev, md);
	return 0;
fail:
	mp_free(md);
	return ret;
}
