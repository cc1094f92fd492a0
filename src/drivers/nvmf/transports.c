// SPDX-License-Identifier: MIT
/* The fabrics host's transports: which mqblk devices are its controllers. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "fabrics.h"
#include "host.h"

extern const struct nvmf_transport_ops nvmf_tcp_transport;
extern const struct nvmf_transport_ops nvmf_rdma_transport;

static const struct nvmf_transport_ops *const transports[] = {
	&nvmf_tcp_transport,
	&nvmf_rdma_transport,
};

static char names_buf[64];

static void names_make(void)
{
	size_t i, off = 0;

	for (i = 0; i < sizeof(transports) / sizeof(transports[0]); i++)
		off += (size_t)snprintf(names_buf + off,
					sizeof(names_buf) - off, "%s%s",
					i ? ", " : "", transports[i]->name);
}

bool nvmf_is_ctrl(const struct mqblk_dev *dev)
{
	const char *name = mqblk_dev_driver_name(dev);
	size_t i;

	for (i = 0; i < sizeof(transports) / sizeof(transports[0]); i++)
		if (!strcmp(name, transports[i]->driver))
			return true;
	return false;
}

const char *nvmf_transport_name(uint8_t trtype)
{
	size_t i;

	for (i = 0; i < sizeof(transports) / sizeof(transports[0]); i++)
		if (transports[i]->trtype == trtype)
			return transports[i]->name;
	return NULL;
}

bool nvmf_transport_known(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(transports) / sizeof(transports[0]); i++)
		if (!strcmp(transports[i]->name, name))
			return true;
	return false;
}

/* "tcp, rdma": the list's names, made once (the list is constant). */
const char *nvmf_transport_names(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, names_make);
	return names_buf;
}
