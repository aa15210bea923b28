"""Prints the benchmark table from bench/run.sh's measurements and writes it to a file.

usage: report.py TIMES_TSV CONTROL_TXT START_TXT RESULTS_TXT [HLS_TXT [CPU_TSV [CLIENTS_TXT [NOISY_TXT [REGISTRY_TXT]]]]]
TIMES_TSV lines: workload<TAB>tool<TAB>seconds<TAB>status ("ok" or why the run does not count).
CONTROL_TXT lines: `name value` as printed by stash-bench (may be missing or empty).
START_TXT lines: `name value`, the details of the best daemon start (may be missing or empty).
HLS_TXT lines: `name value` about the HLS stream (seconds, segments, bytes, subtitle_segments).
CPU_TSV lines: workload<TAB>tool<TAB>command CPU seconds<TAB>stashd CPU seconds, of the fastest run;
the floors add <TAB>wall seconds.
CLIENTS_TXT lines: `name value`, GetDownload through each client (swift_, c_, py_) and the
socketpair floor of the same run (pingpong_).
NOISY_TXT lines: `name value` of the noisy-neighbour part: noise_mb, files, and for each tool
(stash, curl+sync) <tool>_dirty_before_mb, <tool>_dirty_after_mb (of its fastest run) and
<tool>_written_mb (the most written to disk during any of its runs).
REGISTRY_TXT lines: `name value` of the registry of 100,000 queued downloads: first_answer_s,
rss_kb, rss_anon_kb and rss_empty_kb (the daemon at rest over them, and with none), and
list_bench's c_list_* figures.
Parts of the bench that did not run (BENCH_ONLY) are left out of the table.
The single-file workloads (plain and HTTPS) also print stash over wget2 in time and in CPU per file.
"""
import sys

PEERS = ("curl", "wget2", "aria2c")
WORKLOADS = {
    "1GiB": "1 GiB file, 1 connection",
    "2000x64KiB": "2,000 x 64 KiB, 16 in parallel",
    "2000x64KiB-https": "same, HTTPS with HTTP/2",
    "bundles": "same, as 40 bundles x 50 files",
}
# Workloads whose peers are not run again: their ratio is against another workload's peers,
# which did the same transfers in the same run.
PEERS_FROM = {"bundles": "2000x64KiB"}
START_WORKLOAD = "start100k"
REGISTRY_WORKLOAD = "registry"
HLS_WORKLOAD = "hls"
DASH_WORKLOAD = "dash"
HLS_PEERS = ("yt-dlp", "ffmpeg")
NOISY_WORKLOAD = "noisy"
NOISY_PEER = "curl+sync"
# Written to disk during a run, in all, below which a tool forced none of the noise out: its
# own files, the registry and whatever else the machine wrote meanwhile stay far below it.
NOISY_OWN_MB = 64
# The single-file downloads stash is held to wget2 on (issue 28): workload -> label, short name,
# the most stash's time may be over wget2's, and the most stashd's CPU per file may be over
# wget2's whole CPU (user + system) per file.
COST_WORKLOADS = {
    "2000x64KiB": ("plain HTTP", "HTTP", 2.5, 2.0),
    "2000x64KiB-https": ("HTTPS, HTTP/2", "HTTPS", 1.5, 2.0),
}
SMALL_FILES = 2000


def read_times(path):
    rows = []
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 4:
                workload, tool, seconds, status = parts
                rows.append((workload, tool, float(seconds) if seconds else None, status))
    return rows


# (workload, tool) -> seconds, for the floors, which are timed by themselves (cpu.tsv's fifth
# column) rather than in the times table.
WALLS = {}


def read_cpu(path):
    """(workload, tool) -> (seconds of the command and its children, seconds of stashd)."""
    cpu = {}
    try:
        with open(path) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) in (4, 5):
                    cpu[(parts[0], parts[1])] = (float(parts[2]), float(parts[3]))
                if len(parts) == 5:
                    WALLS[(parts[0], parts[1])] = float(parts[4])
    except FileNotFoundError:
        pass
    return cpu


