#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# bench/auth-cost's reader: the connect time of every NVMe/TCP queue in a
# loopback capture (tcpdump -i lo -w, nanosecond stamps), whichever host
# and target made it, so mqblk and SPDK are timed at the same place.
# A queue's connect time runs from the host's SYN to the completion of
# the last Connect, AUTH_Send or AUTH_Receive it sent: TCP and ICReq,
# Connect, and the whole DH-HMAC-CHAP exchange when there is one.
# Usage: auth-cost-pcap.py PCAP PORT
# Prints one line per queue, in SYN order:
#   qid <QID> us <CONNECT_US> auth_sends <N> dhgroup <ID|-> hash <ID|->
# (dhgroup and hash from the controller's DH-HMAC-CHAP_Challenge, -
# without one). Exit 1 on a capture it cannot read.
import struct
import sys

FABRICS = 0x7F
FCT_CONNECT, FCT_AUTH_SEND, FCT_AUTH_RECV = 0x01, 0x05, 0x06
PDU_CMD, PDU_RSP, PDU_C2H = 0x04, 0x05, 0x07
C2H_SUCCESS = 0x08


def packets(path):
    """(time_ns, src, sport, dst, dport, flags, seq, payload) of each
    TCP/IPv4 segment in a pcap (Ethernet or Linux cooked link)."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        raise ValueError("not a pcap file (too short)")
    magic = struct.unpack_from("<I", data, 0)[0]
    if magic == 0xA1B23C4D:
        scale = 1  # nanosecond stamps
    elif magic == 0xA1B2C3D4:
        scale = 1000
    else:
        raise ValueError("not a little-endian pcap file (magic %#x)" % magic)
    link = struct.unpack_from("<I", data, 20)[0]
    l2 = {1: 14, 113: 16}.get(link)
    if l2 is None:
        raise ValueError("link type %d, want Ethernet (1) or cooked (113)" % link)
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack_from("<IIII", data, off)
        pkt = data[off + 16:off + 16 + incl]
        off += 16 + incl
        t = sec * 1000000000 + frac * scale
        ip = pkt[l2:]
        if len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != 6:
            continue
        ihl = (ip[0] & 15) * 4
        tot = struct.unpack_from(">H", ip, 2)[0]
        tcp = ip[ihl:tot]
        if len(tcp) < 20:
            continue
        sport, dport, seq = struct.unpack_from(">HHI", tcp, 0)
        doff = (tcp[12] >> 4) * 4
        yield (t, ip[12:16], sport, ip[16:20], dport, tcp[13], seq,
               bytes(tcp[doff:]))


class Stream:
    """One direction of one connection: its bytes in order, with the
    capture time of each segment, retransmissions dropped."""

    def __init__(self):
        self.isn = None
        self.segs = {}

    def add(self, t, seq, payload, syn):
        if syn:
            self.isn = (seq + 1) & 0xFFFFFFFF
            return
        if not payload or self.isn is None:
            return
        rel = (seq - self.isn) & 0xFFFFFFFF
        if rel not in self.segs:
            self.segs[rel] = (t, payload)

    def assemble(self):
        """bytes, and a list of (end offset, time) per segment"""
        buf = bytearray()
        ends = []
        for rel in sorted(self.segs):
            t, p = self.segs[rel]
            if rel > len(buf):
                break  # a hole: the capture lost a segment
            p = p[len(buf) - rel:]
            if p:
                buf += p
                ends.append((len(buf), t))
        return bytes(buf), ends


def time_at(ends, pos):
    """capture time of the segment holding byte pos - 1 (a PDU's last)"""
    for end, t in ends:
        if end >= pos:
            return t
    return None


def pdus(buf):
    """(offset, end, type, flags, hlen, pdo, pdu bytes) of each PDU"""
    off = 0
    while off + 8 <= len(buf):
        typ, flags, hlen, pdo, plen = struct.unpack_from("<BBBBI", buf, off)
        if plen < 8 or off + plen > len(buf):
            return
        yield off, off + plen, typ, flags, hlen, pdo, buf[off:off + plen]
        off += plen


def queue(syn_t, h2c, c2h):
    hbuf, _ = h2c.assemble()
    cbuf, cends = c2h.assemble()
    qid = None
    cids = []  # every command's CID, in the order sent
    last = None  # index in cids of the last Connect/AUTH command
    sends = 0
    for _, _, typ, _, _, _, p in pdus(hbuf):
        if typ != PDU_CMD or len(p) < 8 + 64:
            continue
        sqe = p[8:72]
        cids.append(struct.unpack_from("<H", sqe, 2)[0])
        if sqe[0] != FABRICS:
            continue
        fct = sqe[4]
        if fct == FCT_CONNECT:
            qid = struct.unpack_from("<H", sqe, 42)[0]
        if fct in (FCT_CONNECT, FCT_AUTH_SEND, FCT_AUTH_RECV):
            last = len(cids) - 1
            sends += fct == FCT_AUTH_SEND
    if qid is None:
        return None
    # CIDs are reused once a command completes: the completion wanted is
    # the k-th with that CID, k the commands sent with it up to the last
    want = cids[last]
    k = cids[:last + 1].count(want)
    done = None
    seen = 0
    dhgroup = hashid = "-"
    for off, end, typ, flags, hlen, pdo, p in pdus(cbuf):
        cid = None
        if typ == PDU_C2H and len(p) >= 24:
            d = p[pdo:] if pdo else p[hlen:]
            # DH-HMAC-CHAP_Challenge: auth_type 1, auth_id 1
            if len(d) >= 12 and d[0] == 1 and d[1] == 1:
                hashid, dhgroup = str(d[8]), str(d[9])
            if flags & C2H_SUCCESS:
                cid = struct.unpack_from("<H", p, 8)[0]
        elif typ == PDU_RSP and len(p) >= 24:
            cid = struct.unpack_from("<H", p, 8 + 12)[0]
        if cid == want:
            seen += 1
            if seen == k:
                done = time_at(cends, end)
                break
    if done is None:
        return None
    return qid, (done - syn_t) / 1000.0, sends, dhgroup, hashid


def main():
    if len(sys.argv) != 3:
        print("usage: auth-cost-pcap.py PCAP PORT", file=sys.stderr)
        return 2
    port = int(sys.argv[2])
    conns = {}
    every = []
    try:
        for t, src, sp, dst, dp, flags, seq, payload in packets(sys.argv[1]):
            if dp == port:
                key, way = (src, sp), 0
            elif sp == port:
                key, way = (dst, dp), 1
            else:
                continue
            syn = bool(flags & 0x02)
            if syn and way == 0 and not flags & 0x10:
                # a new connection (a reused source port starts afresh)
                conns[key] = [t, Stream(), Stream()]
                every.append(conns[key])
            c = conns.get(key)
            if c is None:
                continue
            c[1 + way].add(t, seq, payload, syn)
    except (OSError, ValueError, struct.error) as e:
        print("auth-cost-pcap: %s: %s" % (sys.argv[1], e), file=sys.stderr)
        return 1
    for syn_t, h2c, c2h in sorted(every, key=lambda c: c[0]):
        q = queue(syn_t, h2c, c2h)
        if q:
            print("qid %d us %.1f auth_sends %d dhgroup %s hash %s" % q)
    return 0


if __name__ == "__main__":
    sys.exit(main())
