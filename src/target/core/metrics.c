// SPDX-License-Identifier: MIT
/*
 * `mqblk target --metrics ADDR:PORT`: /metrics in Prometheus' text
 * format, served by libmicrohttpd on its own thread. Each scrape takes a
 * stats snapshot (stats.c, under the stats lock: never the I/O path) and
 * renders it (stats_prom.c). Only GET and HEAD of /metrics: any other
 * path is 404, any other method 405.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "stats.h"

static int listen_fd = -1;
static struct MHD_Daemon *daemon_;

int tgt_metrics_bind(struct tgt *t, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;
	int one = 1, fd;

	memset(&ss, 0, sizeof(ss));
	if (t->metrics_adrfam == NVMF_ADDR_FAMILY_IP6) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(t->metrics_port);
		inet_pton(AF_INET6, t->metrics_addr, &s6->sin6_addr);
		len = sizeof(*s6);
	} else {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(t->metrics_port);
		inet_pton(AF_INET, t->metrics_addr, &s4->sin_addr);
		len = sizeof(*s4);
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return tgt_err(err, errlen, "--metrics %s: %s", t->metrics,
			       strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 16)) {
		tgt_err(err, errlen, "--metrics %s: cannot listen: %s",
			t->metrics, strerror(errno));
		close(fd);
		return -1;
	}
	listen_fd = fd;
	return 0;
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status,
			      const char *type, char *body, size_t len,
			      bool must_free)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
		len, body,
		must_free ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r) {
		if (must_free)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	static char not_found[] = "404 not found: only /metrics is served\n";
	static char not_allowed[] = "405 method not allowed: GET /metrics\n";
	static char no_memory[] = "500 out of memory\n";
	const char *text = "text/plain; charset=utf-8";
	struct tgt *t = cls;
	struct tgt_snap *snap;
	char *body = NULL;
	size_t len = 0;
	FILE *f;

	if (strcmp(url, "/metrics"))
		return answer(c, MHD_HTTP_NOT_FOUND, text, not_found,
			      sizeof(not_found) - 1, false);
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return answer(c, MHD_HTTP_METHOD_NOT_ALLOWED, text, not_allowed,
			      sizeof(not_allowed) - 1, false);
	snap = tgt_stats_collect(t);
	f = snap ? open_memstream(&body, &len) : NULL;
	if (f && tgt_stats_prometheus(snap, f)) {
		fclose(f);
		f = NULL;
		free(body);
		body = NULL;
	}
	if (f)
		fclose(f);
	tgt_stats_free(snap);
	if (!body)
		return answer(c, MHD_HTTP_INTERNAL_SERVER_ERROR, text,
			      no_memory, sizeof(no_memory) - 1, false);
	return answer(c, MHD_HTTP_OK,
		      "text/plain; version=0.0.4; charset=utf-8", body, len,
		      true);
}

int tgt_metrics_start(struct tgt *t, char *err, size_t errlen)
{
	daemon_ = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, NULL,
		NULL, handle, t, MHD_OPTION_LISTEN_SOCKET, listen_fd,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10, MHD_OPTION_END);
	if (!daemon_)
		return tgt_err(err, errlen,
			       "--metrics %s: libmicrohttpd would not start",
			       t->metrics);
	return 0;
}

void tgt_metrics_stop(void)
{
	if (daemon_) {
		/* it closes the listening socket it was given */
		MHD_stop_daemon(daemon_);
		daemon_ = NULL;
		listen_fd = -1;
	}
	if (listen_fd >= 0)
		close(listen_fd);
	listen_fd = -1;
}
