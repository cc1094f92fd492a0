// SPDX-License-Identifier: MIT
/*
 * The multipath device's set-up and control thread (see multipath.c for
 * the whole): the paths from the URI or a discovery log (every entry of
 * a transport this host has), each path's namespace identity checked
 * against the first, paths that join late, and the thread that reads
 * ANA logs, follows path states and kicks hardware queues.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <mqblk/driver.h>

#include "host.h"
#include "mpath_dev.h"

/* URI keys handed to every path's nvme-tcp:// device */
static const char *const pass_keys[] = {
	"nr_io_queues",	 "queue_size", "kato",	     "reconnect_delay",
	"ctrl_loss_tmo", "nsid",       "hdr_digest", "data_digest",
	"hostnqn",	 "hostid",     "stall_ms",
};

/* ---- the control thread: ANA, path states, kicks ----------------------- */

static int get_log(struct mqblk_dev *dev, uint8_t lid, bool rae, void *buf,
		   uint32_t len, uint64_t off)
{
	union nvme_command c;
	uint32_t numd = len / 4 - 1;
	uint16_t st = 0;
	int ret;

	memset(&c, 0, sizeof(c));
	c.get_log_page.opcode = nvme_admin_get_log_page;
	c.get_log_page.nsid = cpu_to_le32(NVME_NSID_ALL);
	c.get_log_page.lid = lid;
	c.get_log_page.lsp = rae ? NVME_LOG_LSP_RAE : 0;
	c.get_log_page.numdl = cpu_to_le16((uint16_t)numd);
	c.get_log_page.numdu = cpu_to_le16((uint16_t)(numd >> 16));
	c.get_log_page.lpo = cpu_to_le64(off);
	ret = mqblk_dev_nvme_admin(dev, &c, buf, len, false, NULL, &st);
	return ret ? ret : st ? -EIO : 0;
}

static int identify(struct mqblk_dev *dev, uint8_t cns, uint32_t nsid,
		    void *buf)
{
	union nvme_command c;
	uint16_t st = 0;
	int ret;

	memset(&c, 0, sizeof(c));
	c.identify.opcode = nvme_admin_identify;
	c.identify.cns = cns;
	c.identify.nsid = cpu_to_le32(nsid);
	ret = mqblk_dev_nvme_admin(dev, &c, buf, NVME_IDENTIFY_SIZE, false,
				   NULL, &st);
	return ret ? ret : st ? -EIO : 0;
}

/* Read path p's ANA log and take its group's state (nvme_update_ana_state).
 * Without ANA support the path is optimized. 0 or -errno. */
static int ana_read(struct mp_dev *md, struct mp_path *p)
{
	uint8_t *log;
	uint8_t st = MP_ANA_OPTIMIZED;
	int ret = 0;

	if (p->ana_supported) {
		log = aligned_alloc(4096, p->ana_log_len);
		if (!log)
			return -ENOMEM;
		ret = get_log(p->dev, NVME_LOG_ANA, false, log, p->ana_log_len,
			      0);
		if (!ret)
			ret = mp_ana_log_state(log, p->ana_log_len, p->anagrpid,
					       &st);
		free(log);
		if (ret) {
			/* a group the log does not list: not usable */
			st = MP_ANA_INACCESSIBLE;
		}
	}
	if (atomic_load(&p->ana) && atomic_load(&p->ana) != st)
		fprintf(stderr,
			"mqblk: nvme-mpath: %s: path %s: ANA state %s -> %s\n",
			md->subnqn, p->name,
			mp_ana_state_name(atomic_load(&p->ana)),
			mp_ana_state_name(st));
	atomic_store(&p->ana, st);
	atomic_store(&p->ana_pending, false);
	p->ana_read_ms = mp_now_ms();
	if (st != MP_ANA_CHANGE)
		p->change_ms = 0;
	else if (!p->change_ms)
		p->change_ms = p->ana_read_ms;
	return ret;
}

static const char *state_name(int s)
{
	return s == NVMF_CTRL_LIVE ? "live" :
	       s == NVMF_CTRL_DEAD ? "dead" :
				     "resetting";
}