def read_threads(path):
    """(workload, tool) -> CPU seconds of each kind of thread (threads.tsv: stashd's by
    bench/thread_cpu.py's KINDS, the promise in C's as main, syncers, committer)."""
    threads = {}
    try:
        with open(path) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) > 2 and parts[2]:
                    threads[(parts[0], parts[1])] = [float(x) for x in parts[2:]]
    except (FileNotFoundError, ValueError):
        pass
    return threads


def read_values(path):
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
    times_path, control_path, start_path, results_path = sys.argv[1:5]
    rows = read_times(times_path)
    control = read_values(control_path)
    start = read_values(start_path)
    hls = read_values(sys.argv[5]) if len(sys.argv) > 5 else {}
    cpu = read_cpu(sys.argv[6]) if len(sys.argv) > 6 else {}
    clients = read_values(sys.argv[7]) if len(sys.argv) > 7 else {}
    noisy = read_values(sys.argv[8]) if len(sys.argv) > 8 else {}
    registry = read_values(sys.argv[9]) if len(sys.argv) > 9 else {}
    dash = read_values(sys.argv[10]) if len(sys.argv) > 10 else {}
    threads = read_threads(sys.argv[11]) if len(sys.argv) > 11 else {}
    out = []
    files_ran = any(r[0] in WORKLOADS for r in rows) or bool(control)
    start_ran = any(r[0] == START_WORKLOAD for r in rows)
    hls_ran = any(r[0] == HLS_WORKLOAD for r in rows)
    if files_ran or start_ran:
        classic(out, rows, control, start, cpu)
    if any(r[0] in COST_WORKLOADS for r in rows):
        download_cost_section(out, rows, cpu, threads)
    if any(r[0] == REGISTRY_WORKLOAD for r in rows):
        registry_section(out, rows, registry)
    if hls_ran:
        hls_section(out, rows, hls)
    if any(r[0] == DASH_WORKLOAD for r in rows):
        dash_section(out, rows, dash)
    if clients:
        clients_section(out, clients)
    if any(r[0] == NOISY_WORKLOAD for r in rows):
        noisy_section(out, rows, noisy)

    text = "\n".join(out) + "\n"
    sys.stdout.write(text)
    with open(results_path, "w") as f:
        f.write(text)


def noisy_section(out, rows, values):
    """Small downloads made durable while another process holds unwritten data on the disk."""
    noise = values.get("noise_mb", 0)
    files = values.get("files", 0)
    measured = [r for r in rows if r[0] == NOISY_WORKLOAD]
    times = {tool: seconds for _, tool, seconds, status in measured if status == "ok"}
    peer = times.get(NOISY_PEER)
    out.append(f"noisy neighbour: {files:.0f} x 64 KiB made durable while another process holds {noise:.0f} MB")
    out.append("unwritten on the same disk (dd without sync)")
    out.append(f"{'tool':<14} {'seconds':>9} {'ratio':>7}  {'Dirty MB before -> after':>25}  {'written MB':>10}")
    out.append("-" * 74)
    for _, tool, seconds, status in measured:
        if status != "ok":
            out.append(f"{tool:<14} {seconds if seconds is not None else '-':>9}  {status}")
            continue
        ratio = f"{seconds / peer:.2f}x" if peer and tool != NOISY_PEER else ""
        before, after = values.get(f"{tool}_dirty_before_mb", 0), values.get(f"{tool}_dirty_after_mb", 0)
        dirty = f"{before:.0f} -> {after:.0f}"
        out.append(f"{tool:<14} {seconds:>9.2f} {ratio:>7}  {dirty:>25}  {values.get(f'{tool}_written_mb', 0):>10.0f}")
    out.append("")
    out.append("stash: `stash add --from-file LIST --wait` (16 at once) on a fresh daemon; curl+sync: curl")
    out.append("  --parallel --parallel-max 16, then `sync -d` (fdatasync) of the files. Written MB: pages")
    out.append("  written to disk during the run (/proc/vmstat nr_written), the most of any run; a sync of")
    out.append("  the whole file system would write the noise out.")
    out.append("")
    out.append("targets:")
    stash = times.get("stash")
    label = "noisy: stash within 3x of curl + sync -d:"
    if stash and peer:
        out.append(f"  {label:<46} {verdict(stash / peer <= 3)} ({stash / peer:.2f}x: {stash:.2f} s vs {peer:.2f} s)")
    else:
        out.append(f"  {label:<46} not measured")
    label = "noisy: stash forces none of the noise out:"
    if stash:
        written = values.get("stash_written_mb", 0)
        out.append(f"  {label:<46} {verdict(written <= NOISY_OWN_MB)} ({written:.0f} MB written of {noise:.0f} MB"
                   f" unwritten; at most {NOISY_OWN_MB} MB counts as none)")
    else:
        out.append(f"  {label:<46} not measured")
    out.append("")


