"""Peak daemon memory under hostile clients and a huge HLS plan (part `memory` of `make bench`).

usage: memory.py BIN_DIR OUT_DIR

Starts its own stashd (BIN_DIR/stashd) on a scratch data dir and, one scenario at a time,
samples the daemon's resident set (VmRSS, every 20 ms) and records the peak:

- idle: the daemon just started;
- pipeline, pipeline_stats, pipeline_list: a client writes GetSystemInfo, GetStats, or
  ListDownloads requests (pages of 100 of 200 records with 4 KB of app data, added first) for
  5 s and never reads an answer; `*_after_leave_rss_mib` is the resident set 5 s after it left
  (issue 27: 529 MB after GetStats, since freed memory stayed with the process);
- subscribers: four clients subscribe and never read while 2,000 downloads are added;
- plan: GetManifestInfo (`stash plan`) of a master with 64 variants whose media playlists are
  8.5 MB each, served by a local HTTP server in this script.

Each scenario also records how long it ran (`*_seconds`) and the resident set 5 s after it
ended (`*_after_leave_rss_mib`).

Prints `name value` lines (peak RSS in MiB, and the bound) and writes them to OUT_DIR/memory.txt.
The bound every scenario must stay under is 200 MiB (issue 15); the script exits 1 if one does not.
"""
import http.server
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

BOUND_MIB = 200
VARIANTS = 64
PLAYLIST_BYTES = 8_500_000


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class PeakSampler:
    """Samples a process's RSS in a thread until stopped; `peak` is the highest seen."""

    def __init__(self, pid):
        self.pid = pid
        self.peak = rss_mib(pid)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.is_set():
            try:
                self.peak = max(self.peak, rss_mib(self.pid))
            except OSError:
                return
            time.sleep(0.02)

    def stop(self):
        self._stop.set()
        self._thread.join()
        return self.peak


# ------------------------------------------------------------------ wire (PROTOCOL.md)
def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field(number, wire_type, payload):
    key = varint(number << 3 | wire_type)
    if wire_type == 0:
        return key + varint(payload)
    return key + varint(len(payload)) + payload


def frame(payload):
    return struct.pack(">I", len(payload)) + payload


def request(request_id, op_field, body=b""):
    """A Request frame: id (1) and one op field (a length-delimited message)."""
    return frame(field(1, 0, request_id) + field(op_field, 2, body))


# Request op field numbers (proto/stash/v1/stash.proto).
OP_HELLO = 10
OP_ADD_DOWNLOAD = 11
OP_LIST_DOWNLOADS = 13
OP_PAUSE_ALL = 18
OP_SUBSCRIBE = 21
OP_GET_STATS = 22
OP_GET_SYSTEM_INFO = 23


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s


def hello(s):
    """Hello with protocol_version 1: without it the daemon refuses the Hello, and every request
    after it is refused on the event loop ("send Hello first") instead of being answered."""
    s.sendall(request(1, OP_HELLO, field(1, 0, 1) + field(2, 2, b"memory-bench")))
    answer = read_frame(s)
    if b"send Hello first" in answer or b"speaks protocol" in answer:
        raise RuntimeError(f"the daemon refused the Hello: {answer!r}")


def read_frame(s):
    header = recv_exact(s, 4)
    return recv_exact(s, struct.unpack(">I", header)[0])


def recv_exact(s, count):
    data = bytearray()
    while len(data) < count:
        chunk = s.recv(count - len(data))
        if not chunk:
            raise ConnectionError("daemon closed the connection")
        data += chunk
    return bytes(data)


# ------------------------------------------------------------------ scenarios
def scenario_pipeline(socket_path, op=OP_GET_SYSTEM_INFO, body=b""):
    s = connect(socket_path)
    hello(s)
    s.setblocking(False)
    one = request(7, op, body)
    chunk = one * 4096
    # A send may take part of the chunk: the next one goes on from there, or the frames would
    # be cut (the daemon refuses the bad length and closes, and nothing is measured).
    sent = 0
    deadline = time.time() + 5
    while time.time() < deadline:
        offset = sent % len(chunk)
        try:
            sent += s.send(chunk[offset:])
        except BlockingIOError:
            time.sleep(0.01)
    s.close()
    return sent // len(one)


def add_paused_records(socket_path, count):
    """Downloads with 4 KB of app data each, paused at once (nothing answers on port 9)."""
    adder = connect(socket_path)
    hello(adder)
    for i in range(count):
        body = field(1, 2, f"rec{i}".encode()) + field(2, 2, f"http://127.0.0.1:9/rec{i}".encode()) + field(10, 2, b"a" * 4096)
        adder.sendall(request(100 + i, OP_ADD_DOWNLOAD, body))
        read_frame(adder)
    adder.sendall(request(99, OP_PAUSE_ALL, b""))
    read_frame(adder)
    adder.close()


