// SPDX-License-Identifier: MIT
/*
 * mqblk id-ctrl: nvme-cli's id-ctrl (Identify Controller), normal, -H
 * (bit fields spelled out) and JSON.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../nvme.h"
#include "nvcli.h"

static const char *uuid_str(const uint8_t u[16], char buf[37])
{
	snprintf(buf, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
	return buf;
}

static const struct bits cmic_bits[] = {
	{ 7, 4, NULL, NULL },
	{ 3, 3, "ANA supported", "ANA not supported" },
	{ 2, 2, "SR-IOV", "PCI" },
	{ 1, 1, "Multi Controller", "Single Controller" },
	{ 0, 0, "Multi Port", "Single Port" },
};
static const struct bits oacs_bits[] = {
	{ 15, 11, NULL, NULL },
	{ 10, 10, "Lockdown Command and Feature Supported",
	  "Lockdown Command and Feature Not Supported" },
	{ 9, 9, "Get LBA Status Capability Supported",
	  "Get LBA Status Capability Not Supported" },
	{ 8, 8, "Doorbell Buffer Config Supported",
	  "Doorbell Buffer Config Not Supported" },
	{ 7, 7, "Virtualization Management Supported",
	  "Virtualization Management Not Supported" },
	{ 6, 6, "NVMe-MI Send and Receive Supported",
	  "NVMe-MI Send and Receive Not Supported" },
	{ 5, 5, "Directives Supported", "Directives Not Supported" },
	{ 4, 4, "Device Self-test Supported",
	  "Device Self-test Not Supported" },
	{ 3, 3, "NS Management and Attachment Supported",
	  "NS Management and Attachment Not Supported" },
	{ 2, 2, "FW Commit and Download Supported",
	  "FW Commit and Download Not Supported" },
	{ 1, 1, "Format NVM Supported", "Format NVM Not Supported" },
	{ 0, 0, "Security Send and Receive Supported",
	  "Security Send and Receive Not Supported" },
};
static const struct bits lpa_bits[] = {
	{ 7, 5, NULL, NULL },
	{ 4, 4, "Persistent Event log Supported",
	  "Persistent Event log Not Supported" },
	{ 3, 3, "Telemetry host/controller initiated log page Supported",
	  "Telemetry host/controller initiated log page Not Supported" },
	{ 2, 2, "Extended data for Get Log Page Supported",
	  "Extended data for Get Log Page Not Supported" },
	{ 1, 1, "Command Effects Log Page Supported",
	  "Command Effects Log Page Not Supported" },
	{ 0, 0, "SMART/Health Log Page per NS Supported",
	  "SMART/Health Log Page per NS Not Supported" },
};
static const char *const cntrltype_vals[] = {
	"Controller type not reported",
	"I/O Controller",
	"Discovery Controller",
	"Administrative Controller",
};
static const struct bits cntrltype_bits[] = {
	{ 7, 2, NULL, NULL },
	{ 1, 0, NULL, NULL, cntrltype_vals },
};
static const struct bits sqes_bits[] = {
	{ 7, 4, "Max SQ Entry Size", NULL, NULL, true },
	{ 3, 0, "Min SQ Entry Size", NULL, NULL, true },
};
static const struct bits cqes_bits[] = {
	{ 7, 4, "Max CQ Entry Size", NULL, NULL, true },
	{ 3, 0, "Min CQ Entry Size", NULL, NULL, true },
};
static const struct bits oncs_bits[] = {
	{ 15, 9, NULL, NULL },
	{ 8, 8, "Copy Supported", "Copy Not Supported" },
	{ 7, 7, "Verify Supported", "Verify Not Supported" },
	{ 6, 6, "Timestamp Supported", "Timestamp Not Supported" },
	{ 5, 5, "Reservations Supported", "Reservations Not Supported" },
	{ 4, 4, "Save and Select Supported", "Save and Select Not Supported" },
	{ 3, 3, "Write Zeroes Supported", "Write Zeroes Not Supported" },
	{ 2, 2, "Data Set Management Supported",
	  "Data Set Management Not Supported" },
	{ 1, 1, "Write Uncorrectable Supported",
	  "Write Uncorrectable Not Supported" },
	{ 0, 0, "Compare Supported", "Compare Not Supported" },
};
static const struct bits fuses_bits[] = {
	{ 15, 1, NULL, NULL },
	{ 0, 0, "Fused Compare and Write Supported",
	  "Fused Compare and Write Not Supported" },
};
static const char *const vwc_flush_vals[] = {
	"Support for the NSID field set to FFFFFFFFh is not indicated",
	"Reserved",
	"The Flush command does not support NSID set to FFFFFFFFh",
	"The Flush command supports NSID set to FFFFFFFFh",
};
static const struct bits vwc_bits[] = {
	{ 7, 3, NULL, NULL },
	{ 2, 1, NULL, NULL, vwc_flush_vals },
	{ 0, 0, "Volatile Write Cache Present",
	  "Volatile Write Cache Not Present" },
};
static const char *const sgls_vals[] = {
	"Scatter-Gather Lists Not Supported",
	"Scatter-Gather Lists Supported. No Dword alignment required.",
	"Scatter-Gather Lists Supported. Dword alignment required.",
	"Reserved",
};
static const struct bits sgls_bits[] = {
	{ 31, 22, NULL, NULL },
	{ 21, 21, "Transport SGL Data Block Descriptor Supported",
	  "Transport SGL Data Block Descriptor Not Supported" },
	{ 20, 20, "Address Offsets Supported",
	  "Address Offsets Not Supported" },
	{ 19, 19, "Metadata Pointer Containing SGL Descriptor is Supported",
	  "Metadata Pointer Containing SGL Descriptor is Not Supported" },
	{ 18, 18, "SGL Length Larger than Buffer Supported",
	  "SGL Length Larger than Buffer Not Supported" },
	{ 17, 17, "Byte-Aligned Contig. MD Buffer Supported",
	  "Byte-Aligned Contig. MD Buffer Not Supported" },
	{ 16, 16, "SGL Bit-Bucket Supported", "SGL Bit-Bucket Not Supported" },
	{ 15, 8, "SGL Descriptor Threshold", NULL },
	{ 7, 3, NULL, NULL },
	{ 2, 2, "Keyed SGL Data Block descriptor Supported",
	  "Keyed SGL Data Block descriptor Not Supported" },
	{ 1, 0, NULL, NULL, sgls_vals },
};
static const struct bits fcatt_bits[] = {
	{ 7, 1, NULL, NULL },
	{ 0, 0, "Static Controller Model", "Dynamic Controller Model" },
};
static const struct bits ofcs_bits[] = {
	{ 15, 1, NULL, NULL },
	{ 0, 0, "Disconnect command Supported",
	  "Disconnect command Not Supported" },
};

struct ctrl_strs {
	char sn[21], mn[41], fr[9], subnqn[NVME_NQN_SIZE + 1];
};

static void ctrl_strs(const struct nvme_id_ctrl *id, struct ctrl_strs *s)
{
	nvcli_field_str(s->sn, sizeof(s->sn), id->sn, sizeof(id->sn));
	nvcli_field_str(s->mn, sizeof(s->mn), id->mn, sizeof(id->mn));
	nvcli_field_str(s->fr, sizeof(s->fr), id->fr, sizeof(id->fr));
	nvcli_field_str(s->subnqn, sizeof(s->subnqn), id->subnqn,
			sizeof(id->subnqn));
}

/* A power state's power in its scale (PSD bits 7:6), nvme-cli's way */
static void print_power(uint16_t p, unsigned scale)
{
	switch (scale & 3) {
	case 0:
		printf("-");
		break;
	case 1:
		printf("%u.%04uW", p / 10000, p % 10000);
		break;
	case 2:
		printf("%u.%02uW", p / 100, p % 100);
		break;
	default:
		printf("reserved");
	}
}

