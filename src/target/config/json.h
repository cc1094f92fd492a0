/* SPDX-License-Identifier: MIT */
/*
 * Strict JSON for the target's configuration and mqblk compare: json-c
 * builds and holds the tree, read through the helpers below; a checking
 * pass before it keeps RFC 8259 to the letter, which json-c's tokener
 * does not, even with JSON_TOKENER_STRICT (it takes 'single quotes',
 * NaN, "1.", raw control characters, lone surrogates, overlong UTF-8,
 * and keeps the last of duplicate keys). The input is untrusted: depth,
 * size and value count are bounded, strings must be valid UTF-8, keys
 * unique, and every error names line:column.
 */
#ifndef MQBLK_TARGET_CONFIG_JSON_H
#define MQBLK_TARGET_CONFIG_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#define JSON_MAX_DEPTH 64 /* nested arrays and objects */
#define JSON_MAX_SIZE (16u << 20) /* bytes of text */
#define JSON_MAX_VALUES (1u << 20) /* values in one document */
#define JSON_MAX_STRING 65536 /* bytes of one decoded string or key */

/* What a value is, as a message names it (json-c splits numbers in two). */
enum cj_type {
	CJ_NULL,
	CJ_BOOL,
	CJ_NUMBER,
	CJ_STRING,
	CJ_ARRAY,
	CJ_OBJECT,
};

/*
 * Parse len bytes of text (no NUL needed; a NUL byte in it is an error).
 * A leading UTF-8 byte order mark is skipped (RFC 8259 8.1); duplicate
 * keys in an object and keys holding \u0000 (json-c keys are C strings)
 * are refused. An integer outside int64_t becomes a double, not a
 * clamped integer. Returns 0 with the tree in *root (json-c's; free it
 * with cj_free), or -1 with "LINE:COL: reason" in err.
 */
int cj_parse(const char *text, size_t len, struct json_object **root, char *err,
	     size_t errlen);

void cj_free(struct json_object *root);

/* path as a message shows it: each control byte as \xHH, so the message
 * stays one line whatever the file is called; cut to fit n bytes. */
const char *cj_path_shown(const char *path, char *out, size_t n);

/*
 * Read a whole file (at most JSON_MAX_SIZE bytes) into a malloc'd buffer,
 * NUL-terminated (not counted in *len). Returns 0, or -1 with
 * "PATH: reason" in err.
 */
int cj_read_file(const char *path, char **buf, size_t *len, char *err,
		 size_t errlen);

/* The 1-based line and column (in characters) of byte offset off. */
void cj_where(const char *text, size_t len, size_t off, unsigned *line,
	      unsigned *col);

/*
 * Render len bytes of s for a one-line message: in double quotes,
 * printable ASCII as is, anything else (and '"', '\\') escaped, cut
 * with "..." to fit outlen (at least 8).
 */
void cj_quote(char *out, size_t outlen, const char *s, size_t len);

/* v's type (CJ_NULL for NULL). */
enum cj_type cj_type(const struct json_object *v);

/* "null", "boolean", "number", "string", "array", "object" */
const char *cj_type_name(enum cj_type type);

/*
 * The member of object v named key, or NULL (v not an object, or no such
 * member). json-c holds a JSON null as a NULL pointer; a null member is
 * returned as a placeholder cj_type calls CJ_NULL, so that "absent" and
 * "null" stay apart. Read what these return only through the cj_
 * helpers, never json-c's own.
 */
struct json_object *cj_get(const struct json_object *v, const char *key);

/* Item i of array v (null items as in cj_get), or NULL. */
struct json_object *cj_at(const struct json_object *v, size_t i);

/* Items of an array or members of an object; 0 for anything else. */
size_t cj_count(const struct json_object *v);

/* v's string, or NULL if v is not a string. *len (if len) its length
 * (the string may hold NUL bytes from \u0000). */
const char *cj_str(const struct json_object *v, size_t *len);

/* v as an integer: 0, or -1 if v is not a number without fraction or
 * exponent in int64_t range. */
int cj_int(const struct json_object *v, int64_t *out);

/* v as a double: 0, or -1 if v is not a number. */
int cj_num(const struct json_object *v, double *out);

/* v as a boolean: 0, or -1 if v is not true/false. */
int cj_bool(const struct json_object *v, bool *out);

#endif
