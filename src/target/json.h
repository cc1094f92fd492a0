/* SPDX-License-Identifier: MIT */
/*
 * A small strict JSON parser (RFC 8259) for the target's configuration:
 * the whole text becomes a tree of json_value nodes, read through the
 * lookup helpers below. The input is untrusted: depth, size and node
 * count are bounded, strings must be valid UTF-8, and every error names
 * line:column.
 */
#ifndef MQBLK_TARGET_JSON_H
#define MQBLK_TARGET_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_DEPTH 64 /* nested arrays and objects */
#define JSON_MAX_SIZE (16u << 20) /* bytes of text */
#define JSON_MAX_VALUES (1u << 20) /* nodes in one document */
#define JSON_MAX_STRING 65536 /* bytes of one decoded string or key */

enum json_type {
	JSON_NULL,
	JSON_BOOL,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
};

struct json_member;

struct json_value {
	enum json_type type;
	size_t off; /* byte offset of the value in the text (json_where) */
	union {
		bool boolean;
		struct {
			double d; /* finite */
			int64_t i; /* when is_int */
			bool is_int; /* no fraction, no exponent, fits int64 */
		} num;
		struct {
			char *s; /* UTF-8, NUL-terminated; may hold \u0000 */
			size_t len; /* bytes, without the terminating NUL */
		} str;
		struct {
			struct json_value *items;
			size_t n;
		} arr;
		struct {
			struct json_member *members; /* in document order */
			struct json_member **sorted; /* by key */
			size_t n;
		} obj;
	} u;
};

struct json_member {
	char *key; /* decoded like a string value */
	size_t key_len;
	struct json_value value;
};

/*
 * Parse len bytes of text (no NUL needed; a NUL byte in it is an error).
 * A leading UTF-8 byte order mark is skipped (RFC 8259 8.1); duplicate
 * keys in an object are refused. Returns 0 with the tree in *root (free
 * it with json_free), or -1 with "LINE:COL: reason" in err.
 */
int json_parse(const char *text, size_t len, struct json_value **root,
	       char *err, size_t errlen);

void json_free(struct json_value *root);

/*
 * Read a whole file (at most JSON_MAX_SIZE bytes) into a malloc'd buffer,
 * NUL-terminated (not counted in *len). Returns 0, or -1 with
 * "PATH: reason" in err.
 */
int json_read_file(const char *path, char **buf, size_t *len, char *err,
		   size_t errlen);

/* The 1-based line and column (in characters) of byte offset off. */
void json_where(const char *text, size_t len, size_t off, unsigned *line,
		unsigned *col);

/*
 * Render len bytes of s for a one-line message: in double quotes,
 * printable ASCII as is, anything else (and '"', '\\') escaped, cut
 * with "..." to fit outlen (at least 8).
 */
void json_quote(char *out, size_t outlen, const char *s, size_t len);

/* "null", "boolean", "number", "string", "array", "object" */
const char *json_type_name(enum json_type type);

/* The member of object v named key, or NULL (v not an object, or no such
 * member). O(log n). */
const struct json_value *json_get(const struct json_value *v, const char *key);

/* Item i of array v, or NULL. */
const struct json_value *json_at(const struct json_value *v, size_t i);

/* Items of an array or members of an object; 0 for anything else. */
size_t json_count(const struct json_value *v);

/* Member i (document order) of object v, or NULL. */
const struct json_member *json_member_at(const struct json_value *v, size_t i);

/* v's string, or NULL if v is not a string. *len (if len) its length. */
const char *json_str(const struct json_value *v, size_t *len);

/* v as an integer: 0, or -1 if v is not a number without fraction or
 * exponent in int64_t range. */
int json_int(const struct json_value *v, int64_t *out);

/* v as a boolean: 0, or -1 if v is not true/false. */
int json_bool(const struct json_value *v, bool *out);

#endif
