#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Known answers for tests/unit/test_tls.c, computed apart from src/nvme/tls.c
# with Python's own hmac/hashlib (RFC 5869 HKDF, RFC 8446 HkdfLabel, the
# TP 8018 labels): the retained PSK, the PSK digest, the identities and the
# TLS PSK for an interchange key. Usage: tls_vectors.py KEY HOSTNQN SUBNQN
import base64, hashlib, hmac, struct, sys, zlib

def hkdf_expand_label(h, secret, label, context, length):
    prk = hmac.new(b"\0" * h().digest_size, secret, h).digest()
    full = b"tls13 " + label
    info = struct.pack(">H", length) + bytes([len(full)]) + full + \
        bytes([len(context)]) + context
    out, t, i = b"", b"", 1
    while len(out) < length:
        t = hmac.new(prk, t + info + bytes([i]), h).digest()
        out += t
        i += 1
    return out[:length]

key, host, sub = sys.argv[1], sys.argv[2].encode(), sys.argv[3].encode()
pre, hh, b64, tail = key.split(":")
raw = base64.b64decode(b64, validate=True)
cfg, crc = raw[:-4], struct.unpack("<I", raw[-4:])[0]
assert zlib.crc32(cfg) == crc, "CRC"
hh = int(hh)
cipher = hh if hh else (1 if len(cfg) == 32 else 2)
h = hashlib.sha256 if cipher == 1 else hashlib.sha384
ret = cfg if hh == 0 else hkdf_expand_label(h, cfg, b"HostNQN", host, len(cfg))
id0 = b"NVMe0R%02d %s %s" % (cipher, host, sub)
psk0 = hkdf_expand_label(h, ret, b"nvme-tls-psk", id0, len(cfg))
dig = base64.b64encode(hmac.new(ret, host + b" " + sub +
                                b" NVMe-over-Fabrics", h).digest())
id1 = b"NVMe1R%02d %s %s %s" % (cipher, host, sub, dig)
psk1 = hkdf_expand_label(h, ret, b"nvme-tls-psk",
                         b"%02d %s" % (cipher, dig), len(cfg))
print("retained", ret.hex())
print("id0", id0.decode())
print("psk0", psk0.hex())
print("id1", id1.decode())
print("psk1", psk1.hex())
