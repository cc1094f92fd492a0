/* SPDX-License-Identifier: MIT */
/*
 * mqblk's nvme-cli-style commands: discover, id-ctrl, id-ns, list, ana-log, run
 * against remote NVMe/TCP controllers through the public API.
 */
#ifndef MQBLK_TOOLS_NVME_H
#define MQBLK_TOOLS_NVME_H

/* Each takes its own argv (argv[0] = the command's name); returns the
 * process exit status: 0, or 1 with one line on stderr. */
int nvme_cmd_discover(int argc, char **argv);
int nvme_cmd_id_ctrl(int argc, char **argv);
int nvme_cmd_id_ns(int argc, char **argv);
int nvme_cmd_list(int argc, char **argv);
int nvme_cmd_ana_log(int argc, char **argv);

#endif
