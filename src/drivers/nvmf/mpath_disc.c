// SPDX-License-Identifier: MIT
/*
 * The multipath device's discovery: the URIs of its paths and of a
 * discovery controller, the discovery log read whole, and (persistent
 * discovery, control thread) the new paths a changed log lists joining.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mqblk/driver.h>

#include "host.h"
#include "mpath_dev.h"

void mp_host_str(char *out, size_t len, const struct mp_addr *a)
{
	/* a path over another transport than the default shows it */
	snprintf(out, len, strchr(a->host, ':') ? "%s%s[%s]:%s" : "%s%s%s:%s",
		 a->tr[0] && strcmp(a->tr, MP_DEFAULT_TR) ? a->tr : "",
		 a->tr[0] && strcmp(a->tr, MP_DEFAULT_TR) ? ":" : "", a->host,
		 a->port);
}

/* mp_host_str without the transport: what its own URI names */
static void addr_str(char *out, size_t len, const struct mp_addr *a)
{
	snprintf(out, len, strchr(a->host, ':') ? "[%s]:%s" : "%s:%s", a->host,
		 a->port);
}

/* The nvme-TR:// URI of one path: the passed-through keys in q. */
char *mp_path_uri(const struct mp_addr *a, const char *nqn, const char *q)
{
	char hp[280];
	size_t len;
	char *s;

	addr_str(hp, sizeof(hp), a);
	len = strlen(hp) + strlen(nqn) + strlen(q) + 64;
	s = malloc(len);
	if (s)
		snprintf(s, len, "nvme-%s://%s/%s?multipath=1%s",
			 a->tr[0] ? a->tr : MP_DEFAULT_TR, hp, nqn, q);
	return s;
}

/* The discovery controller at a (nvme-TR://A/discovery NQN) with the
 * URI keys in q ("&k=v..."): *dd, or -errno with the reason in err. */
int mp_disc_open(const struct mp_addr *a, const char *q, struct mqblk_dev **dd,
		 char *err, size_t errlen)
{
	struct mqblk_dev_opts o;
	char hp[280], ap[280], derr[200], uri[3072];
	int ret;

	mp_host_str(hp, sizeof(hp), a);
	addr_str(ap, sizeof(ap), a);
	if ((size_t)snprintf(uri, sizeof(uri), "nvme-%s://%s/%s%s%s",
			     a->tr[0] ? a->tr : MP_DEFAULT_TR, ap,
			     NVME_DISC_SUBSYS_NAME, q[0] ? "?" : "",
			     q[0] ? q + 1 : "") >= sizeof(uri)) {
		snprintf(err, errlen,
			 "nvme-mpath: discovery at %s: the URI's "
			 "keys are too long",
			 hp);
		return -ENAMETOOLONG;
	}
	mqblk_dev_opts_init(&o);
	derr[0] = '\0';
	ret = mqblk_dev_open(uri, &o, dd, derr, sizeof(derr));
	if (ret)
		snprintf(err, errlen, "nvme-mpath: discovery at %s: %s", hp,
			 derr[0] ? derr : strerror(-ret));
	return ret;
}

/*
 * Read the whole discovery log of dd (its first MP_DISC_MAX records) as
 * the spec asks a host to: the header, the records, then the header
 * again; a generation counter (or record count) that moved meanwhile
 * means the log changed under the read, which starts over (libnvme's
 * nvme_discovery_log does the same). The paths it lists for nqn over a
 * transport this host has go into addrs (up to MP_MAX_PATHS): *nr, the
 * log's generation in *gen. 0, or -errno (-EAGAIN: it kept changing).
 */
int mp_disc_read(struct mqblk_dev *dd, const char *nqn, struct mp_addr *addrs,
		 unsigned *nr, uint64_t *gen)
{
	struct nvmf_disc_log_header *h = calloc(1, sizeof(*h));
	uint8_t *log = NULL;
	uint64_t numrec = 0, g = 0, r;
	unsigned tries;
	int ret = h ? -EAGAIN : -ENOMEM;

	for (tries = 0; h && tries < MP_DISC_TRIES; tries++) {
		uint8_t *nl;

		ret = mp_get_log(dd, NVME_LOG_DISC, false, h, sizeof(*h), 0);
		if (ret)
			break;
		g = le64_to_cpu(h->genctr);
		numrec = le64_to_cpu(h->numrec);
		if (numrec > MP_DISC_MAX)
			numrec = MP_DISC_MAX;
		nl = realloc(log, (size_t)(numrec ? numrec : 1) *
					  NVME_DISC_ENTRY_SIZE);
		if (!nl) {
			ret = -ENOMEM;
			break;
		}
		log = nl;
		for (r = 0; r < numrec && !ret; r += MP_DISC_CHUNK) {
			uint64_t n = numrec - r < MP_DISC_CHUNK ? numrec - r :
								  MP_DISC_CHUNK;

			ret = mp_get_log(dd, NVME_LOG_DISC, false,
					 log + r * NVME_DISC_ENTRY_SIZE,
					 (uint32_t)n * NVME_DISC_ENTRY_SIZE,
					 sizeof(*h) + r * NVME_DISC_ENTRY_SIZE);
		}
		if (ret)
			break;
		ret = mp_get_log(dd, NVME_LOG_DISC, false, h, sizeof(*h), 0);
		if (ret)
			break;
		if (le64_to_cpu(h->genctr) == g &&
		    (le64_to_cpu(h->numrec) == numrec ||
		     (numrec == MP_DISC_MAX &&
		      le64_to_cpu(h->numrec) > MP_DISC_MAX)))
			break; /* the same log from start to end */
		ret = -EAGAIN;
	}
	if (!ret) {
		*nr = mp_disc_paths(log, (size_t)numrec, nqn,
				    nvmf_transport_name, addrs, MP_MAX_PATHS);
		*gen = g;
	}
	free(log);
	free(h);
	return ret;
}

