"""Keeps one row per tool of a workload in the bench's tables after interleaved rounds.

usage: python3 bench/best_rows.py WORKLOAD TIMES CPU THREADS

`bench/run.sh` times the tools of a workload in rounds (one run of each tool a round, in
turn), so a minute when the shared machine is slow falls on every tool rather than on one; each
run appends its rows. This keeps, for each tool of WORKLOAD, what one best-of-N would have
written: in TIMES (workload, tool, seconds, status) the fastest run, or the first failure when a
run failed (then the tool's CPU and thread rows go, as a failed run writes none); in CPU and
THREADS the rows of that same run. The floors, which have no TIMES row, keep the run of least
CPU, and `download-floor` its fastest time among all its runs (its fifth column). Rows of other
workloads stay as they are, in their order.
"""

import sys

FLOORS = ("durable-floor", "download-floor")


def read(path):
    try:
        with open(path) as table:
            return [line.rstrip("\n").split("\t") for line in table if line.strip()]
    except FileNotFoundError:
        return []


def write(path, rows):
    with open(path, "w") as table:
        for row in rows:
            table.write("\t".join(row) + "\n")


def seconds(value):
    try:
        return float(value)
    except ValueError:
        return float("inf")


def chosen_runs(workload, times):
    """For each tool: the index of its chosen run among its rows, or None when one failed."""
    runs = {}
    for row in times:
        if row[0] == workload and len(row) >= 4:
            runs.setdefault(row[1], []).append(row)
    choice = {}
    for tool, rows in runs.items():
        failed = [index for index, row in enumerate(rows) if row[3] != "ok"]
        if failed:
            choice[tool] = ("failed", failed[0])
        else:
            choice[tool] = ("ok", min(range(len(rows)), key=lambda index: seconds(rows[index][2])))
    return choice


def keep(workload, rows, pick):
    """`rows` with each tool's rows of `workload` replaced by the one `pick(tool, its rows)`
    returns (None: none), placed where its first row was."""
    grouped = {}
    for row in rows:
        if row[0] == workload and len(row) >= 2:
            grouped.setdefault(row[1], []).append(row)
    out, placed = [], set()
    for row in rows:
        if row[0] != workload or len(row) < 2:
            out.append(row)
            continue
        tool = row[1]
        if tool in placed:
            continue
        placed.add(tool)
        kept = pick(tool, grouped[tool])
        if kept is not None:
            out.append(kept)
    return out


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__.split("\n\n")[1])
    workload, times_path, cpu_path, threads_path = sys.argv[1:]
    times, cpu, threads = read(times_path), read(cpu_path), read(threads_path)
    choice = chosen_runs(workload, times)

    def pick_time(tool, rows):
        return rows[choice[tool][1]]

    # The floors' run of least CPU, by the order of their CPU rows (a thread row each).
    least = {}
    for tool in FLOORS:
        rows = [row for row in cpu if row[0] == workload and row[1] == tool and len(row) >= 3]
        if rows:
            least[tool] = min(range(len(rows)), key=lambda index: seconds(rows[index][2]))

    def pick_cpu(tool, rows):
        if tool in least:
            row = list(rows[least[tool]])
            if tool == "download-floor" and len(row) >= 5:
                row[4] = min((r[4] for r in rows if len(r) >= 5), key=seconds)
            return row
        status, index = choice.get(tool, ("ok", len(rows) - 1))
        return rows[index] if status == "ok" and index < len(rows) else None

    def pick_threads(tool, rows):
        if tool in least:
            return rows[least[tool]] if least[tool] < len(rows) else rows[-1]
        status, index = choice.get(tool, ("ok", len(rows) - 1))
        return rows[index] if status == "ok" and index < len(rows) else None

    write(times_path, keep(workload, times, pick_time))
    write(cpu_path, keep(workload, cpu, pick_cpu))
    write(threads_path, keep(workload, threads, pick_threads))


if __name__ == "__main__":
    main()
