/* SPDX-License-Identifier: MIT */
/*
 * What the files of mqblk's nvme-cli-style commands share: the JSON
 * writer, formatting, option parsing and the admin commands they send.
 */
#ifndef MQBLK_TOOLS_NVME_NVCLI_H
#define MQBLK_TOOLS_NVME_NVCLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mqblk/mqblk.h"
#include "nvme/nvme.h"

enum out_fmt { FMT_NORMAL, FMT_JSON };

/* ---- JSON, laid out as json-c's JSON_C_TO_STRING_PRETTY (nvme-cli's) ---- */

#define JSON_MAX_DEPTH 8

/* One document on stdout: start with { 0 } and jw_open(w, NULL, '{') */
struct jw {
	int depth;
	bool had_member[JSON_MAX_DEPTH];
};

/* A member (key NULL inside an array) holding an object or an array:
 * brace '{' or '[', closed by jw_close with '}' or ']' */
void jw_open(struct jw *w, const char *key, char brace);
void jw_close(struct jw *w, char brace);
void jw_u64(struct jw *w, const char *key, uint64_t v);
void jw_str(struct jw *w, const char *key, const char *s);
/* nvme-cli writes 128-bit counters into its JSON as decimal strings */
void jw_u128(struct jw *w, const char *key, const uint8_t le[16]);

/* ---- Formatting and options (util.c) ------------------------------------- */

/* A fixed-width ASCII field as a C string: up to the first NUL, padding
 * kept (nvme-cli prints sn/mn/fr with their trailing spaces). */
void nvcli_field_str(char *out, size_t outlen, const char *field, size_t width);
/* Trailing spaces off */
void nvcli_rstrip(char *s);
/* A 128-bit little-endian counter in decimal, in buf */
const char *nvcli_u128_str(const uint8_t le[16], char buf[48]);

/* -o's value into *fmt: 0, or -EINVAL said on stderr as mqblk CMD's */
int nvcli_parse_fmt(const char *cmd, const char *s, enum out_fmt *fmt);
/* getopt_long's '?' and ':' as one line naming the option */
void nvcli_bad_option(const char *cmd, int c, char **argv);

/* One field [hi:lo] of a register; a NULL meaning is a reserved field,
 * shown only when not zero */
struct bits {
	uint8_t hi, lo;
	const char *set; /* when the field is not zero */
	const char *clear; /* when it is (NULL: same as set) */
	const char *const *vals; /* else: a name per value (4) */
	bool size; /* append " (2^value)" */
};

/* -H: the fields of v named by b[0, n), one line each, then a blank */
void nvcli_show_bits(uint32_t v, const struct bits *b, size_t n);
#define SHOW_BITS(v, tbl) nvcli_show_bits(v, tbl, sizeof(tbl) / sizeof(tbl[0]))

/* Options of id-ctrl and id-ns */
struct id_args {
	const char *uri;
	enum out_fmt fmt;
	bool human;
	uint32_t nsid; /* -n (id-ns only), 0 when not given */
};

/* argv into *a: 0; -1 after --help (printed by usage); 1 after one line
 * on stderr */
int nvcli_id_args_parse(const char *cmd, int argc, char **argv,
			struct id_args *a, void (*usage)(FILE *));

/* ---- The controller: open, Identify, Get Log Page (admin.c) -------------- */

/* Each returns 0, or -errno after one line on stderr as mqblk CMD's. */

/* An nvme-tcp:// or nvme-rdma:// URI opened with one queue */
int nvcli_ctrl_open(const char *cmd, const char *uri, struct mqblk_dev **dev);
/* Identify with this CNS into buf (NVME_IDENTIFY_SIZE bytes) */
int nvcli_identify(const char *cmd, struct mqblk_dev *dev, uint8_t cns,
		   uint32_t nsid, void *buf);
/* Get Log Page: len bytes of log lid (with log specific field lsp, for
 * namespace nsid) from offset off */
int nvcli_get_log_lsp(const char *cmd, struct mqblk_dev *dev, uint8_t lid,
		      uint8_t lsp, uint32_t nsid, uint64_t off, void *buf,
		      uint32_t len);
int nvcli_get_log(const char *cmd, struct mqblk_dev *dev, uint8_t lid,
		  uint64_t off, void *buf, uint32_t len);
/* The namespace a command works on: want (-n), else the URI's nsid=, else
 * the first active one (what the driver opened). 0 on failure (said). */
uint32_t nvcli_pick_nsid(const char *cmd, struct mqblk_dev *dev,
			 const char *uri, uint32_t want);

#endif
