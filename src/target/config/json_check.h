/* SPDX-License-Identifier: MIT */
/*
 * Inside json.c: the checking pass that runs before json-c's tokener
 * (json_check.c), and the one-line error both write.
 */
#ifndef MQBLK_TARGET_CONFIG_JSON_CHECK_H
#define MQBLK_TARGET_CONFIG_JSON_CHECK_H

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
 * unique keys without \u0000). Returns 0 with the integers beyond int64
 * in *wide (malloc'd, in document order, *nr_wide of them; NULL if none),
 * or -1 with "LINE:COL: reason" in err.
 */
int cj_check(const char *text, size_t len, size_t start, struct cj_wide **wide,
	     size_t *nr_wide, char *err, size_t errlen);

/* "LINE:COL: reason" for byte offset off of text into err; returns -1. */
int cj_err_at(const char *text, size_t len, size_t off, char *err,
	      size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

#endif