static void id_ctrl_power(const struct nvme_id_ctrl *id)
{
	static const char *const workload[] = { "-", "1MiB 32 RW, 30s idle",
						"80K 128KiB SW" };
	unsigned i;

	for (i = 0; i <= id->npss && i < 32; i++) {
		const struct nvme_id_power_state *ps = &id->psd[i];
		uint16_t mp = le16_to_cpu(ps->max_power);
		unsigned apw = ps->active_work_scale & 7;

		printf("ps   %4u : mp:", i);
		if (ps->flags & 1) /* MXPS: 0.0001 W units */
			printf("%u.%04uW ", mp / 10000, mp % 10000);
		else
			printf("%u.%02uW ", mp / 100, mp % 100);
		if (ps->flags & 2) /* NOPS */
			printf("non-");
		printf("operational enlat:%" PRIu32 " exlat:%" PRIu32
		       " rrt:%u rrl:%u\n"
		       "            rwt:%u rwl:%u idle_power:",
		       le32_to_cpu(ps->entry_lat), le32_to_cpu(ps->exit_lat),
		       ps->read_tput, ps->read_lat, ps->write_tput,
		       ps->write_lat);
		print_power(le16_to_cpu(ps->idle_power), ps->idle_scale >> 6);
		printf(" active_power:");
		print_power(le16_to_cpu(ps->active_power),
			    ps->active_work_scale >> 6);
		printf("\n            active_power_workload:%s\n",
		       apw < 3 ? workload[apw] : "reserved");
	}
}

