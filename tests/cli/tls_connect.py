#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# For tests/cli/tls.sh: an NVMe/TCP ICReq and an admin-queue Connect
# (host HOSTNQN to SUBNQN) as raw bytes on stdout, to send through
# `openssl s_client`; with --status, read what came back (stdin) and
# print the Connect's status (hex: the CQE's status code type and code,
# without phase, DNR and More), or "none" when no CapsuleResp arrived.
# Usage: tls_connect.py HOSTNQN SUBNQN | tls_connect.py --status
import struct, sys

def out(hostnqn, subnqn):
    icreq = struct.pack("<BBBBIHBBI", 0, 0, 128, 0, 128, 0, 0, 0, 0)
    icreq += bytes(128 - len(icreq))
    data = bytearray(1024)
    data[16:18] = struct.pack("<H", 0xffff)  # cntlid: dynamic
    data[256:256 + len(subnqn)] = subnqn.encode()
    data[512:512 + len(hostnqn)] = hostnqn.encode()
    sqe = bytearray(64)
    sqe[0] = 0x7f  # fabrics
    sqe[1] = 0x40  # SGL
    sqe[2:4] = struct.pack("<H", 1)
    sqe[4] = 0x01  # Connect
    sqe[24:40] = struct.pack("<QI3xB", 0, 1024, 0x01)  # in-capsule data
    sqe[44:46] = struct.pack("<H", 31)  # sqsize
    sqe[48:52] = struct.pack("<I", 15000)  # kato
    hdr = struct.pack("<BBBBI", 0x04, 0, 72, 72, 72 + 1024)
    sys.stdout.buffer.write(icreq + hdr + bytes(sqe) + bytes(data))
    sys.stdout.buffer.flush()

def status():
    b = sys.stdin.buffer.read()
    i = 0
    while i + 8 <= len(b):
        typ, hlen, plen = b[i], b[i + 2], struct.unpack("<I", b[i + 4:i + 8])[0]
        if plen < 8:
            break
        if typ == 0x05 and i + 24 <= len(b):
            st = struct.unpack("<H", b[i + 8 + 14:i + 8 + 16])[0] >> 1
            print("0x%x" % (st & 0x7ff))  # SCT and SC: DNR and More apart
            return
        i += plen
    print("none")

if sys.argv[1:] == ["--status"]:
    status()
else:
    out(sys.argv[1], sys.argv[2])