/*
 * A path the discovery log lists (control thread): one the device has
 * is left alone, unless it was given up, when it is tried again (the
 * port came back: nvme-cli's connect-all connects what is not
 * connected). A new one takes the next slot, filled before md->nr counts
 * it, and is connected as a path that did not answer at open is
 * (path_retry, from this pass on). True if it is new.
 */
static bool disc_join(struct mp_dev *md, const struct mp_addr *a)
{
	unsigned n = atomic_load(&md->nr), i;
	struct mp_path *p;

	for (i = 0; i < n; i++) {
		p = &md->path[i];
		if (!mp_addr_same(&p->addr, a))
			continue;
		if (atomic_load(&p->given_up) &&
		    atomic_load(&p->conn) == MP_CONN_IDLE) {
			fprintf(stderr,
				"mqblk: nvme-mpath: %s: path %s: listed by the "
				"discovery log again: connecting\n",
				md->subnqn, p->name);
			mp_path_wait(md, p);
			p->retry_ms = mp_now_ms();
			atomic_store(&p->given_up, false);
		}
		return false;
	}
	if (n == MP_MAX_PATHS) {
		char name[sizeof(p->name)];

		mp_host_str(name, sizeof(name), a);
		fprintf(stderr,
			"mqblk: nvme-mpath: %s: path %s: new in the discovery "
			"log, but the device has the %u paths it takes: not "
			"joined\n",
			md->subnqn, name, MP_MAX_PATHS);
		return false;
	}
	p = &md->path[n];
	mp_host_str(p->name, sizeof(p->name), a);
	p->uri = mp_path_uri(a, md->subnqn, md->q);
	if (!p->uri)
		return false; /* the next change tries again */
	p->addr = *a;
	p->discovered = true;
	mp_path_wait(md, p);
	p->retry_ms = mp_now_ms(); /* at once */
	atomic_store_explicit(&md->nr, n + 1, memory_order_release);
	fprintf(stderr,
		"mqblk: nvme-mpath: %s: path %s: new in the discovery log at "
		"%s: connecting\n",
		md->subnqn, p->name, md->disc_name);
	return true;
}

/*
 * The persistent discovery controller (control thread): its state
 * changes logged; after a Discovery Log Page Change notice, or once it
 * is back from a reconnect (changes may have been missed meanwhile: the
 * kernel's "rediscover" event), the log is read whole and each new path
 * for the subsystem joins. A path that leaves the log is left alone, as
 * the kernel does: it fails on its own when its port goes. A failed read
 * is tried again every MP_ANA_RETRY_MS while the controller is live.
 */
void mp_disc_pass(struct mp_dev *md)
{
	struct mp_addr found[MP_MAX_PATHS];
	struct nvmf_ctrl_info ci;
	unsigned nr = 0, i, added = 0;
	uint64_t gen = 0;
	int ret;

	if (!md->disc || nvmf_ctrl_info(md->disc, &ci))
		return;
	if (ci.state != md->disc_state_seen) {
		fprintf(stderr,
			"mqblk: nvme-mpath: %s: discovery controller at %s: "
			"%s -> %s%s\n",
			md->subnqn, md->disc_name,
			mp_ctrl_state_name(md->disc_state_seen),
			mp_ctrl_state_name(ci.state),
			ci.state == NVMF_CTRL_DEAD ?
				" (no new paths from its log any more)" :
				"");
		md->disc_state_seen = ci.state;
	}
	if (ci.state != NVMF_CTRL_LIVE)
		return;
	if (ci.disc_gen != md->disc_gen_seen ||
	    ci.resets != md->disc_resets_seen)
		md->disc_want = true;
	md->disc_gen_seen = ci.disc_gen;
	md->disc_resets_seen = ci.resets;
	if (!md->disc_want || mp_now_ms() < md->disc_retry_ms)
		return;
	ret = mp_disc_read(md->disc, md->subnqn, found, &nr, &gen);
	if (ret) {
		fprintf(stderr,
			"mqblk: nvme-mpath: %s: discovery controller at %s: "
			"reading the changed log: %s; again in %u ms\n",
			md->subnqn, md->disc_name,
			ret == -EAGAIN ? "it kept changing" : strerror(-ret),
			MP_ANA_RETRY_MS);
		md->disc_retry_ms = mp_now_ms() + MP_ANA_RETRY_MS;
		return;
	}
	md->disc_want = false;
	for (i = 0; i < nr; i++)
		added += disc_join(md, &found[i]);
	fprintf(stderr,
		"mqblk: nvme-mpath: %s: discovery log at %s changed "
		"(generation %llu): %u path%s for the subsystem, %u new\n",
		md->subnqn, md->disc_name, (unsigned long long)gen, nr,
		nr == 1 ? "" : "s", added);
}