static void id_ctrl_print(const struct nvme_id_ctrl *id, bool human)
{
	struct ctrl_strs s;
	char b[48], u[37];

	ctrl_strs(id, &s);
	printf("NVME Identify Controller:\n");
	printf("vid       : %#x\n", le16_to_cpu(id->vid));
	printf("ssvid     : %#x\n", le16_to_cpu(id->ssvid));
	printf("sn        : %s\n", s.sn);
	printf("mn        : %s\n", s.mn);
	printf("fr        : %s\n", s.fr);
	printf("rab       : %u\n", id->rab);
	printf("ieee      : %02x%02x%02x\n", id->ieee[2], id->ieee[1],
	       id->ieee[0]);
	printf("cmic      : %#x\n", id->cmic);
	if (human)
		SHOW_BITS(id->cmic, cmic_bits);
	printf("mdts      : %u\n", id->mdts);
	printf("cntlid    : %#x\n", le16_to_cpu(id->cntlid));
	printf("ver       : %#x\n", le32_to_cpu(id->ver));
	printf("rtd3r     : %#x\n", le32_to_cpu(id->rtd3r));
	printf("rtd3e     : %#x\n", le32_to_cpu(id->rtd3e));
	printf("oaes      : %#x\n", le32_to_cpu(id->oaes));
	printf("ctratt    : %#x\n", le32_to_cpu(id->ctratt));
	printf("rrls      : %#x\n", le16_to_cpu(id->rrls));
	printf("cntrltype : %u\n", id->cntrltype);
	if (human)
		SHOW_BITS(id->cntrltype, cntrltype_bits);
	printf("fguid     : %s\n", uuid_str(id->fguid, u));
	printf("crdt1     : %u\n", le16_to_cpu(id->crdt1));
	printf("crdt2     : %u\n", le16_to_cpu(id->crdt2));
	printf("crdt3     : %u\n", le16_to_cpu(id->crdt3));
	printf("nvmsr     : %u\n", id->nvmsr);
	printf("vwci      : %u\n", id->vwci);
	printf("mec       : %u\n", id->mec);
	printf("oacs      : %#x\n", le16_to_cpu(id->oacs));
	if (human)
		SHOW_BITS(le16_to_cpu(id->oacs), oacs_bits);
	printf("acl       : %u\n", id->acl);
	printf("aerl      : %u\n", id->aerl);
	printf("frmw      : %#x\n", id->frmw);
	printf("lpa       : %#x\n", id->lpa);
	if (human)
		SHOW_BITS(id->lpa, lpa_bits);
	printf("elpe      : %u\n", id->elpe);
	printf("npss      : %u\n", id->npss);
	printf("avscc     : %#x\n", id->avscc);
	printf("apsta     : %#x\n", id->apsta);
	printf("wctemp    : %u\n", le16_to_cpu(id->wctemp));
	printf("cctemp    : %u\n", le16_to_cpu(id->cctemp));
	printf("mtfa      : %u\n", le16_to_cpu(id->mtfa));
	printf("hmpre     : %" PRIu32 "\n", le32_to_cpu(id->hmpre));
	printf("hmmin     : %" PRIu32 "\n", le32_to_cpu(id->hmmin));
	printf("tnvmcap   : %s\n", nvcli_u128_str(id->tnvmcap, b));
	printf("unvmcap   : %s\n", nvcli_u128_str(id->unvmcap, b));
	printf("rpmbs     : %#x\n", le32_to_cpu(id->rpmbs));
	printf("edstt     : %u\n", le16_to_cpu(id->edstt));
	printf("dsto      : %u\n", id->dsto);
	printf("fwug      : %u\n", id->fwug);
	printf("kas       : %u\n", le16_to_cpu(id->kas));
	printf("hctma     : %#x\n", le16_to_cpu(id->hctma));
	printf("mntmt     : %u\n", le16_to_cpu(id->mntmt));
	printf("mxtmt     : %u\n", le16_to_cpu(id->mxtmt));
	printf("sanicap   : %#x\n", le32_to_cpu(id->sanicap));
	printf("hmminds   : %" PRIu32 "\n", le32_to_cpu(id->hmminds));
	printf("hmmaxd    : %u\n", le16_to_cpu(id->hmmaxd));
	printf("nsetidmax : %u\n", le16_to_cpu(id->nsetidmax));
	printf("endgidmax : %u\n", le16_to_cpu(id->endgidmax));
	printf("anatt     : %u\n", id->anatt);
	printf("anacap    : %u\n", id->anacap);
	printf("anagrpmax : %" PRIu32 "\n", le32_to_cpu(id->anagrpmax));
	printf("nanagrpid : %" PRIu32 "\n", le32_to_cpu(id->nanagrpid));
	printf("pels      : %" PRIu32 "\n", le32_to_cpu(id->pels));
	printf("domainid  : %u\n", le16_to_cpu(id->domainid));
	printf("megcap    : %s\n", nvcli_u128_str(id->megcap, b));
	printf("sqes      : %#x\n", id->sqes);
	if (human)
		SHOW_BITS(id->sqes, sqes_bits);
	printf("cqes      : %#x\n", id->cqes);
	if (human)
		SHOW_BITS(id->cqes, cqes_bits);
	printf("maxcmd    : %u\n", le16_to_cpu(id->maxcmd));
	printf("nn        : %" PRIu32 "\n", le32_to_cpu(id->nn));
	printf("oncs      : %#x\n", le16_to_cpu(id->oncs));
	if (human)
		SHOW_BITS(le16_to_cpu(id->oncs), oncs_bits);
	printf("fuses     : %#x\n", le16_to_cpu(id->fuses));
	if (human)
		SHOW_BITS(le16_to_cpu(id->fuses), fuses_bits);
	printf("fna       : %#x\n", id->fna);
	printf("vwc       : %#x\n", id->vwc);
	if (human)
		SHOW_BITS(id->vwc, vwc_bits);
	printf("awun      : %u\n", le16_to_cpu(id->awun));
	printf("awupf     : %u\n", le16_to_cpu(id->awupf));
	printf("icsvscc   : %u\n", id->icsvscc);
	printf("nwpc      : %u\n", id->nwpc);
	printf("acwu      : %u\n", le16_to_cpu(id->acwu));
	printf("ocfs      : %#x\n", le16_to_cpu(id->ocfs));
	printf("sgls      : %#x\n", le32_to_cpu(id->sgls));
	if (human)
		SHOW_BITS(le32_to_cpu(id->sgls), sgls_bits);
	printf("mnan      : %" PRIu32 "\n", le32_to_cpu(id->mnan));
	printf("maxdna    : %s\n", nvcli_u128_str(id->maxdna, b));
	printf("maxcna    : %" PRIu32 "\n", le32_to_cpu(id->maxcna));
	printf("subnqn    : %s\n", s.subnqn);
	printf("ioccsz    : %" PRIu32 "\n", le32_to_cpu(id->ioccsz));
	printf("iorcsz    : %" PRIu32 "\n", le32_to_cpu(id->iorcsz));
	printf("icdoff    : %u\n", le16_to_cpu(id->icdoff));
	printf("fcatt     : %#x\n", id->fcatt);
	if (human)
		SHOW_BITS(id->fcatt, fcatt_bits);
	printf("msdbd     : %u\n", id->msdbd);
	printf("ofcs      : %u\n", le16_to_cpu(id->ofcs));
	if (human)
		SHOW_BITS(le16_to_cpu(id->ofcs), ofcs_bits);
	id_ctrl_power(id);
}