CLIENTS = (("swift", "Swift (StashClient)"), ("c", "C (libstash-client)"), ("py", "Python (stash_client)"))


def clients_section(out, values):
    """GetDownload through each client, as a ratio to the socketpair floor of the same run."""
    floor = values.get("pingpong_p50_us")
    out.append("clients: GetDownload on one daemon holding one record; latency of sequential calls on one")
    out.append("connection, throughput from many (Swift 16 clients x 8 in flight, C 16 threads, Python asyncio 4 x 16)")
    out.append(f"{'client':<24} {'p50 us':>8} {'p99 us':>8} {'requests/s':>11}  p50 / floor")
    out.append("-" * 66)
    for prefix, name in CLIENTS:
        p50 = values.get(f"{prefix}_getdownload_p50_us")
        if p50 is None:
            out.append(f"{name:<24} not measured")
            continue
        p99 = values.get(f"{prefix}_getdownload_p99_us", 0)
        rps = values.get(f"{prefix}_getdownload_rps", 0)
        ratio = f"{p50 / floor:.2f}x" if floor else "-"
        out.append(f"{name:<24} {p50:>8.1f} {p99:>8.1f} {rps:>11,.0f}  {ratio}")
    pinned_floor = values.get("pinned_pingpong_p50_us")
    for prefix, name, base in (("c_pinned", "C, both on CPU 0", pinned_floor),
                               ("c_busypoll", "C, both busy polls", floor)):
        p50 = values.get(f"{prefix}_getdownload_p50_us")
        if p50 is None:
            continue
        p99 = values.get(f"{prefix}_getdownload_p99_us", 0)
        rps = values.get(f"{prefix}_getdownload_rps")
        ratio = f"{p50 / base:.2f}x" if base else "-"
        out.append(f"{name:<24} {p50:>8.1f} {p99:>8.1f} {f'{rps:,.0f}' if rps else '-':>11}  {ratio}")
    if floor:
        out.append(f"floor: one byte each way over a socketpair (bench/pingpong.c), p50 {floor:.1f} us"
                   + (f"; {pinned_floor:.1f} us on CPU 0 (the floor of the pinned row)" if pinned_floor else ""))
    out.append("busy polls: stashd --busy-poll-us 2000 and stash_client_set_busy_poll(200); they spend CPU while waiting")
    out.append("")
    out.append("targets:")
    c_p50 = values.get("c_getdownload_p50_us")
    label = "C client GetDownload p50 <= 1.2 x the floor:"
    if c_p50 and floor:
        out.append(f"  {label:<46} {verdict(c_p50 / floor <= 1.2)} ({c_p50 / floor:.2f}x)")
        for prefix, name, base in (("c_pinned", "pinned", pinned_floor), ("c_busypoll", "with both busy polls", floor)):
            p50 = values.get(f"{prefix}_getdownload_p50_us")
            if p50 and base:
                out.append(f"  {'  ' + name + ':':<46} {verdict(p50 / base <= 1.2)} ({p50 / base:.2f}x)")
    else:
        out.append(f"  {label:<46} not measured")
    py_p50 = values.get("py_getdownload_p50_us")
    if py_p50 and c_p50:
        out.append(f"  Python client: {py_p50 - c_p50:.1f} us more per call than the C one "
                   f"({py_p50 / c_p50:.2f}x; reported, no target)")
    out.append("")