static bool path_retry(struct mp_dev *md, unsigned i);
static int disc_read(struct mqblk_dev *dd, const char *nqn,
		     struct mp_addr *addrs, unsigned *nr, uint64_t *gen);
static void path_wait(struct mp_dev *md, struct mp_path *p);
static char *path_uri(const struct mp_addr *a, const char *nqn, const char *q);
static void host_str(char *out, size_t len, const struct mp_addr *a);

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
			path_wait(md, p);
			p->retry_ms = mp_now_ms();
			atomic_store(&p->given_up, false);
		}
		return false;
	}
	if (n == MP_MAX_PATHS) {
		char name[sizeof(p->name)];

		host_str(name, sizeof(name), a);
		fprintf(stderr,
			"mqblk: nvme-mpath: %s: path %s: new in the discovery "
			"log, but the device has the %u paths it takes: not "
			"joined\n",
			md->subnqn, name, MP_MAX_PATHS);
		return false;
	}
	p = &md->path[n];
	host_str(p->name, sizeof(p->name), a);
	p->uri = path_uri(a, md->subnqn, md->q);
	if (!p->uri)
		return false; /* the next change tries again */
	p->addr = *a;
	p->discovered = true;
	path_wait(md, p);
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
static void disc_pass(struct mp_dev *md)
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
			state_name(md->disc_state_seen), state_name(ci.state),
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
	ret = disc_read(md->disc, md->subnqn, found, &nr, &gen);
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

static void control_pass(struct mp_dev *md)
{
	bool reread = atomic_exchange(&md->ana_reread, false);
	bool kick_all = false;
	unsigned i;

	disc_pass(md);
	for (i = 0; i < md->nr; i++) {
		struct mp_path *p = &md->path[i];
		struct nvmf_ctrl_info ci;
		bool want = false;

		if (!mp_path_joined(p)) {
			if (p->waiting && path_retry(md, i))
				kick_all = true;
			continue;
		}
		if (nvmf_ctrl_info(p->dev, &ci))
			continue;
		if (ci.state != p->state_seen) {
			fprintf(stderr,
				"mqblk: nvme-mpath: %s: path %s: %s -> %s\n",
				md->subnqn, p->name, state_name(p->state_seen),
				state_name(ci.state));
			p->state_seen = ci.state;
			kick_all = true;
			if (ci.state == NVMF_CTRL_LIVE)
				want = true; /* back: its ANA state anew */
		}
		if (ci.ana_gen != p->ana_gen_seen) {
			p->ana_gen_seen = ci.ana_gen;
			want = true;
		}
		if (atomic_load(&p->ana_pending) &&
		    (reread || mp_now_ms() - p->ana_read_ms >= MP_ANA_RETRY_MS))
			want = true;
		if (atomic_load(&p->sq_gone) && !p->sq_gone_ms) {
			p->sq_gone_ms = mp_now_ms();
			p->sq_gone_resets = ci.resets;
		}
		if (p->sq_gone_ms && ci.state == NVMF_CTRL_LIVE &&
		    (ci.resets != p->sq_gone_resets ||
		     mp_now_ms() - p->sq_gone_ms >= MP_SQ_GONE_MS)) {
			/* a new controller, or the old one lasted */
			p->sq_gone_ms = 0;
			atomic_store(&p->sq_gone, false);
			kick_all = true;
		}
		if (want && ci.state == NVMF_CTRL_LIVE && !ana_read(md, p))
			kick_all = true;
		if (ci.state == NVMF_CTRL_LIVE && p->change_ms &&
		    mp_now_ms() - p->change_ms >= mp_anatt_ms(p->anatt)) {
			char why[96];

			/* nvme_anatt_timeout: a transition that does not
			 * end is a controller in trouble */
			snprintf(why, sizeof(why),
				 "ANA group %u in change past 2 x ANATT (%u s)",
				 p->anagrpid, p->anatt);
			p->change_ms = 0; /* again after the reconnect */
			nvmf_ctrl_reset(p->dev, why);
		}
	}
	pthread_mutex_lock(&md->lock);
	for (i = 0; i < MP_MAX_HCTX; i++) {
		struct mp_hctx *mh = md->hctx[i];

		if (mh && (kick_all || atomic_load(&mh->nr_held) ||
			   atomic_load(&mh->children)))
			mp_kick(mh);
	}
	pthread_mutex_unlock(&md->lock);
}

