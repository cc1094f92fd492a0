// SPDX-License-Identifier: MIT
/*
 * The driver registry: an explicit array (no constructor attributes, so
 * static linking keeps every driver without whole-archive tricks).
 */
#include <string.h>

#include <mqblk/driver.h>

extern const struct mqblk_driver_ops mqblk_null_driver;
extern const struct mqblk_driver_ops mqblk_uring_driver;
extern const struct mqblk_driver_ops mqblk_nvme_tcp_driver;
extern const struct mqblk_driver_ops mqblk_nvme_rdma_driver;
extern const struct mqblk_driver_ops mqblk_stripe_driver;
extern const struct mqblk_driver_ops mqblk_nvme_mpath_driver;

static const struct mqblk_driver_ops *const drivers[] = {
	&mqblk_null_driver,	 &mqblk_uring_driver,  &mqblk_nvme_tcp_driver,
	&mqblk_nvme_rdma_driver, &mqblk_stripe_driver, &mqblk_nvme_mpath_driver,
};

const struct mqblk_driver_ops *mqblk_driver_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++)
		if (!strcmp(drivers[i]->name, name))
			return drivers[i];
	return NULL;
}