static void id_ctrl_json(const struct nvme_id_ctrl *id)
{
	struct jw w = { 0 };
	struct ctrl_strs s;
	char u[37];
	unsigned i;

	ctrl_strs(id, &s);
	jw_open(&w, NULL, '{');
	jw_u64(&w, "vid", le16_to_cpu(id->vid));
	jw_u64(&w, "ssvid", le16_to_cpu(id->ssvid));
	jw_str(&w, "sn", s.sn);
	jw_str(&w, "mn", s.mn);
	jw_str(&w, "fr", s.fr);
	jw_u64(&w, "rab", id->rab);
	jw_u64(&w, "ieee",
	       (uint32_t)id->ieee[2] << 16 | id->ieee[1] << 8 | id->ieee[0]);
	jw_u64(&w, "cmic", id->cmic);
	jw_u64(&w, "mdts", id->mdts);
	jw_u64(&w, "cntlid", le16_to_cpu(id->cntlid));
	jw_u64(&w, "ver", le32_to_cpu(id->ver));
	jw_u64(&w, "rtd3r", le32_to_cpu(id->rtd3r));
	jw_u64(&w, "rtd3e", le32_to_cpu(id->rtd3e));
	jw_u64(&w, "oaes", le32_to_cpu(id->oaes));
	jw_u64(&w, "ctratt", le32_to_cpu(id->ctratt));
	jw_u64(&w, "rrls", le16_to_cpu(id->rrls));
	jw_u64(&w, "cntrltype", id->cntrltype);
	jw_str(&w, "fguid", uuid_str(id->fguid, u));
	jw_u64(&w, "crdt1", le16_to_cpu(id->crdt1));
	jw_u64(&w, "crdt2", le16_to_cpu(id->crdt2));
	jw_u64(&w, "crdt3", le16_to_cpu(id->crdt3));
	jw_u64(&w, "nvmsr", id->nvmsr);
	jw_u64(&w, "vwci", id->vwci);
	jw_u64(&w, "mec", id->mec);
	jw_u64(&w, "oacs", le16_to_cpu(id->oacs));
	jw_u64(&w, "acl", id->acl);
	jw_u64(&w, "aerl", id->aerl);
	jw_u64(&w, "frmw", id->frmw);
	jw_u64(&w, "lpa", id->lpa);
	jw_u64(&w, "elpe", id->elpe);
	jw_u64(&w, "npss", id->npss);
	jw_u64(&w, "avscc", id->avscc);
	jw_u64(&w, "apsta", id->apsta);
	jw_u64(&w, "wctemp", le16_to_cpu(id->wctemp));
	jw_u64(&w, "cctemp", le16_to_cpu(id->cctemp));
	jw_u64(&w, "mtfa", le16_to_cpu(id->mtfa));
	jw_u64(&w, "hmpre", le32_to_cpu(id->hmpre));
	jw_u64(&w, "hmmin", le32_to_cpu(id->hmmin));
	jw_u128(&w, "tnvmcap", id->tnvmcap);
	jw_u128(&w, "unvmcap", id->unvmcap);
	jw_u64(&w, "rpmbs", le32_to_cpu(id->rpmbs));
	jw_u64(&w, "edstt", le16_to_cpu(id->edstt));
	jw_u64(&w, "dsto", id->dsto);
	jw_u64(&w, "fwug", id->fwug);
	jw_u64(&w, "kas", le16_to_cpu(id->kas));
	jw_u64(&w, "hctma", le16_to_cpu(id->hctma));
	jw_u64(&w, "mntmt", le16_to_cpu(id->mntmt));
	jw_u64(&w, "mxtmt", le16_to_cpu(id->mxtmt));
	jw_u64(&w, "sanicap", le32_to_cpu(id->sanicap));
	jw_u64(&w, "hmminds", le32_to_cpu(id->hmminds));
	jw_u64(&w, "hmmaxd", le16_to_cpu(id->hmmaxd));
	jw_u64(&w, "nsetidmax", le16_to_cpu(id->nsetidmax));
	jw_u64(&w, "endgidmax", le16_to_cpu(id->endgidmax));
	jw_u64(&w, "anatt", id->anatt);
	jw_u64(&w, "anacap", id->anacap);
	jw_u64(&w, "anagrpmax", le32_to_cpu(id->anagrpmax));
	jw_u64(&w, "nanagrpid", le32_to_cpu(id->nanagrpid));
	jw_u64(&w, "pels", le32_to_cpu(id->pels));
	jw_u64(&w, "domainid", le16_to_cpu(id->domainid));
	jw_u128(&w, "megcap", id->megcap);
	jw_u64(&w, "sqes", id->sqes);
	jw_u64(&w, "cqes", id->cqes);
	jw_u64(&w, "maxcmd", le16_to_cpu(id->maxcmd));
	jw_u64(&w, "nn", le32_to_cpu(id->nn));
	jw_u64(&w, "oncs", le16_to_cpu(id->oncs));
	jw_u64(&w, "fuses", le16_to_cpu(id->fuses));
	jw_u64(&w, "fna", id->fna);
	jw_u64(&w, "vwc", id->vwc);
	jw_u64(&w, "awun", le16_to_cpu(id->awun));
	jw_u64(&w, "awupf", le16_to_cpu(id->awupf));
	jw_u64(&w, "icsvscc", id->icsvscc);
	jw_u64(&w, "nwpc", id->nwpc);
	jw_u64(&w, "acwu", le16_to_cpu(id->acwu));
	jw_u64(&w, "ocfs", le16_to_cpu(id->ocfs));
	jw_u64(&w, "sgls", le32_to_cpu(id->sgls));
	jw_u64(&w, "mnan", le32_to_cpu(id->mnan));
	jw_u128(&w, "maxdna", id->maxdna);
	jw_u64(&w, "maxcna", le32_to_cpu(id->maxcna));
	if (s.subnqn[0])
		jw_str(&w, "subnqn", s.subnqn);
	jw_u64(&w, "ioccsz", le32_to_cpu(id->ioccsz));
	jw_u64(&w, "iorcsz", le32_to_cpu(id->iorcsz));
	jw_u64(&w, "icdoff", le16_to_cpu(id->icdoff));
	jw_u64(&w, "fcatt", id->fcatt);
	jw_u64(&w, "msdbd", id->msdbd);
	jw_u64(&w, "ofcs", le16_to_cpu(id->ofcs));
	jw_open(&w, "psds", '[');
	for (i = 0; i <= id->npss && i < 32; i++) {
		const struct nvme_id_power_state *ps = &id->psd[i];

		jw_open(&w, NULL, '{');
		jw_u64(&w, "max_power", le16_to_cpu(ps->max_power));
		jw_u64(&w, "flags", ps->flags);
		jw_u64(&w, "entry_lat", le32_to_cpu(ps->entry_lat));
		jw_u64(&w, "exit_lat", le32_to_cpu(ps->exit_lat));
		jw_u64(&w, "read_tput", ps->read_tput);
		jw_u64(&w, "read_lat", ps->read_lat);
		jw_u64(&w, "write_tput", ps->write_tput);
		jw_u64(&w, "write_lat", ps->write_lat);
		jw_u64(&w, "idle_power", le16_to_cpu(ps->idle_power));
		jw_u64(&w, "idle_scale", ps->idle_scale >> 6 & 3);
		jw_u64(&w, "active_power", le16_to_cpu(ps->active_power));
		jw_u64(&w, "active_power_work", ps->active_work_scale & 7);
		jw_u64(&w, "active_scale", ps->active_work_scale >> 6 & 3);
		jw_close(&w, '}');
	}
	jw_close(&w, ']');
	jw_close(&w, '}');
}

