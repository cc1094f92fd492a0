/* SPDX-License-Identifier: MIT */
/*
 * Inside the nvmetcli JSON loader (nvmetcli*.c): the reading state, with
 * the JSON path of the value being read, and the typed readers that
 * refuse with it ("FILE: ports[0].addr.trsvcid: reason").
 */
#ifndef MQBLK_TARGET_CONFIG_NVMETCLI_H
#define MQBLK_TARGET_CONFIG_NVMETCLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "json.h"

#define CFG_PATH_MAX 256

struct cfg {
	struct tgt *t;
	const char *name; /* the file, for messages */
	char *err;
	size_t errlen;
	char path[CFG_PATH_MAX]; /* JSON path of what is being read */
	size_t plen;
};

/* "NAME: PATH: reason" into c->err; returns -1. */
int cfg_err(struct cfg *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Path steps: push returns the length cfg_pop goes back to. */
size_t cfg_push_key(struct cfg *c, const char *key);
size_t cfg_push_idx(struct cfg *c, size_t i);
void cfg_pop(struct cfg *c, size_t old);

/* v is of this type, or -1 with "expected an object, found null". */
int cfg_want(struct cfg *c, const struct json_object *v, enum cj_type type);

/* Every key of obj among known (NULL-terminated), or -1 naming it. */
int cfg_check_keys(struct cfg *c, const struct json_object *obj,
		   const char *const *known);

/* A string without NUL bytes, at most max bytes long. */
int cfg_get_str(struct cfg *c, const struct json_object *v, size_t max,
		const char **out, size_t *len);

/* An unsigned number in min..max: an integer or a string of digits. */
int cfg_get_uint(struct cfg *c, const struct json_object *v, uint64_t min,
		 uint64_t max, uint64_t *out);

/* true/false, 0/1 or "0"/"1". */
int cfg_get_bool(struct cfg *c, const struct json_object *v, bool *out);

/* Member key of grp absent or off; why says what on would need. */
int cfg_want_off(struct cfg *c, const struct json_object *grp, const char *key,
		 const char *why);

/* A port parameter in min..max, or -1/absent/empty: *out unchanged. */
int cfg_get_port_param(struct cfg *c, const struct json_object *grp,
		       const char *key, uint64_t min, uint64_t max,
		       uint32_t *out);

/* A printable ASCII attribute of at most size - 1 characters into out;
 * absent or empty leaves out as is. */
int cfg_get_ascii_attr(struct cfg *c, const struct json_object *grp,
		       const char *key, char *out, size_t size);

/* An NQN string value into out (TGT_NQN_MAX + 1). */
int cfg_get_nqn(struct cfg *c, const struct json_object *v, char *out);

/* A required member: pushes its key (the caller pops), or NULL with
 * "missing \"key\"". */
const struct json_object *cfg_need(struct cfg *c, const struct json_object *obj,
				   const char *key, size_t *old);

/* Sorting names (NQNs) to find duplicates and look names up. */
struct name_ref {
	const char *name;
	size_t idx; /* position in the JSON array */
};

/* Sort refs; -1 if a name is there twice, *dup then the JSON index of
 * the earliest second occurrence. */
int cfg_sort_names(struct name_ref *refs, size_t n, size_t *dup);

/* In refs sorted by cfg_sort_names: name's entry, or NULL. */
const struct name_ref *cfg_find_name(const struct name_ref *refs, size_t n,
				     const char *name);

/* 8-4-4-4-12 hex digits: 0 or -1. */
int cfg_parse_uuid(const char *s, size_t len, uint8_t out[16]);

/* nbytes * 2 hex digits, '-' between them ignored: 0 or -1. */
int cfg_parse_hex_id(const char *s, size_t len, uint8_t *out, size_t nbytes);

bool cfg_all_zero(const uint8_t *b, size_t n);

/* The root's "discovery" group (its NQN). */
int cfg_load_discovery(struct cfg *c, const struct json_object *v);

/* "hosts": refs (malloc'd, sorted) point into the tree; defs (malloc'd,
 * in the array's order: a ref's idx) the hosts with their DH-HMAC-CHAP
 * secrets, for the caller to clear (nvme_auth_key_clear) and free. */
int cfg_load_hosts(struct cfg *c, const struct json_object *arr,
		   struct name_ref **refs, size_t *nr, struct tgt_host **defs);

/* One of "subsystems"; hosts and defs from cfg_load_hosts. */
int cfg_load_subsys(struct cfg *c, struct tgt_subsys *s,
		    const struct json_object *o, const struct name_ref *hosts,
		    size_t nr_hosts, const struct tgt_host *defs);

#endif
