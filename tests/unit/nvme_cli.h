/* SPDX-License-Identifier: MIT */
/*
 * What the unit tests that check keys against nvme-cli's own (auth, tls)
 * share: whether nvme-cli is there, and one line of a command's output.
 * Include it after <cmocka.h>. Everything is static inline, so a test
 * program that uses only some of it still builds with -Werror.
 */
#ifndef MQBLK_TESTS_UNIT_NVME_CLI_H
#define MQBLK_TESTS_UNIT_NVME_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* nvme-cli present? Absent is a skip, except under CI (scripts/deps
 * installs it there). */
static inline bool have_nvme_cli(void)
{
	const char *ci = getenv("CI");

	if (system("command -v nvme >/dev/null 2>&1") == 0)
		return true;
	if (ci && !strcmp(ci, "true"))
		fail_msg("nvme-cli is missing under CI (scripts/deps installs "
			 "it)");
	return false;
}

/* Run a command: its exit status (pclose's), its first line in out
 * (newline dropped; empty when it printed nothing). */
static inline int run_line(const char *cmd, char *out, size_t cap)
{
	FILE *f = popen(cmd, "r");
	size_t n;

	assert_non_null(f);
	if (!fgets(out, (int)cap, f))
		out[0] = '\0';
	n = strlen(out);
	if (n && out[n - 1] == '\n')
		out[n - 1] = '\0';
	return pclose(f);
}

#endif