static void id_ctrl_usage(FILE *f)
{
	fprintf(f,
		"usage: mqblk id-ctrl nvme-tcp://HOST:PORT/SUBNQN[?...] "
		"[options]\n"
		"Send Identify Controller (CNS 01h) and print the data, "
		"as nvme id-ctrl.\n"
		"The URI may name the discovery subsystem (" NVME_DISC_SUBSYS_NAME
		").\n"
		"\n"
		"  -o, --output-format=FMT   normal|json\n"
		"  -H, --human-readable      spell out bit fields\n"
		"  -h, --help                this text\n");
}

int nvme_cmd_id_ctrl(int argc, char **argv)
{
	struct id_args a;
	struct mqblk_dev *dev;
	struct nvme_id_ctrl *id;
	int ret;

	ret = nvcli_id_args_parse("id-ctrl", argc, argv, &a, id_ctrl_usage);
	if (ret)
		return ret < 0 ? 0 : 1;
	id = calloc(1, sizeof(*id));
	if (!id) {
		fprintf(stderr, "mqblk id-ctrl: out of memory\n");
		return 1;
	}
	if (nvcli_ctrl_open("id-ctrl", a.uri, &dev)) {
		free(id);
		return 1;
	}
	ret = nvcli_identify("id-ctrl", dev, NVME_ID_CNS_CTRL, 0, id);
	mqblk_dev_close(dev);
	if (!ret) {
		if (a.fmt == FMT_JSON)
			id_ctrl_json(id);
		else
			id_ctrl_print(id, a.human);
	}
	free(id);
	return ret ? 1 : 0;
}
