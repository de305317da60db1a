#!/usr/bin/env python3
"""A normal request's latency while a flood of idle connections arrives at the dashboard.

One thread opens N connections (default 2 000) to the dashboard as fast as it can and keeps them open without sending
a byte; meanwhile another sends `GET /api/v1/health` on a fresh connection every 20 ms and times it to the last byte of
the answer. Prints the latencies seen while the flood arrived and held (median, 90th percentile, max), per round, and
how many connections the kernel dropped because the listening socket's accept queue was full (TcpExt ListenOverflows
of /proc/net/netstat, machine-wide): each such drop makes a client send its SYN again after 1 s. On a loaded machine
the latencies also show CPU starvation; the overflows count the queue alone.

Usage: ui/scripts/dashboard-flood.py PORT [N=2000] [ROUNDS=5]   (against `eventspace demo --port PORT`)
"""
import socket
import statistics
import sys
import threading
import time

port = int(sys.argv[1])
n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5


def overflows():
    with open("/proc/net/netstat") as f:
        lines = [l.split() for l in f if l.startswith("TcpExt:")]
    return int(lines[1][lines[0].index("ListenOverflows")])


def request():
    t0 = time.perf_counter()
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n" % port)
    while s.recv(65536):
        pass
    s.close()
    return (time.perf_counter() - t0) * 1000


def flood(held, done):
    for _ in range(n):
        s = socket.socket()
        s.setblocking(False)
        try:
            s.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        held.append(s)
    done.set()


for r in range(rounds):
    request()  # warm
    held, done, lat = [], threading.Event(), []
    dropped = overflows()
    t = threading.Thread(target=flood, args=(held, done))
    t.start()
    end = None
    while True:
        lat.append(request())
        if done.is_set() and end is None:
            end = time.perf_counter() + 1.0  # a second more while the flood is held
        if end is not None and time.perf_counter() > end:
            break
        time.sleep(0.02)
    t.join()
    for s in held:
        s.close()
    dropped = overflows() - dropped
    lat.sort()
    print("round %d: %d requests during %d connections: median %.1f ms, p90 %.1f ms, max %.1f ms; accept queue overflows %d"
          % (r + 1, len(lat), n, statistics.median(lat), lat[int(0.9 * (len(lat) - 1))], lat[-1], dropped), flush=True)
    time.sleep(2)  # the server closes the flood's connections
