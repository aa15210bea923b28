"""Prints the benchmark table from bench/run.sh's measurements and writes it to a file.

usage: report.py TIMES_TSV CONTROL_TXT RESULTS_TXT
TIMES_TSV lines: workload<TAB>tool<TAB>seconds<TAB>status ("ok" or why the run does not count).
CONTROL_TXT lines: `name value` as printed by stash-bench (may be missing or empty).
"""
import sys

PEERS = ("curl", "wget2", "aria2c")
WORKLOADS = {
    "1GiB": "1 GiB file, 1 connection",
    "2000x64KiB": "2,000 x 64 KiB, 16 in parallel",
}


def read_times(path):
    rows = []
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 4:
                workload, tool, seconds, status = parts
                rows.append((workload, tool, float(seconds) if seconds else None, status))
    return rows


def read_control(path):
    values = {}
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2:
                    values[parts[0]] = float(parts[1])
    except FileNotFoundError:
        pass
    return values


def verdict(ok):
    return "PASS" if ok else "FAIL"


def main():
    times_path, control_path, results_path = sys.argv[1:4]
    rows = read_times(times_path)
    control = read_control(control_path)
    out = []
    out.append(f"{'workload':<32} {'tool':<8} {'seconds':>9} {'ratio':>7}  note")
    out.append("-" * 72)
    best = {}
    for workload in WORKLOADS:
        measured = [r for r in rows if r[0] == workload]
        peers = [r[2] for r in measured if r[1] in PEERS and r[3] == "ok"]
        best[workload] = min(peers) if peers else None
        for _, tool, seconds, status in measured:
            ok = status == "ok"
            ratio = f"{seconds / best[workload]:.2f}x" if ok and best[workload] else "-"
            secs = f"{seconds:.2f}" if seconds is not None else "-"
            out.append(f"{WORKLOADS[workload]:<32} {tool:<8} {secs:>9} {ratio:>7}  {'' if ok else status}")
    out.append("")
    out.append("ratio = seconds / fastest of curl, wget2, aria2c on the same workload")
    out.append("")

    if control:
        out.append("control plane (stash-bench, GetDownload):")
        out.append(f"  latency, 1 client, sequential: p50 {control.get('getdownload_p50_us', 0):.1f} us, "
                   f"p99 {control.get('getdownload_p99_us', 0):.1f} us")
        out.append(f"  throughput, {control.get('getdownload_clients', 0):.0f} clients x "
                   f"{control.get('getdownload_in_flight_per_client', 0):.0f} in flight: "
                   f"{control.get('getdownload_rps', 0):,.0f} requests/s")
        if "pinned_getdownload_p50_us" in control:
            out.append(f"  same, daemon and client pinned to one CPU: p50 {control['pinned_getdownload_p50_us']:.1f} us, "
                       f"p99 {control.get('pinned_getdownload_p99_us', 0):.1f} us, "
                       f"{control.get('pinned_getdownload_rps', 0):,.0f} requests/s")
    else:
        out.append("control plane: not measured (stash-bench or stashd did not run; see above)")
    out.append("")

    def stash_row(workload):
        return next((r for r in rows if r[0] == workload and r[1] == "stash" and r[3] == "ok"), None)

    out.append("targets:")
    big = stash_row("1GiB")
    curl = next((r[2] for r in rows if r[0] == "1GiB" and r[1] == "curl" and r[3] == "ok"), None)
    if big and curl:
        vs_curl = big[2] / curl
        out.append(f"  1 GiB within 1.15x of curl:                {verdict(vs_curl <= 1.15)} ({vs_curl:.2f}x curl)")
    else:
        out.append("  1 GiB within 1.15x of curl:                not measured")
    many = stash_row("2000x64KiB")
    aria = next((r[2] for r in rows if r[0] == "2000x64KiB" and r[1] == "aria2c" and r[3] == "ok"), None)
    if many and aria:
        out.append(f"  2,000 files no slower than aria2c -j16:    {verdict(many[2] <= aria)}"
                   f" ({many[2]:.2f} s vs {aria:.2f} s)")
    else:
        out.append("  2,000 files no slower than aria2c -j16:    not measured")
    if control:
        p50 = control.get("getdownload_p50_us")
        rps = control.get("getdownload_rps")
        out.append(f"  GetDownload p50 <= 20 us:                  {verdict(p50 is not None and p50 <= 20)} ({p50:.1f} us)")
        pinned = control.get("pinned_getdownload_p50_us")
        if pinned is not None:
            out.append(f"  GetDownload p50 <= 20 us, pinned:          {verdict(pinned <= 20)} ({pinned:.1f} us)")
        out.append(f"  >= 100,000 req/s from 16 clients:          {verdict(rps is not None and rps >= 100_000)} ({rps:,.0f}/s)")
    else:
        out.append("  GetDownload p50 <= 20 us:                  not measured")
        out.append("  >= 100,000 req/s from 16 clients:          not measured")

    text = "\n".join(out) + "\n"
    sys.stdout.write(text)
    with open(results_path, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
