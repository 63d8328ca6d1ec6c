#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A hostile host on the testbed: forges ACiS messages (doc/threat-model.md).

It knows everything about a job but the ranks' cookies: the switch's
address, the communicator id, each member's IP, UDP port and MAC (the
test reads them from the switch's telemetry, as a host sniffing the
fabric or guessing might). It writes raw Ethernet frames on IFACE:

  result  RESULTs and NACK TIMEOUTs "from the switch" (its IP, its port
          47000) to each member's UDP port, for every seq in the range:
          taken, they are wrong results or failed calls
  data    DATA "from each member" (its IP and port) to the switch: taken,
          they are contributions in its name
  nack    host NACKs "from each member": taken, the switch resends
  leave   LEAVEs "from each member": taken, the member is out of the job

  forge.py IFACE SWITCH_IP SWITCH_MAC JOB COMM SEQ_FIRST SEQ_N KINDS \\
           IP:PORT:MAC...

Prints how many frames of each kind it sent.
"""
import socket
import struct
import sys

ACIS_PORT = 47000
T_DATA, T_RESULT, T_NACK, T_CTRL = 1, 2, 4, 5
ALLREDUCE, INT32, SUM = 1, 1, 1
CTRL_LEAVE = 2
S_TIMEOUT = 10


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def mac(s):
    return bytes(int(x, 16) for x in s.split(":"))


def acis(typ, opcode, job, comm, rank, seq, chunk, msg_size, payload,
         status=0, op=SUM, dtype=INT32, root=0xffffffff):
    # version, type, opcode, flags, dtype, op, hdr_len, job, comm, rank,
    # root, seq, chunk, msg_size, payload_len, chunk_size, contributors,
    # status, auth (48 bits: 0, the one thing a forger cannot know)
    hdr = struct.pack("!BBBBBBHIIIIIIQHHHH", 1, typ, opcode, 0x02, dtype, op,
                      54, job, comm, rank, root, seq, chunk, msg_size,
                      len(payload), 1416, 1, status) + bytes(6)
    return hdr + payload


def frame(src_mac, dst_mac, src_ip, dst_ip, sport, dport, data):
    udp_len = 8 + len(data)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + udp_len, 0, 0x4000, 64,
                     17, 0, src_ip, dst_ip)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    pseudo = src_ip + dst_ip + struct.pack("!BBH", 0, 17, udp_len)
    udp = struct.pack("!HHHH", sport, dport, udp_len, 0)
    c = csum(pseudo + udp + data) or 0xffff
    udp = udp[:6] + struct.pack("!H", c)
    return dst_mac + src_mac + b"\x08\x00" + ip + udp + data


def main(argv):
    if len(argv) < 10:
        sys.exit(__doc__)
    iface, sw_ip, sw_mac = argv[1], socket.inet_aton(argv[2]), mac(argv[3])
    job, comm = int(argv[4]), int(argv[5])
    first, n = int(argv[6]), int(argv[7])
    kinds = argv[8].split(",")
    members = []
    for m in argv[9:]:
        ip, port, hw = m.split(":", 2)
        members.append((socket.inet_aton(ip), int(port), mac(hw)))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    me = s.getsockname()[4]
    bad = struct.pack("<i", 0x41414141)
    sent = dict.fromkeys(kinds, 0)
    frames = []
    # built first, sent after, the farthest collective first: a job that
    # runs faster than this loop meets the forgeries for its own future
    for seq in range(first + n - 1, first - 1, -1):
        for rank, (ip, port, hw) in enumerate(members):
            out = []
            if "result" in kinds:
                out.append(("result", frame(me, hw, sw_ip, ip, ACIS_PORT, port,
                            acis(T_RESULT, ALLREDUCE, job, comm, rank, seq,
                                 0, 4, bad))))
                out.append(("result", frame(me, hw, sw_ip, ip, ACIS_PORT, port,
                            acis(T_NACK, ALLREDUCE, job, comm, rank, seq, 0,
                                 4, struct.pack("<I", (rank + 1) % 4),
                                 status=S_TIMEOUT))))
            if "data" in kinds:
                out.append(("data", frame(me, sw_mac, ip, sw_ip, port,
                            ACIS_PORT, acis(T_DATA, ALLREDUCE, job, comm,
                                            rank, seq, 0, 4, bad))))
            if "nack" in kinds:
                out.append(("nack", frame(me, sw_mac, ip, sw_ip, port,
                            ACIS_PORT, acis(T_NACK, ALLREDUCE, job, comm,
                                            rank, seq, 0, 4, b""))))
            if "leave" in kinds and seq == first:
                out.append(("leave", frame(me, sw_mac, ip, sw_ip, port,
                            ACIS_PORT, acis(T_CTRL, CTRL_LEAVE, job, 0, rank,
                                            0, 0, 0, b"", op=0, dtype=0))))
            frames.extend(out)
    for kind, f in frames:
        s.send(f)
        sent[kind] += 1
    print(" ".join("%s %d" % (k, v) for k, v in sent.items()))


if __name__ == "__main__":
    main(sys.argv)