def download_cost_section(out, rows, cpu, threads):
    """stash against wget2 on 2,000 single-file downloads: time and stashd's CPU per file, as ratios."""
    def ok_seconds(workload, tool):
        return next((r[2] for r in rows if r[0] == workload and r[1] == tool and r[3] == "ok"), None)

    out.append("single-file downloads against wget2 in the same run (2,000 x 64 KiB, 16 at once):")
    targets = []
    for workload, (label, name, time_limit, cpu_limit) in COST_WORKLOADS.items():
        if not any(r[0] == workload for r in rows):
            continue
        stash, wget2 = ok_seconds(workload, "stash"), ok_seconds(workload, "wget2")
        daemon = cpu.get((workload, "stash"), (0, 0))[1] if stash else 0
        wget2_cpu = cpu.get((workload, "wget2"), (0, 0))[0] if wget2 else 0
        if stash and wget2:
            out.append(f"  {label + ':':<15} stash {stash:.2f} s, wget2 {wget2:.2f} s; CPU per file: stashd "
                       f"{daemon / SMALL_FILES * 1e6:.0f} us, wget2 {wget2_cpu / SMALL_FILES * 1e6:.0f} us (user + system)")
        else:
            out.append(f"  {label + ':':<15} not measured (see the table above)")
        floor = cpu.get((workload, "durable-floor"), (0, 0))[0]
        if daemon and floor:
            out.append(f"  {'':<15} the disk work alone (bench/durable_floor.c: a folder, an unnamed file written, fdatasync, link, "
                       f"fsync of the folder and assets/): {floor / SMALL_FILES * 1e6:.0f} us per file; "
                       f"stashd is {daemon / floor:.2f}x that floor, the floor "
                       + (f"{floor / wget2_cpu:.2f}x wget2's whole CPU" if wget2_cpu else "not compared with wget2"))
        promise = cpu.get((workload, "download-floor"), (0, 0))[0]
        promise_wall = WALLS.get((workload, "download-floor"))
        if promise and promise_wall:
            out.append(f"  {'':<15} the whole promise in plain C (bench/download_floor.c: the transfers by libcurl, the disk "
                       f"work above, a registry row committed QUEUED, DOWNLOADING and COMPLETED; nothing told): "
                       f"{promise / SMALL_FILES * 1e6:.0f} us per file, {promise_wall:.2f} s"
                       + (f"; {promise / wget2_cpu:.2f}x wget2's CPU and {promise_wall / wget2:.2f}x its time" if wget2_cpu and wget2 else "")
                       + (f"; stashd {daemon / promise:.2f}x its CPU" if daemon else "")
                       + (f", stash {stash / promise_wall:.2f}x its time" if stash else ""))
        split, floor_split = threads.get((workload, "stash")), threads.get((workload, "download-floor"))
        if split and len(split) == 5:
            us = [x / SMALL_FILES * 1e6 for x in split]
            out.append(f"  {'':<15} stashd's CPU per file by thread: the fetch thread {us[0]:.0f} us, Swift's pool (the engine, "
                       f"requests, events) {us[1]:.0f}, Dispatch's (file syncs and opens, registry commits) {us[2]:.0f}, "
                       f"NIO {us[3]:.0f}, the rest {us[4]:.0f} (their run time, {sum(us):.0f} us in all)")
        if floor_split and len(floor_split) == 3:
            us = [x / SMALL_FILES * 1e6 for x in floor_split]
            out.append(f"  {'':<15} the promise in C's: its transfer thread {us[0]:.0f} us, its sync threads {us[1]:.0f}, "
                       f"its commit thread {us[2]:.0f}")
        time_ratio = stash / wget2 if stash and wget2 else None
        cpu_ratio = daemon / wget2_cpu if daemon and wget2_cpu else None
        # The promise in C against the same target in the same run: where it fails too, the
        # durable work alone is past the target on this machine that day, whatever stashd does.
        floor_time = promise_wall / wget2 if promise_wall and wget2 else None
        floor_cpu = promise / wget2_cpu if promise and wget2_cpu else None
        targets.append((f"{name}: stash time <= {time_limit}x wget2's", time_ratio, time_limit, floor_time))
        targets.append((f"{name}: stashd CPU per file <= {cpu_limit}x wget2's", cpu_ratio, cpu_limit, floor_cpu))
    out.append("")
    out.append("targets (and the promise in C against the same target, same run):")
    for label, ratio, limit, floor_ratio in targets:
        shown = f"{verdict(ratio <= limit)} ({ratio:.2f}x)" if ratio is not None else "not measured"
        if floor_ratio is not None:
            shown = f"{shown:<16} the promise in C: {verdict(floor_ratio <= limit)} ({floor_ratio:.2f}x)"
        out.append(f"  {label + ':':<46} {shown}")
    out.append("")


