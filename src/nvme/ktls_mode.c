// SPDX-License-Identifier: MIT
/*
 * kTLS's mode option and the kernel probe (ktls.h), apart from ktls.c
 * because they need no OpenSSL: the target's option parsing uses them.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ktls.h"

int nvme_ktls_mode_parse(const char *s, uint8_t *mode)
{
	if (!strcmp(s, "auto"))
		*mode = NVME_KTLS_AUTO;
	else if (!strcmp(s, "off"))
		*mode = NVME_KTLS_OFF;
	else if (!strcmp(s, "on"))
		*mode = NVME_KTLS_ON;
	else
		return -EINVAL;
	return 0;
}

int nvme_ktls_probe(char *err, size_t errlen)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0), ret = 0;

	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "kTLS: no socket to probe with: %s",
			 strerror(errno));
		return ret;
	}
	/* the ULP is looked up (and its module loaded) before the socket's
	 * state is checked: ENOTCONN here means the kernel has it */
	if (setsockopt(fd, SOL_TCP, TCP_ULP, "tls", 3) && errno == ENOENT) {
		ret = -ENOENT;
		snprintf(err, errlen,
			 "kTLS: this kernel has no tls module (TCP_ULP "
			 "\"tls\": ENOENT)");
	}
	close(fd);
	return ret;
}
