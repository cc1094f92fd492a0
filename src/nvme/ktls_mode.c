// SPDX-License-Identifier: MIT
/*
 * kTLS's mode option, the kernel probe and the handshake-record skipper
 * (ktls.h), apart from ktls.c because they need no OpenSSL: the target's
 * option parsing and the fuzz harness link them alone.
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
		snprintf(err, errlen, "kTLS: %s", NVME_KTLS_NO_MODULE);
	}
	close(fd);
	return ret;
}

#define HS_NEW_SESSION_TICKET 4

int nvme_ktls_hs_skip(struct nvme_ktls_rx *st, const uint8_t *b, size_t n)
{
	size_t p = 0;

	while (p < n) {
		if (st->skip) {
			size_t k = n - p < st->skip ? n - p : st->skip;

			st->skip -= (uint32_t)k;
			p += k;
			continue;
		}
		st->hdr[st->hdr_got++] = b[p++];
		if (st->hdr_got < 4)
			continue;
		st->hdr_got = 0;
		if (st->hdr[0] != HS_NEW_SESSION_TICKET)
			return -EPROTO;
		st->skip = (uint32_t)st->hdr[1] << 16 |
			   (uint32_t)st->hdr[2] << 8 | st->hdr[3];
	}
	return 0;
}
