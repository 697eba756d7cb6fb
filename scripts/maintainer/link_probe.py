#!/usr/bin/env python3
"""What a link of the local cluster (scripts/local-cluster.sh) carries, measured with TCP as Open
MPI's TCP transport uses it: the payload rate of one bulk transfer and the one-way latency of a
small message (half a round trip), between two nodes' addresses. Run the server in one node's
network namespace and the client in another's (scripts/maintainer/cluster-network-term.sh does):
    link_probe.py server ADDR PORT
    link_probe.py client ADDR PORT SECONDS_AT RATE_BITS   (prints JSON: payload_gbs, latency_us)
The bulk transfer is sized to take about SECONDS_AT at RATE_BITS (the link's stated rate), so
its round trip and start are a small part of it."""
import json
import socket
import struct
import sys
import time

CHUNK = 1 << 20


def recv_exact(sock, n):
    data = bytearray()
    while len(data) < n:
        part = sock.recv(min(CHUNK, n - len(data)))
        if not part:
            raise ConnectionError("peer closed")
        data += part
    return bytes(data)


def server(addr, port):
    with socket.create_server((addr, port)) as srv:
        conn, _ = srv.accept()
        with conn:
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            pings = struct.unpack("!I", recv_exact(conn, 4))[0]
            for _ in range(pings):  # small-message echo
                conn.sendall(recv_exact(conn, 1))
            size = struct.unpack("!Q", recv_exact(conn, 8))[0]
            got = 0
            while got < size:
                part = conn.recv(min(CHUNK, size - got))
                if not part:
                    raise ConnectionError("peer closed")
                got += len(part)
            conn.sendall(struct.pack("!Q", got))


def client(addr, port, seconds, rate_bits):
    deadline = time.time() + 10
    while True:  # the server may still be starting
        try:
            sock = socket.create_connection((addr, port), timeout=120)
            break
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.1)
    with sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        pings = 200
        sock.sendall(struct.pack("!I", pings))
        rtts = []
        for _ in range(pings):
            t0 = time.perf_counter()
            sock.sendall(b"x")
            recv_exact(sock, 1)
            rtts.append(time.perf_counter() - t0)
        size = int(seconds * rate_bits / 8)
        block = bytes(CHUNK)
        t0 = time.perf_counter()
        sock.sendall(struct.pack("!Q", size))
        sent = 0
        while sent < size:
            n = min(CHUNK, size - sent)
            sock.sendall(block[:n])
            sent += n
        recv_exact(sock, 8)
        took = time.perf_counter() - t0
    rtts.sort()
    median_rtt = rtts[len(rtts) // 2]
    print(json.dumps({"bytes": size, "seconds": took, "payload_gbs": size / took / 1e9,
                      "latency_us": median_rtt / 2 * 1e6, "stated_gbs": rate_bits / 8 / 1e9}))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "server":
        server(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 6 and sys.argv[1] == "client":
        client(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