def registry_section(out, rows, values):
    """The registry of 100,000 queued downloads: its listing, memory and start, and their targets."""
    row = next((r for r in rows if r[0] == REGISTRY_WORKLOAD), None)
    records = values.get("records", 100_000)
    out.append(f"registry of {records:,.0f} downloads, all but the first QUEUED behind it (stalled, max-parallel 1):")
    if not row or row[3] != "ok":
        out.append(f"  not measured: {row[3] if row else 'no run'}")
        out.append("")
        return
    listing = values.get("c_list_seconds")
    per_record = None
    if "rss_kb" in values and "rss_empty_kb" in values:
        per_record = (values["rss_kb"] - values["rss_empty_kb"]) * 1024 / records
        out.append(f"  daemon at rest: {values['rss_kb'] / 1024:.0f} MiB RSS ({values.get('rss_anon_kb', 0) / 1024:.0f} MiB "
                   f"anonymous), an empty daemon {values['rss_empty_kb'] / 1024:.0f} MiB: {per_record:,.0f} bytes a record "
                   f"({values['rss_kb'] * 1024 / records:,.0f} with the daemon's own)")
    if listing is not None:
        out.append(f"  full listing through the C client: {listing:.3f} s, {values.get('c_list_pages', 0):.0f} pages of 1,000 "
                   f"(slowest page {values.get('c_list_page_ms_max', 0):.1f} ms; best of 3)")
    cache = ", page cache dropped before each" if values.get("page_cache_dropped") else ""
    out.append(f"  first answer after a restart: {row[2]:.2f} s (best of {values.get('starts', 1):.0f} starts{cache})")
    out.append(f"  this part took {values.get('part_s', 0):.0f} s, {values.get('populate_s', 0):.0f} s of it adding the downloads")
    out.append("targets:")

    def target(label, value, passes, shown):
        if value is None:
            out.append(f"  {label + ':':<52} not measured")
        else:
            out.append(f"  {label + ':':<52} {verdict(passes(value))} ({shown(value)})")

    target(f"listing {records:,.0f} records, C client <= 1.5 s", listing, lambda s: s <= 1.5, lambda s: f"{s:.3f} s")
    target("daemon memory a record at rest <= 1 KiB", per_record, lambda b: b <= 1024, lambda b: f"{b:,.0f} bytes")
    target("first answer after a restart <= 1 s", row[2], lambda s: s <= 1, lambda s: f"{s:.2f} s")
    out.append("")


def stream_rows(out, measured, workload, megabytes, stash):
    """A stream workload's rows: each tool's best time, MB/s, and stash's time over the tool's."""
    for _, tool, seconds, status in measured:
        ok = status == "ok"
        secs = f"{seconds:.2f}" if seconds is not None else "-"
        rate = f"{megabytes / seconds:.0f}" if ok and seconds else "-"
        note = status if not ok else ("" if tool == "stash" else (f"{stash / seconds:.2f}x" if stash else "-"))
        out.append(f"{workload:<32} {tool:<14} {secs:>9} {rate:>7}  {note}")


def stream_target(out, label, stash, ytdlp):
    """A stream workload's target: stash at most half yt-dlp's time."""
    if stash and ytdlp:
        ratio = stash / ytdlp
        out.append(f"  {label:<46} {verdict(ratio <= 0.5)} ({ratio:.2f}x: {stash:.2f} s vs {ytdlp:.2f} s)")
    else:
        out.append(f"  {label:<46} not measured")


