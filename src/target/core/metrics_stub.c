// SPDX-License-Identifier: MIT
/*
 * `mqblk target --metrics` in a build without libmicrohttpd (meson
 * -Dmetrics=disabled, or libmicrohttpd-dev missing): refused, naming
 * what is missing.
 */
#include "stats.h"

int tgt_metrics_bind(struct tgt *t, char *err, size_t errlen)
{
	return tgt_err(err, errlen,
		       "--metrics %s: this mqblk was built without "
		       "libmicrohttpd (install libmicrohttpd-dev and rebuild)",
		       t->metrics);
}

int tgt_metrics_start(struct tgt *t, char *err, size_t errlen)
{
	return tgt_metrics_bind(t, err, errlen);
}

void tgt_metrics_stop(void)
{
}