def scenario_subscribers(socket_path):
    subscribers = []
    for _ in range(4):
        s = connect(socket_path)
        hello(s)
        s.sendall(request(2, OP_SUBSCRIBE, b""))
        read_frame(s)
        subscribers.append(s)
    # Events with 1,000-byte titles, to downloads nothing answers (port 9): QUEUED, then
    # failures and retries, for every one of them.
    title = b"t" * 1000
    adder = connect(socket_path)
    hello(adder)
    for i in range(2000):
        body = field(1, 2, f"mem{i}".encode()) + field(2, 2, f"http://127.0.0.1:9/mem{i}".encode()) + field(3, 2, title)
        adder.sendall(request(100 + i, OP_ADD_DOWNLOAD, body))
        read_frame(adder)
    adder.close()
    time.sleep(2)
    for s in subscribers:
        s.close()
    return 2000


def make_playlist():
    lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:4", "#EXT-X-PLAYLIST-TYPE:VOD"]
    size = sum(len(l) + 1 for l in lines)
    index = 0
    while size < PLAYLIST_BYTES:
        # ~86 bytes a segment: 8.5 MB stays under the parser's 100,000-segment limit.
        entry = f"#EXTINF:4.000,\nsegments/quality-level-stream-segment-{index:08d}-0123456789abcdef01234.ts"
        lines.append(entry)
        size += len(entry) + 1
        index += 1
    lines.append("#EXT-X-ENDLIST")
    return ("\n".join(lines) + "\n").encode(), index


def serve_playlists():
    media, segments = make_playlist()
    master_lines = ["#EXTM3U"]
    for v in range(VARIANTS):
        master_lines.append(f"#EXT-X-STREAM-INF:BANDWIDTH={(v + 1) * 100000},RESOLUTION={640 + v}x360")
        master_lines.append(f"v{v:02d}/index.m3u8")
    master = ("\n".join(master_lines) + "\n").encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = master if self.path == "/master.m3u8" else media
            self.send_response(200)
            self.send_header("Content-Type", "application/vnd.apple.mpegurl")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, segments


def scenario_plan(bin_dir, socket_path):
    server, segments = serve_playlists()
    url = f"http://127.0.0.1:{server.server_address[1]}/master.m3u8"
    result = subprocess.run([f"{bin_dir}/stash", "plan", "--socket", socket_path, url],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    server.shutdown()
    if result.returncode != 0:
        raise RuntimeError(f"stash plan failed ({result.returncode}): {result.stdout[-400:]}")
    return segments


def main():
    bin_dir, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="stash-memory-")
    socket_path = os.path.join(work, "s", "stashd.sock")
    log = open(os.path.join(out_dir, "memory-stashd.log"), "w")
    daemon = subprocess.Popen([f"{bin_dir}/stashd", "--data-dir", os.path.join(work, "data"), "--socket", socket_path,
                               "--max-parallel", "2"], stdout=log, stderr=log)
    results = []
    try:
        for _ in range(200):
            if os.path.exists(socket_path):
                break
            time.sleep(0.05)
        time.sleep(0.3)
        results.append(("idle_rss_mib", rss_mib(daemon.pid)))

        def measure(name, run, detail):
            sampler = PeakSampler(daemon.pid)
            began = time.monotonic()
            count = run()
            seconds = time.monotonic() - began
            time.sleep(0.5)
            results.append((f"{name}_peak_rss_mib", sampler.stop()))
            results.append((f"{name}_{detail}", count))
            results.append((f"{name}_seconds", round(seconds, 1)))
            time.sleep(4.5)
            results.append((f"{name}_after_leave_rss_mib", rss_mib(daemon.pid)))
            if daemon.poll() is not None:
                raise RuntimeError(f"stashd exited with {daemon.returncode} during {name}")

        measure("pipeline", lambda: scenario_pipeline(socket_path), "requests_sent")
        measure("pipeline_stats", lambda: scenario_pipeline(socket_path, OP_GET_STATS), "requests_sent")
        add_paused_records(socket_path, 200)
        time.sleep(0.5)
        results.append(("records_rss_mib", rss_mib(daemon.pid)))
        measure("pipeline_list", lambda: scenario_pipeline(socket_path, OP_LIST_DOWNLOADS, field(2, 0, 100)), "requests_sent")
        measure("subscribers", lambda: scenario_subscribers(socket_path), "downloads_added")
        measure("plan", lambda: scenario_plan(bin_dir, socket_path), "segments_per_variant")
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=30)
        subprocess.run(["rm", "-rf", work])
    results.append(("bound_mib", BOUND_MIB))
    lines = [f"{name} {value:.1f}" if isinstance(value, float) else f"{name} {value}" for name, value in results]
    with open(os.path.join(out_dir, "memory.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    over = [name for name, value in results if name.endswith("peak_rss_mib") and value > BOUND_MIB]
    if over:
        print(f"over the {BOUND_MIB} MiB bound: {', '.join(over)}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
