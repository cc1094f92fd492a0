// SPDX-License-Identifier: MIT
/*
 * The target's log: one line on stderr, "mqblk target: " and the message,
 * from any thread.
 */
#include <stdarg.h>
#include <stdio.h>

#include "nvmet.h"

void tgt_log(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "mqblk target: %s\n", line);
}