def hls_section(out, rows, hls):
    """The HLS rows: each tool's best time, MB/s, and stash's time over each peer's."""
    measured = [r for r in rows if r[0] == HLS_WORKLOAD]
    times = {tool: seconds for _, tool, seconds, status in measured if status == "ok"}
    megabytes = hls.get("bytes", 0) / 1e6
    minutes = hls.get("seconds", 600) / 60
    out.append(f"HLS: 720p of a {minutes:.0f}-minute stream, 3 variants, {hls.get('segments', 0):.0f} segments of 2 s, "
               f"{megabytes:.0f} MB; two subtitle tracks")
    out.append(f"{'workload':<32} {'tool':<14} {'seconds':>9} {'MB/s':>7}  stash / tool")
    out.append("-" * 78)
    stash = times.get("stash")
    stream_rows(out, measured, "HLS 720p + 2 subtitle tracks", megabytes, stash)
    out.append("")
    out.append(f"stash: `stash add MASTER --max-height 720 --subtitles en,es --segments 8 --wait` on a fresh")
    out.append(f"  daemon, add to COMPLETED: a package of the 720p segments (kept as they are) and both")
    out.append(f"  subtitle tracks ({hls.get('subtitle_segments', 0):.0f} WebVTT segments) with rewritten playlists.")
    out.append("yt-dlp: -N 8 --hls-use-mpegts -f 'b[height=720]' --write-subs --sub-langs en,es: the segments")
    out.append("  joined into one file (checked byte for byte), the subtitles joined into one .vtt each.")
    out.append("ffmpeg: -i 720p-media-playlist -map 0 -c copy out.ts: one segment at a time, no subtitles.")
    out.append("")
    out.append("targets:")
    stream_target(out, "HLS: stash <= 0.5 x yt-dlp:", stash, times.get("yt-dlp"))


def dash_section(out, rows, dash):
    """The DASH rows: each tool's best time, MB/s, and stash's time over yt-dlp's."""
    measured = [r for r in rows if r[0] == DASH_WORKLOAD]
    times = {tool: seconds for _, tool, seconds, status in measured if status == "ok"}
    megabytes = dash.get("bytes", 0) / 1e6
    minutes = dash.get("seconds", 600) / 60
    out.append(f"DASH: 720p and audio of a {minutes:.0f}-minute MPD, 3 video representations, "
               f"{dash.get('segments', 0):.0f} segments of 2 s each, {megabytes:.0f} MB")
    out.append(f"{'workload':<32} {'tool':<14} {'seconds':>9} {'MB/s':>7}  stash / tool")
    out.append("-" * 78)
    stash = times.get("stash")
    stream_rows(out, measured, "DASH 720p + audio", megabytes, stash)
    out.append("")
    out.append("stash: `stash add MPD --max-height 720 --segments 8 --wait` on a fresh daemon, add to")
    out.append("  COMPLETED: the segments kept as they are and a local MPD (checked byte for byte).")
    out.append("yt-dlp: -N 8 --fixup never -f 'bv[height=720],ba': each representation joined into one file")
    out.append("  (checked byte for byte).")
    out.append("")
    out.append("targets:")
    stream_target(out, "DASH: stash <= 0.5 x yt-dlp:", stash, times.get("yt-dlp"))
    out.append("")


