"""The CPU of a running stashd by kind of thread, for `make bench` to say where it goes.

`thread_cpu.py snapshot PID` prints each thread's id, the nanoseconds it has run (user and
system, from schedstat) and its name, one a line. `thread_cpu.py split BEFORE AFTER` compares two
snapshots of one run and prints the CPU seconds of each kind, tab-separated, in the order of
KINDS. The kernel counts run time to the nanosecond per thread, where the utime and stime of
/proc/<pid>/stat are whole ticks, each thread's rounded: over the 20 threads of a run the ticks
lost 5 % of the process's figure. A thread that ended during the run is not counted.
"""
import os
import sys

KINDS = ("fetch", "swift-pool", "dispatch", "nio", "other")


def kind(name):
    """stashd's threads by name: its fetch thread; Swift concurrency's pool, which runs the
    engine, the requests and the event streams (libdispatch names its threads after their root
    queue, as "...default-qos"); Dispatch's overcommit threads, which run stash's serial queues
    (file syncs and opens, registry commits); NIO's event loops."""
    if name == "stash-fetch":
        return "fetch"
    if name.endswith(".overcommit"):
        return "dispatch"
    if name.endswith("-qos"):
        return "swift-pool"
    if name.startswith("NIO-"):
        return "nio"
    return "other"


def snapshot(pid):
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                nanoseconds = int(f.read().split()[0])
        except OSError:
            continue  # ended while read
        print(tid, nanoseconds, name)


def read(path):
    threads = {}
    with open(path) as f:
        for line in f:
            tid, nanoseconds, name = line.rstrip("\n").split(" ", 2)
            threads[tid] = (int(nanoseconds), name)
    return threads


def split(before_path, after_path):
    before, after = read(before_path), read(after_path)
    totals = dict.fromkeys(KINDS, 0.0)
    for tid, (nanoseconds, name) in after.items():
        totals[kind(name)] += (nanoseconds - before.get(tid, (0, name))[0]) / 1e9
    print("\t".join(f"{totals[k]:.3f}" for k in KINDS))


if __name__ == "__main__":
    if sys.argv[1] == "snapshot":
        snapshot(sys.argv[2])
    else:
        split(sys.argv[2], sys.argv[3])
