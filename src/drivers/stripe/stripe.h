/* SPDX-License-Identifier: MIT */
/*
 * The stripe driver's URI parsing and its counters, apart from the I/O
 * path so the fuzzer and the unit tests can reach them. Not public API.
 */
#ifndef MQBLK_STRIPE_H
#define MQBLK_STRIPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mqblk/driver.h>

#define STRIPE_MAX_MEMBERS 64
#define STRIPE_DEFAULT_CHUNK (64u << 10)
#define STRIPE_MAX_CHUNK (1u << 30)

/* What a stripe: URI asks for. member[] are member URIs with ';' turned
 * back into ',', one allocation each (a template is copied N times). */
struct stripe_conf {
	uint64_t chunk;
	unsigned nr_members;
	bool verbose;
	char *member[STRIPE_MAX_MEMBERS];
};

/*
 * Consume the stripe keys of params (chunk, members, member, memberK,
 * verbose) into c. 0, -EINVAL with a one-line reason in err, or -ENOMEM.
 * On error nothing is left allocated in c.
 */
int stripe_conf_parse(struct mqblk_params *params, struct stripe_conf *c,
		      char *err, size_t errlen);
void stripe_conf_free(struct stripe_conf *c);

/* Counters of one stripe device (for tests and verbose=1). */
struct stripe_stats {
	unsigned nr_members;
	uint64_t parents; /* requests the stripe took */
	uint64_t split; /* of those, spread over more than one member */
	uint64_t busy; /* queue_rq answered BUSY: a member had no tag */
	uint64_t children[STRIPE_MAX_MEMBERS]; /* child requests per member */
};

/* st for a device opened as stripe:...; -EINVAL for any other device. */
int stripe_get_stats(const struct mqblk_dev *dev, struct stripe_stats *st);

#endif
