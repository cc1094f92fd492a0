// SPDX-License-Identifier: MIT
/* The fabrics host's transports: which mqblk devices are its controllers. */
#include <string.h>

#include "fabrics.h"
#include "host.h"

extern const struct nvmf_transport_ops nvmf_tcp_transport;

static const struct nvmf_transport_ops *const transports[] = {
	&nvmf_tcp_transport,
};

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

const char *nvmf_transport_names(void)
{
	return "tcp";
}