static void *mp_main(void *arg)
{
	struct mp_dev *md = arg;

	while (!atomic_load(&md->stop)) {
		struct pollfd p = { .fd = md->efd, .events = POLLIN };
		uint64_t v;

		if (poll(&p, 1, MP_TICK_MS) > 0 &&
		    read(md->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			abort();
		if (atomic_load(&md->stop))
			break;
		control_pass(md);
	}
	return NULL;
}

/* ---- set-up ------------------------------------------------------------ */

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

static void host_str(char *out, size_t len, const struct mp_addr *a)
{
	/* a path over another transport than the default shows it */
	snprintf(out, len, strchr(a->host, ':') ? "%s%s[%s]:%s" : "%s%s%s:%s",
		 a->tr[0] && strcmp(a->tr, MP_DEFAULT_TR) ? a->tr : "",
		 a->tr[0] && strcmp(a->tr, MP_DEFAULT_TR) ? ":" : "", a->host,
		 a->port);
}

/* host_str without the transport: what its own URI names */
static void addr_str(char *out, size_t len, const struct mp_addr *a)
{
	snprintf(out, len, strchr(a->host, ':') ? "[%s]:%s" : "%s:%s", a->host,
		 a->port);
}

/* The nvme-TR:// URI of one path: the passed-through keys in q. */
static char *path_uri(const struct mp_addr *a, const char *nqn, const char *q)
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
static int disc_open(const struct mp_addr *a, const char *q,
		     struct mqblk_dev **dd, char *err, size_t errlen)
{
	struct mqblk_dev_opts o;
	char hp[280], ap[280], derr[200], uri[2048];
	int ret;

	host_str(hp, sizeof(hp), a);
	addr_str(ap, sizeof(ap), a);
	snprintf(uri, sizeof(uri), "nvme-%s://%s/%s%s%s",
		 a->tr[0] ? a->tr : MP_DEFAULT_TR, ap, NVME_DISC_SUBSYS_NAME,
		 q[0] ? "?" : "", q[0] ? q + 1 : "");
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
static int disc_read(struct mqblk_dev *dd, const char *nqn,
		     struct mp_addr *addrs, unsigned *nr, uint64_t *gen)
{
	struct nvmf_disc_log_header *h = calloc(1, sizeof(*h));
	uint8_t *log = NULL;
	uint64_t numrec = 0, g = 0, r;
	unsigned tries;
	int ret = h ? -EAGAIN : -ENOMEM;

	for (tries = 0; h && tries < MP_DISC_TRIES; tries++) {
		uint8_t *nl;

		ret = get_log(dd, NVME_LOG_DISC, false, h, sizeof(*h), 0);
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

			ret = get_log(dd, NVME_LOG_DISC, false,
				      log + r * NVME_DISC_ENTRY_SIZE,
				      (uint32_t)n * NVME_DISC_ENTRY_SIZE,
				      sizeof(*h) + r * NVME_DISC_ENTRY_SIZE);
		}
		if (ret)
			break;
		ret = get_log(dd, NVME_LOG_DISC, false, h, sizeof(*h), 0);
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

/* The namespace's identity on one path (nvme_ns_ids). */
struct ns_ids {
	uint8_t nguid[16];
	uint8_t eui64[8];
	uint8_t uuid[16];
};
_Static_assert(sizeof(struct ns_ids) == sizeof(((struct mp_dev *)0)->ids),
	       "mp_dev.ids holds a struct ns_ids");

/* What p's controller has done so far, for the control thread to tell
 * what changes from now on (a freshly opened or reopened path). */
static void path_baseline(struct mp_path *p)
{
	struct nvmf_ctrl_info ci;

	nvmf_ctrl_info(p->dev, &ci);
	p->resets_base = p->resets_seen = ci.resets;
	p->ana_gen_seen = ci.ana_gen;
	p->state_seen = ci.state;
}

/* Identify the controller and namespace behind path p: subsystem NQN,
 * ANA support and group, the namespace's identifiers. */
static int path_identify(struct mp_dev *md, struct mp_path *p,
			 struct ns_ids *ids, char *err, size_t errlen)
{
	struct nvmf_ctrl_info ci;
	struct nvme_id_ctrl *idc;
	struct nvme_id_ns *idn;
	uint8_t *buf;
	char sn[NVME_NQN_SIZE];
	int ret;

	buf = aligned_alloc(4096, NVME_IDENTIFY_SIZE);
	if (!buf)
		return -ENOMEM;
	memset(ids, 0, sizeof(*ids));
	nvmf_ctrl_info(p->dev, &ci);
	ret = identify(p->dev, NVME_ID_CNS_CTRL, 0, buf);
	if (ret)
		goto fail;
	idc = (struct nvme_id_ctrl *)buf;
	memcpy(sn, idc->subnqn, sizeof(sn));
	sn[sizeof(sn) - 1] = '\0';
	if (strcmp(sn, md->subnqn)) {
		char b[NVME_NQN_SIZE];

		mp_printable(sn, sizeof(sn), b, sizeof(b));
		memcpy(sn, b, sizeof(sn));
		snprintf(err, errlen,
			 "nvme-mpath: path %s belongs to subsystem '%s', not "
			 "%s",
			 p->name, sn, md->subnqn);
		free(buf);
		return -EINVAL;
	}
	p->ana_supported = idc->cmic & NVME_CTRL_CMIC_ANA;
	p->anatt = idc->anatt;
	if (p->ana_supported) {
		/* as the kernel sizes it: a descriptor per group the
		 * controller may report and an NSID per namespace it may
		 * have (MNAN, else NN), in whole 4 KiB pages; 1024
		 * namespaces already pass one page */
		uint64_t nns = le32_to_cpu(idc->mnan) ? le32_to_cpu(idc->mnan) :
							le32_to_cpu(idc->nn);
		uint64_t len = MP_ANA_HDR_SIZE +
			       (uint64_t)le32_to_cpu(idc->nanagrpid) *
				       MP_ANA_DESC_SIZE +
			       nns * 4;

		len = (len + 4095) & ~4095ull;
		if (len > MP_ANA_LOG_MAX) {
			snprintf(
				err, errlen,
				"nvme-mpath: path %s: an ANA log of %llu bytes "
				"(NANAGRPID %u, %llu namespaces) is more than "
				"%u",
				p->name, (unsigned long long)len,
				le32_to_cpu(idc->nanagrpid),
				(unsigned long long)nns, MP_ANA_LOG_MAX);
			free(buf);
			return -EINVAL;
		}
		p->ana_log_len = (uint32_t)len;
	}
	ret = identify(p->dev, NVME_ID_CNS_NS, ci.nsid, buf);
	if (ret)
		goto fail;
	idn = (struct nvme_id_ns *)buf;
	memcpy(ids->nguid, idn->nguid, 16);
	memcpy(ids->eui64, idn->eui64, 8);
	p->anagrpid = le32_to_cpu(idn->anagrpid);
	/* the UUID from the descriptor list; a controller without one
	 * simply has none */
	if (!identify(p->dev, NVME_ID_CNS_NS_DESC_LIST, ci.nsid, buf)) {
		size_t off = 0;

		while (off + 4 <= NVME_IDENTIFY_SIZE && buf[off]) {
			uint8_t t = buf[off], l = buf[off + 1];

			if (off + 4 + l > NVME_IDENTIFY_SIZE)
				break;
			if (t == NVME_NIDT_UUID && l == 16)
				memcpy(ids->uuid, buf + off + 4, 16);
			off += 4 + l;
		}
	}
	free(buf);
	if (p->ana_supported && !p->anagrpid) {
		snprintf(err, errlen,
			 "nvme-mpath: path %s reports ANA but the namespace "
			 "has no ANA group",
			 p->name);
		return -EINVAL;
	}
	ret = ana_read(md, p);
	if (ret) {
		snprintf(err, errlen,
			 "nvme-mpath: path %s: reading the ANA log: %s",
			 p->name, strerror(-ret));
		return ret;
	}
	return 0;
fail:
	free(buf);
	snprintf(err, errlen, "nvme-mpath: path %s: Identify: %s", p->name,
		 strerror(-ret));
	return ret;
}

static bool ids_empty(const struct ns_ids *a)
{
	static const struct ns_ids zero;

	return !memcmp(a, &zero, sizeof(zero));
}

/* Path p did not answer: the control thread connects it from
 * reconnect_delay on, until ctrl_loss_tmo from now (path_retry). */
static void path_wait(struct mp_dev *md, struct mp_path *p)
{
	p->waiting = true;
	p->retry_ms = mp_now_ms() + md->reconnect_ms;
	p->give_up_ms = mp_now_ms() + md->loss_ms;
}

/* Does path p, identified as ids, show the device's namespace? 0, or
 * -EINVAL with the reason in err. */
static int path_matches(struct mp_dev *md, struct mp_path *p,
			const struct ns_ids *ids, char *err, size_t errlen)
{
	if (memcmp(ids, md->ids, sizeof(*ids))) {
		snprintf(err, errlen,
			 "nvme-mpath: path %s exposes a different namespace "
			 "(NGUID/EUI-64/UUID differ from path %s)",
			 p->name, md->path[md->ref].name);
		return -EINVAL;
	}
	if (mqblk_dev_size(p->dev) != md->size ||
	    mqblk_dev_block_size(p->dev) != md->bs) {
		snprintf(err, errlen,
			 "nvme-mpath: path %s: the namespace has a different "
			 "size or block size",
			 p->name);
		return -EINVAL;
	}
	return 0;
}

/*
 * A late path's connect, on its own thread: open it, identify it, check
 * it against the device's namespace and queues. A connect to a port that
 * takes the connection and never answers lasts the nvme-tcp driver's
 * whole timeout; meanwhile the control thread goes on failing over and
 * reading ANA logs for the paths that are up.
 */
static void *path_connect_fn(void *arg)
{
	struct mp_path *p = arg;
	struct mp_dev *md = p->md;
	unsigned n = mqblk_dev_nr_hw_queues(md->dev);
	struct ns_ids ids;
	char *err = p->conn_err;
	size_t errlen = sizeof(p->conn_err);
	int ret;

	err[0] = '\0';
	ret = mqblk_dev_open(p->uri, &md->popts, &p->dev, err, errlen);
	if (!ret) {
		ret = path_identify(md, p, &ids, err, errlen);
		if (!ret)
			ret = path_matches(md, p, &ids, err, errlen);
		if (!ret && (mqblk_dev_nr_hw_queues(p->dev) < n ||
			     mqblk_dev_queue_depth(p->dev) < md->depth)) {
			snprintf(err, errlen,
				 "nvme-mpath: path %s: %u I/O queues of %u "
				 "entries, fewer than the device's %u of %u",
				 p->name, mqblk_dev_nr_hw_queues(p->dev),
				 mqblk_dev_queue_depth(p->dev), n, md->depth);
			ret = -EINVAL;
		}
		if (ret) {
			mqblk_dev_close(p->dev);
			p->dev = NULL;
		}
	}
	p->conn_ret = ret;
	atomic_store_explicit(&p->conn, MP_CONN_DONE, memory_order_release);
	mp_wake(md);
	return NULL;
}

/* The control thread waits for path p's connecting thread, if any. */
static void path_connect_join(struct mp_path *p)
{
	if (atomic_load(&p->conn) == MP_CONN_IDLE)
		return;
	pthread_join(p->conn_thread, NULL);
	atomic_store(&p->conn, MP_CONN_IDLE);
}

/*
 * Path i did not answer when the device opened (or at the last retry):
 * the control thread connects it again, as the kernel's reconnect work
 * does for a controller that lost its connection: every reconnect_delay
 * it starts path_connect_fn, and on a later pass takes what that found.
 * Once connected and checked, a queue of it is opened in every hctx (in
 * hctx order) and the path joins: true, and its ANA state is as read at
 * connect. No answer again: retried after reconnect_delay, until
 * ctrl_loss_tmo from the open; then, or on any other failure (a refusal,
 * another namespace, fewer queues), it is given up (true: held I/O may
 * have no path left). False while it connects or waits to.
 */
static bool path_retry(struct mp_dev *md, unsigned i)
{
	struct mp_path *p = &md->path[i];
	unsigned n = mqblk_dev_nr_hw_queues(md->dev), k, have = 0;
	char err[512] = "";
	int ret;

	switch (atomic_load_explicit(&p->conn, memory_order_acquire)) {
	case MP_CONN_BUSY:
		return false;
	case MP_CONN_DONE:
		path_connect_join(p);
		ret = p->conn_ret;
		snprintf(err, sizeof(err), "%s", p->conn_err);
		break;
	default:
		if (mp_now_ms() < p->retry_ms)
			return false;
		pthread_mutex_lock(&md->lock);
		for (k = 0; k < n && k < MP_MAX_HCTX; k++)
			have += md->hctx[k] != NULL;
		pthread_mutex_unlock(&md->lock);
		if (have < n || n > MP_MAX_HCTX) {
			/* the device is still setting up (or closing) */
			p->retry_ms = mp_now_ms() + MP_TICK_MS;
			return false;
		}
		p->md = md;
		atomic_store(&p->conn, MP_CONN_BUSY);
		ret = pthread_create(&p->conn_thread, NULL, path_connect_fn, p);
		if (!ret)
			return false;
		atomic_store(&p->conn, MP_CONN_IDLE);
		ret = -ret;
		snprintf(err, sizeof(err), "cannot start its connect: %s",
			 strerror(-ret));
		p->give_up_ms = 0; /* not a transient failure */
		break;
	}
	if (ret && mp_err_transient(ret) && mp_now_ms() < p->give_up_ms) {
		p->retry_ms = mp_now_ms() + md->reconnect_ms;
		return false;
	}
	if (!ret) {
		path_baseline(p);
		pthread_mutex_lock(&md->lock);
		for (k = 0; k < n && !ret; k++) {
			struct mp_hctx *mh = md->hctx[k];

			if (!mh) {
				ret = -ENODEV; /* closing meanwhile */
				break;
			}
			pthread_mutex_lock(&mh->lock);
			ret = mp_hctx_add_path(mh, i);
			pthread_mutex_unlock(&mh->lock);
		}
		if (!ret) {
			atomic_store_explicit(&p->joined, true,
					      memory_order_release);
			pthread_mutex_unlock(&md->lock);
			p->waiting = false;
			fprintf(stderr,
				"mqblk: nvme-mpath: %s: path %s: connected "
				"(ANA state %s): joined%s\n",
				md->subnqn, p->name,
				mp_ana_state_name(atomic_load(&p->ana)),
				p->discovered ? " (found by discovery)" : "");
			return true;
		}
		while (k--) {
			struct mp_hctx *mh = md->hctx[k];

			if (mh && mh->q[i]) {
				pthread_mutex_lock(&mh->lock);
				mqblk_queue_close(mh->q[i]);
				mh->q[i] = NULL;
				pthread_mutex_unlock(&mh->lock);
			}
		}
		pthread_mutex_unlock(&md->lock);
		mqblk_dev_close(p->dev);
		p->dev = NULL;
		snprintf(err, sizeof(err),
			 "nvme-mpath: path %s: its queues: %s", p->name,
			 strerror(-ret));
	}
	if (mp_err_transient(ret))
		fprintf(stderr,
			"mqblk: nvme-mpath: %s: path %s: no connection within "
			"ctrl_loss_tmo (%u s), last: %s: giving up on it\n",
			md->subnqn, p->name, md->loss_ms / 1000,
			err[0] ? err : strerror(-ret));
	else if (!strncmp(err, "nvme-mpath: ", 12))
		fprintf(stderr, "mqblk: %s (%s): giving up on the path\n", err,
			md->subnqn);
	else
		fprintf(stderr,
			"mqblk: nvme-mpath: %s: path %s: %s: giving up on it\n",
			md->subnqn, p->name, err[0] ? err : strerror(-ret));
	p->waiting = false;
	atomic_store(&p->given_up, true);
	return true;
}

static void mp_free(struct mp_dev *md)
{
	unsigned i;

	if (md->running) {
		atomic_store(&md->stop, true);
		mp_wake(md);
		pthread_join(md->thread, NULL);
	}
	for (i = 0; i < md->nr; i++) {
		path_connect_join(&md->path[i]); /* as long as its connect */
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

/*
 * Before the first hardware queue: a polled (hipri) device reopens its
 * paths polled, so a poll pass polls each path's socket directly (one
 * recv, no epoll_wait) and a path's commands wait for that pass to go out
 * in one sendmsg, as a single nvme-tcp device does; the paths were opened
 * with the local policy for init, which cannot know the device's policy.
 * Then the control thread starts.
 */
int mp_start(struct mp_dev *md, bool polled)
{
	struct mqblk_dev_opts o = md->popts;
	char err[512];
	unsigned i;
	int ret;

	for (i = 0; polled && i < md->nr; i++) {
		struct mp_path *p = &md->path[i];
		struct ns_ids ids;

		if (!mp_path_joined(p))
			continue; /* opened polled when it joins */
		mqblk_dev_close(p->dev);
		p->dev = NULL;
		o.comp_policy = MQBLK_COMP_POLLED;
		err[0] = '\0';
		ret = mqblk_dev_open(p->uri, &o, &p->dev, err, sizeof(err));
		if (!ret)
			ret = path_identify(md, p, &ids, err, sizeof(err));
		if (!ret)
			ret = path_matches(md, p, &ids, err, sizeof(err));
		if (ret && p->dev) {
			mqblk_dev_close(p->dev);
			p->dev = NULL;
		}
		if (ret && mp_err_transient(ret)) {
			/* gone since set-up: joins later, as one that
			 * did not answer at open */
			atomic_store(&p->joined, false);
			path_wait(md, p);
			fprintf(stderr,
				"mqblk: nvme-mpath: %s: path %s: reopening it "
				"polled: %s; retrying every %u s\n",
				md->subnqn, p->name,
				err[0] ? err : strerror(-ret),
				md->reconnect_ms / 1000);
			continue;
		}
		if (ret) {
			fprintf(stderr,
				"mqblk: nvme-mpath: path %s: reopening it "
				"polled: %s\n",
				p->name, err[0] ? err : strerror(-ret));
			return ret;
		}
		path_baseline(p);
	}
	for (i = 0; i < md->nr && !mp_path_joined(&md->path[i]); i++)
		;
	if (i == md->nr) {
		fprintf(stderr,
			"mqblk: nvme-mpath: %s: no path left after reopening "
			"them polled\n",
			md->subnqn);
		return -ENOTCONN;
	}
	if (polled)
		md->popts.comp_policy = MQBLK_COMP_POLLED;
	md->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (md->efd < 0 || pthread_create(&md->thread, NULL, mp_main, md))
		return -ENOMEM;
	md->running = true;
	return 0;
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
		snprintf(err, errlen, "nvme-tcp URI: no address");
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
	}
	if (disc) {
		char hq[1024] = "";
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
		/* hostnqn= and hostid= only; a persistent one reconnects
		 * as the paths do, and keeps alive */
		for (s = q; (s = strchr(s, '&'));) {
			const char *e = strchr(s + 1, '&');
			size_t l = e ? (size_t)(e - s) : strlen(s);
			bool take = !strncmp(s, "&hostnqn=", 9) ||
				    !strncmp(s, "&hostid=", 8);

			if (md->persist &&
			    (!strncmp(s, "&reconnect_delay=", 17) ||
			     !strncmp(s, "&ctrl_loss_tmo=", 15) ||
			     (!strncmp(s, "&kato=", 6) && l > 6 &&
			      strtoul(s + 6, NULL, 0)))) {
				take = true;
				have_kato |= !strncmp(s, "&kato=", 6);
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
		host_str(md->disc_name, sizeof(md->disc_name), &addrs[0]);
		ret = disc_open(&addrs[0], hq, &md->disc, err, errlen);
		if (ret)
			goto fail;
		ret = disc_read(md->disc, md->subnqn, addrs, &nr, &gen);
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
		char *uri = path_uri(&addrs[i], md->subnqn, q);

		if (!uri) {
			ret = -ENOMEM;
			goto fail;
		}
		host_str(p->name, sizeof(p->name), &addrs[i]);
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
		path_baseline(p);
		ret = path_identify(md, p, &ids, err, errlen);
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
			ret = path_matches(md, p, &ids, err, errlen);
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
		path_wait(md, p);
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

int mp_get_paths(const struct mqblk_dev *dev, struct mqblk_path_stats *out,
		 unsigned max)
{
	struct mp_dev *md = mqblk_dev_data(dev);
	int cur = atomic_load(&md->current);
	unsigned nr = atomic_load_explicit(&md->nr, memory_order_acquire), i;

	for (i = 0; i < nr && i < max; i++) {
		struct mp_path *p = &md->path[i];
		struct mqblk_path_stats *s = &out[i];
		struct nvmf_ctrl_info ci;

		memset(s, 0, sizeof(*s));
		memset(&ci, 0, sizeof(ci));
		snprintf(s->name, sizeof(s->name), "%s", p->name);
		if (mp_path_joined(p)) {
			nvmf_ctrl_info(p->dev, &ci);
			snprintf(s->state, sizeof(s->state), "%s",
				 state_name(ci.state));
		} else {
			/* not connected since the device opened */
			snprintf(s->state, sizeof(s->state), "%s",
				 atomic_load(&p->given_up) ? "dead" :
							     "connecting");
		}
		snprintf(s->ana_state, sizeof(s->ana_state), "%s",
			 mp_ana_state_name(atomic_load(&p->ana)));
		s->current = md->pol != MP_IOPOLICY_QD && (int)i == cur;
		s->sent = atomic_load(&p->sent);
		s->completed = atomic_load(&p->completed);
		s->failovers = atomic_load(&p->failovers);
		s->reconnects = ci.resets - p->resets_base;
		s->stalls = ci.stalls;
		s->inflight = atomic_load(&p->inflight);
		s->discovered = p->discovered;
	}
	return (int)nr;
}

/* An admin command to the device goes to one controller: the current
 * path if it is live, else the first live one (nvme-cli on a multipath
 * head node reaches a controller of the subsystem the same way). */
int mp_nvme_admin(struct mqblk_dev *dev, void *sqe, void *data, uint32_t len,
		  bool to_dev, uint32_t *result, uint16_t *status)
{
	struct mp_dev *md = mqblk_dev_data(dev);
	int cur = atomic_load(&md->current);
	unsigned i;

	if (cur >= 0 && (unsigned)cur < md->nr &&
	    mp_path_joined(&md->path[cur]) &&
	    nvmf_ctrl_state(md->path[cur].dev) == NVMF_CTRL_LIVE)
		return mqblk_dev_nvme_admin(md->path[cur].dev, sqe, data, len,
					    to_dev, result, status);
	for (i = 0; i < md->nr; i++)
		if (mp_path_joined(&md->path[i]) &&
		    nvmf_ctrl_state(md->path[i].dev) == NVMF_CTRL_LIVE)
			return mqblk_dev_nvme_admin(md->path[i].dev, sqe, data,
						    len, to_dev, result,
						    status);
	return -EIO;
}

const char *mp_iopolicy_of(const struct mqblk_dev *dev)
{
	struct mp_dev *md = mqblk_dev_data(dev);

	return mp_iopolicy_name(md->pol);
}