def classic(out, rows, control, start, cpu):
    """The file workloads, the control plane, the daemon start and their targets."""
    out.append(f"{'workload':<32} {'tool':<14} {'seconds':>9} {'ratio':>7}  note")
    out.append("-" * 78)
    best = {}
    for workload in WORKLOADS:
        measured = [r for r in rows if r[0] == workload]
        peer_rows = [r for r in rows if r[0] == PEERS_FROM.get(workload, workload) and r[1] in PEERS and r[3] == "ok"]
        fastest = min(peer_rows, key=lambda r: r[2]) if peer_rows else None
        best[workload] = fastest[2] if fastest else None
        for _, tool, seconds, status in measured:
            ok = status == "ok"
            ratio = f"{seconds / best[workload]:.2f}x" if ok and best[workload] else "-"
            secs = f"{seconds:.2f}" if seconds is not None else "-"
            note = status
            if ok:
                note = f"vs {fastest[1]} {fastest[2]:.2f} s above" if workload in PEERS_FROM and fastest else ""
            out.append(f"{WORKLOADS[workload]:<32} {tool:<14} {secs:>9} {ratio:>7}  {note}")
    out.append("")
    out.append("ratio = seconds / fastest of curl, wget2, aria2c on the same workload; for the bundles,")
    out.append("  on the 2,000 x 64 KiB workload above (the same files, same run; peers not run again).")
    out.append("HTTPS: nginx with TLS and HTTP/2, a throwaway CA trusted for the run; curl and wget2 with")
    out.append("  --http2 (aria2c speaks no HTTP/2, so it is not run there).")
    out.append("stash-3x5: --max-parallel 3 --files-per-download 5, default connection caps;")
    out.append("stash-4x16: --max-parallel 4 --files-per-download 16 --max-connections 64")
    out.append("  --max-connections-per-host 64. Timed from the first add to all 40 bundles COMPLETED,")
    out.append("  added over one StashClient connection (stash-bench --bundles); -cli: 40 `stash add")
    out.append("  --bundle` processes side by side, then `stash wait` on the 40 ids.")
    out.append("")

    small = [(workload, tool) for workload, tool in cpu if workload in ("2000x64KiB", "bundles")]
    if small:
        out.append("CPU per 64 KiB file (fastest run; the command with every process it started, and stashd):")
        for workload, tool in small:
            command, daemon = cpu[(workload, tool)]
            line = f"  {tool:<16} {command / 2000 * 1e6:7.0f} us"
            if daemon:
                line += f" + stashd {daemon / 2000 * 1e6:4.0f} us = {(command + daemon) / 2000 * 1e6:4.0f} us"
            out.append(line)
        out.append("")

    if control:
        out.append("control plane (stash-bench; latency: sequential calls on one connection):")
        out.append(f"  GetDownload latency p50 {control.get('getdownload_p50_us', 0):.1f} us, "
                   f"p99 {control.get('getdownload_p99_us', 0):.1f} us; "
                   f"throughput, {control.get('getdownload_clients', 0):.0f} clients x "
                   f"{control.get('getdownload_in_flight_per_client', 0):.0f} in flight: "
                   f"{control.get('getdownload_rps', 0):,.0f} requests/s")
        if "hasdownload_p50_us" in control:
            out.append(f"  HasDownload latency p50 {control['hasdownload_p50_us']:.1f} us, "
                       f"p99 {control.get('hasdownload_p99_us', 0):.1f} us")
        for prefix, title in (("pinned_", "daemon and client pinned to one CPU"),
                              ("busypoll_", "free to run anywhere, busy polls: stashd 2000 us, client 200 us")):
            if f"{prefix}getdownload_p50_us" in control:
                out.append(f"  same, {title}:")
                out.append(f"    GetDownload latency p50 {control[prefix + 'getdownload_p50_us']:.1f} us, "
                           f"p99 {control.get(prefix + 'getdownload_p99_us', 0):.1f} us; "
                           f"{control.get(prefix + 'getdownload_rps', 0):,.0f} requests/s")
            if f"{prefix}hasdownload_p50_us" in control:
                out.append(f"    HasDownload latency p50 {control[prefix + 'hasdownload_p50_us']:.1f} us, "
                           f"p99 {control.get(prefix + 'hasdownload_p99_us', 0):.1f} us")
        if "pingpong_p50_us" in control:
            out.append(f"  floor: one byte each way over a socketpair (bench/pingpong.c), p50 "
                       f"{control['pingpong_p50_us']:.1f} us free-running"
                       + (f", {control['pinned_pingpong_p50_us']:.1f} us pinned" if "pinned_pingpong_p50_us" in control else ""))
    else:
        out.append("control plane: not measured (stash-bench or stashd did not run; see above)")
    out.append("")

    started = next((r for r in rows if r[0] == START_WORKLOAD), None)
    records = start.get("records", 100_000)
    out.append(f"daemon start over {records:,.0f} COMPLETED single-file downloads (fast verify at start):")
    if started and started[3] == "ok":
        cache = ", page cache dropped before each" if start.get("page_cache_dropped") else ""
        out.append(f"  exec to first answer on the socket: {started[2]:.2f} s "
                   f"(best of {start.get('starts', 1):.0f} start(s){cache})")
        out.append(f"  its lastVerify: {start.get('verify_duration_ms', 0):,.0f} ms, "
                   f"{start.get('verify_downloads_checked', 0):,.0f} downloads and "
                   f"{start.get('verify_files_checked', 0):,.0f} files checked, "
                   f"{start.get('verify_findings', 0):.0f} findings")
        if "cold_start_s" in start:
            out.append(f"  after a boot (inodes and folder entries dropped too): {start['cold_start_s']:.2f} s, "
                       f"its lastVerify {start.get('cold_verify_ms', 0):,.0f} ms (best of {start.get('starts', 1):.0f})")
        out.append(f"  this part took {start.get('part_s', 0):.0f} s, {start.get('populate_s', 0):.0f} s of it "
                   f"adding and downloading the records")
    elif started:
        out.append(f"  not measured: {started[3]}")
    else:
        out.append("  not measured (see above)")
    out.append("")

    def stash_row(workload):
        return next((r for r in rows if r[0] == workload and r[1] == "stash" and r[3] == "ok"), None)

    def target(label, value, passes, shown):
        """One target line; `value` None means it was not measured."""
        if value is None:
            out.append(f"  {label + ':':<46} not measured")
        else:
            out.append(f"  {label + ':':<46} {verdict(passes(value))} ({shown(value)})")

    def peer(workload, tool):
        return next((r[2] for r in rows if r[0] == workload and r[1] == tool and r[3] == "ok"), None)

    def ratio_of(row, reference):
        return row[2] / reference if row and reference else None

    out.append("targets:")
    target("1 GiB within 1.15x of curl", ratio_of(stash_row("1GiB"), peer("1GiB", "curl")),
           lambda r: r <= 1.15, lambda r: f"{r:.2f}x curl")
    many, aria = stash_row("2000x64KiB"), peer("2000x64KiB", "aria2c")
    target("2,000 files no slower than aria2c -j16", ratio_of(many, aria),
           lambda r: r <= 1, lambda r: f"{many[2]:.2f} s vs {aria:.2f} s")
    bundles = next((r for r in rows if r[0] == "bundles" and r[1] == "stash-4x16" and r[3] == "ok"), None)
    target("stash 4x16 no slower than the fastest peer", ratio_of(bundles, best["bundles"]),
           lambda r: r <= 1, lambda r: f"{bundles[2]:.2f} s vs {best['bundles']:.2f} s")
    target("2,000 files within 1.5x of the fastest peer", ratio_of(many, best["2000x64KiB"]),
           lambda r: r <= 1.5, lambda r: f"{r:.2f}x")
    target("40 bundles at 4 x 16 within 1.2x of it", ratio_of(bundles, best["bundles"]),
           lambda r: r <= 1.2, lambda r: f"{r:.2f}x")
    target(f"start + fast verify, {records:,.0f} records <= 2 s",
           started[2] if started and started[3] == "ok" else None, lambda s: s <= 2, lambda s: f"{s:.2f} s")
    micro = lambda us: us <= 20
    shown_us = lambda us: f"{us:.1f} us"
    target("GetDownload p50 <= 20 us", control.get("getdownload_p50_us"), micro, shown_us)
    if "pinned_getdownload_p50_us" in control:
        target("GetDownload p50 <= 20 us, pinned", control["pinned_getdownload_p50_us"], micro, shown_us)
    if "busypoll_getdownload_p50_us" in control:
        target("GetDownload p50 <= 20 us, busy polls", control["busypoll_getdownload_p50_us"], micro, shown_us)
    floor = control.get("pingpong_p50_us")
    ratio = control["getdownload_p50_us"] / floor if floor and "getdownload_p50_us" in control else None
    target("GetDownload p50 <= 1.5x the socketpair floor", ratio, lambda r: r <= 1.5, lambda r: f"{r:.2f}x")
    pinned_floor = control.get("pinned_pingpong_p50_us")
    if pinned_floor and "pinned_getdownload_p50_us" in control:
        target("the same, pinned", control["pinned_getdownload_p50_us"] / pinned_floor,
               lambda r: r <= 1.5, lambda r: f"{r:.2f}x")
    target(">= 100,000 req/s from 16 clients", control.get("getdownload_rps"),
           lambda rps: rps >= 100_000, lambda rps: f"{rps:,.0f}/s")
    target("HasDownload p50 <= 20 us", control.get("hasdownload_p50_us"), micro, shown_us)
    if "pinned_hasdownload_p50_us" in control:
        target("HasDownload p50 <= 20 us, pinned", control["pinned_hasdownload_p50_us"], micro, shown_us)
    if "busypoll_hasdownload_p50_us" in control:
        target("HasDownload p50 <= 20 us, busy polls", control["busypoll_hasdownload_p50_us"], micro, shown_us)
    out.append("")


if __name__ == "__main__":
    main()
