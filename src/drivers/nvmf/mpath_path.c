// SPDX-License-Identifier: MIT
/*
 * One path of the multipath device: the admin commands it answers
 * (Identify, Get Log Page), its namespace's identity checked against the
 * device's, its ANA state, its controller's state by name, and the
 * connect of a path that joins late, on a thread of its own.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mqblk/driver.h>

#include "host.h"
#include "mpath_dev.h"

int mp_get_log(struct mqblk_dev *dev, uint8_t lid, bool rae, void *buf,
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
int mp_ana_read(struct mp_dev *md, struct mp_path *p)
{
	uint8_t *log;
	uint8_t st = MP_ANA_OPTIMIZED;
	int ret = 0;

	if (p->ana_supported) {
		log = aligned_alloc(4096, p->ana_log_len);
		if (!log)
			return -ENOMEM;
		ret = mp_get_log(p->dev, NVME_LOG_ANA, false, log,
				 p->ana_log_len, 0);
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

const char *mp_ctrl_state_name(int s)
{
	return s == NVMF_CTRL_LIVE ? "live" :
	       s == NVMF_CTRL_DEAD ? "dead" :
				     "resetting";
}

/* What p's controller has done so far, for the control thread to tell
 * what changes from now on (a freshly opened or reopened path). */
void mp_path_baseline(struct mp_path *p)
{
	struct nvmf_ctrl_info ci;

	nvmf_ctrl_info(p->dev, &ci);
	p->resets_base = p->resets_seen = ci.resets;
	p->ana_gen_seen = ci.ana_gen;
	p->state_seen = ci.state;
}

/* Identify the controller and namespace behind path p: subsystem NQN,
 * ANA support and group, the namespace's identifiers. */
int mp_path_identify(struct mp_dev *md, struct mp_path *p, struct ns_ids *ids,
		     char *err, size_t errlen)
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
	ret = mp_ana_read(md, p);
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

/* Path p did not answer: the control thread connects it from
 * reconnect_delay on, until ctrl_loss_tmo from now (path_retry). */
void mp_path_wait(struct mp_dev *md, struct mp_path *p)
{
	p->waiting = true;
	p->retry_ms = mp_now_ms() + md->reconnect_ms;
	p->give_up_ms = mp_now_ms() + md->loss_ms;
}

/* Does path p, identified as ids, show the device's namespace? 0, or
 * -EINVAL with the reason in err. */
int mp_path_matches(struct mp_dev *md, struct mp_path *p,
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
void *mp_path_connect_fn(void *arg)
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
		ret = mp_path_identify(md, p, &ids, err, errlen);
		if (!ret)
			ret = mp_path_matches(md, p, &ids, err, errlen);
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
void mp_path_connect_join(struct mp_path *p)
{
	if (atomic_load(&p->conn) == MP_CONN_IDLE)
		return;
	pthread_join(p->conn_thread, NULL);
	atomic_store(&p->conn, MP_CONN_IDLE);
}
