// SPDX-License-Identifier: MIT
/*
 * bench/soak's history check (soak-history.c): the rules a soak-check
 * history must hold, checked after the fact; shared by soak-check and
 * its fuzz harness (tests/fuzz/fuzz_history.c).
 */
#ifndef MQBLK_SOAK_HISTORY_H
#define MQBLK_SOAK_HISTORY_H

#include <stdint.h>
#include <stdio.h>

/* Blocks a history may name (soak-check --blocks at most) */
#define SOAK_MAX_BLOCKS (1u << 20)

/* What a history held: its events by kind, and what broke the rules. */
struct soak_history {
	uint64_t events, acked, failed, reads, lost, verify_errors, finals;
	uint64_t read_errors;
};

/*
 * Check the history read from f (path names it in messages; the first
 * few violations go to stderr). 0 with cr filled, -EINVAL for a line
 * that is not a history line (one line on stderr naming it), -ENOMEM,
 * -EIO for a read error.
 */
int soak_history_check(FILE *f, const char *path, struct soak_history *cr);

#endif
