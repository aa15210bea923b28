"""GetDownload through stash_client, for `make bench`: the latency of sequential calls with the
blocking Client, and the requests per second of one AsyncClient with CONCURRENCY calls in
flight on each of CONNECTIONS connections.

usage: client_bench.py SOCKET ID [SECONDS]
prints `py_getdownload_p50_us X`, `py_getdownload_p99_us Y`, `py_getdownload_rps Z`."""
import asyncio
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients", "python"))

from stash_client import AsyncClient, Client  # noqa: E402

WARMUP = 500
CALLS = 5000
CONNECTIONS = 4
CONCURRENCY = 16


async def throughput(socket_path, id, seconds):
    clients = [await AsyncClient.connect(socket_path) for _ in range(CONNECTIONS)]
    deadline = time.monotonic() + seconds
    done = 0

    async def worker(client):
        nonlocal done
        while time.monotonic() < deadline:
            await client.get(id)
            done += 1

    began = time.monotonic()
    await asyncio.gather(*(worker(c) for c in clients for _ in range(CONCURRENCY)))
    elapsed = time.monotonic() - began
    for client in clients:
        await client.close()
    return done / elapsed


def main(socket_path, id, seconds="3"):
    with Client(socket_path) as client:
        for _ in range(WARMUP):
            client.get(id)
        samples = []
        for _ in range(CALLS):
            start = time.perf_counter()
            client.get(id)
            samples.append((time.perf_counter() - start) * 1e6)
    samples.sort()
    print(f"py_getdownload_p50_us {samples[CALLS // 2]:.1f}")
    print(f"py_getdownload_p99_us {samples[CALLS * 99 // 100]:.1f}")
    print(f"py_getdownload_rps {asyncio.run(throughput(socket_path, id, float(seconds))):.0f}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:]))
