/* SPDX-License-Identifier: MIT */
/*
 * Inside json.c: the checking pass that runs before json-c's tokener
 * (json_check.c), and the one-line error both write.
 */
#ifndef MQBLK_TARGET_CONFIG_JSON_CHECK_H
#define MQBLK_TARGET_CONFIG_JSON_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "json.h"

/* An integer json-c would clamp: its place in document order (values
 * counted from 1 in pre-order) and its value as a double. */
struct cj_wide {
	size_t ord;
	double d;
};

/*
 * Check text[start, len) as one JSON value (RFC 8259, json.h's bounds,
 * no \u0000 in a key). Returns 0 with the values counted (pre-order) in
 * *nr_values and the integers beyond int64 in *wide (malloc'd, in
 * document order, *nr_wide of them; NULL if none), or -1 with
 * "LINE:COL: reason" in err. Keys are compared only with find_dups: a
 * second pass, for the message, when json-c's tree came out with fewer
 * values than the text (it keeps the last of two equal keys).
 */
int cj_check(const char *text, size_t len, size_t start, bool find_dups,
	     struct cj_wide **wide, size_t *nr_wide, size_t *nr_values,
	     char *err, size_t errlen);

/* "LINE:COL: reason" for byte offset off of text into err; returns -1. */
int cj_err_at(const char *text, size_t len, size_t off, char *err,
	      size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

#endif
