"""`make soak`: stashd killed with SIGKILL at random points while it downloads files, bundles and
HLS streams from a server that injects faults; after every restart the registry must open and
every COMPLETED download must be byte-exact.

usage: soak.py BIN_DIR [--kills N] [--downloads N] [--seed N] [--out DIR]

BIN_DIR holds stashd and stash. The harness:

- serves generated files (and one ffmpeg-made HLS stream) from a local HTTP/1.1 server that
  answers Range requests with 206 and, at random, cuts a body halfway, answers 503 with
  Retry-After, answers 500, or stalls for a second;
- starts stashd, adds two or three downloads per cycle (single files, bundles of 4 to 8 files,
  HLS), kills it with SIGKILL 0.1 to 2.5 s later, and starts it again, N times;
- after each start checks that `stash ls` answers, verifies the bytes of every download that
  is COMPLETED for the first time (sha256 against the source; a bundle file by file; an HLS
  package's segments against the stream's), and resumes the FAILED ones (a download that was
  transferring during two kills in a row is FAILED by design; a fault can fail one too);
- after the last kill lets the daemon finish everything, verifies all of it again, and counts
  the requests that resumed a partial file with a Range from past byte 0.

Prints a summary (also to OUT/soak.txt) and exits 1 if a COMPLETED download was not
byte-exact, the registry did not open, or a download never completed.
"""
import argparse
import hashlib
import http.server
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

CHUNK = 64 * 1024


# ------------------------------------------------------------------ the server
class Source:
    """What the server serves: path -> bytes, and the sha256 of each."""

    def __init__(self):
        self.bodies = {}
        self.digests = {}

    def add(self, path, body):
        self.bodies[path] = body
        self.digests[path] = hashlib.sha256(body).hexdigest()


class Faults:
    """Chooses a fault per request and counts what was done."""

    def __init__(self, seed):
        self.random = random.Random(seed)
        self.lock = threading.Lock()
        self.counts = {"requests": 0, "cut": 0, "503": 0, "500": 0, "stall": 0, "range_resumes": 0}

    def choose(self):
        with self.lock:
            self.counts["requests"] += 1
            roll = self.random.random()
        if roll < 0.06:
            return "cut"
        if roll < 0.09:
            return "503"
        if roll < 0.11:
            return "500"
        if roll < 0.15:
            return "stall"
        return None

    def count(self, name):
        with self.lock:
            self.counts[name] += 1


def make_handler(source, faults, rate):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_HEAD(self):
            self.answer(head=True)

        def do_GET(self):
            self.answer(head=False)

        def answer(self, head):
            body = source.bodies.get(self.path.split("?")[0])
            if body is None:
                self.send_error(404)
                return
            # Playlists are small and read whole; faults go to the media and file bodies.
            fault = None if self.path.endswith(".m3u8") else faults.choose()
            if fault == "503":
                faults.count("503")
                self.send_response(503)
                self.send_header("Retry-After", "1")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if fault == "500":
                faults.count("500")
                self.send_response(500)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            etag = '"' + source.digests[self.path.split("?")[0]][:16] + '"'
            first, last = 0, len(body) - 1
            ranged = self.headers.get("Range")
            if ranged and ranged.startswith("bytes="):
                spec = ranged[len("bytes="):].split(",")[0]
                low, _, high = spec.partition("-")
                if low.isdigit():
                    first = int(low)
                    if high.isdigit():
                        last = min(int(high), len(body) - 1)
                if first >= len(body):
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{len(body)}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if_range = self.headers.get("If-Range")
                if if_range is not None and if_range != etag:
                    first, last = 0, len(body) - 1
                    ranged = None
            else:
                ranged = None
            if ranged:
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {first}-{last}/{len(body)}")
                if first > 0:
                    faults.count("range_resumes")
            else:
                self.send_response(200)
            self.send_header("Content-Length", str(last - first + 1))
            self.send_header("ETag", etag)
            self.send_header("Accept-Ranges", "bytes")
            self.end_headers()
            if head:
                return
            if fault == "stall":
                faults.count("stall")
                time.sleep(1)
            cut_at = first + (last - first + 1) // 2 if fault == "cut" else None
            if cut_at is not None:
                faults.count("cut")
            position = first
            try:
                while position <= last:
                    end = min(position + CHUNK, last + 1)
                    if cut_at is not None and end > cut_at:
                        self.wfile.write(body[position:cut_at])
                        self.wfile.flush()
                        self.close_connection = True
                        self.connection.shutdown(2)
                        return
                    self.wfile.write(body[position:end])
                    position = end
                    if rate:
                        time.sleep(CHUNK / rate)
            except (BrokenPipeError, ConnectionResetError, OSError):
                self.close_connection = True

    return Handler


def make_hls(folder):
    """A 40-second, 2-second-segment MPEG-TS stream made by ffmpeg; returns (playlist, segments)."""
    os.makedirs(folder, exist_ok=True)
    subprocess.run([
        "ffmpeg", "-loglevel", "error", "-y",
        "-f", "lavfi", "-i", "testsrc=duration=40:size=320x240:rate=25",
        "-f", "lavfi", "-i", "sine=frequency=440:duration=40",
        "-c:v", "libx264", "-preset", "ultrafast", "-g", "50", "-c:a", "aac", "-b:a", "64k",
        "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod",
        "-hls_segment_filename", os.path.join(folder, "seg%03d.ts"), os.path.join(folder, "index.m3u8"),
    ], check=True)
    segments = sorted(name for name in os.listdir(folder) if name.endswith(".ts"))
    return os.path.join(folder, "index.m3u8"), segments


# ------------------------------------------------------------------ the daemon
class Daemon:
    def __init__(self, bin_dir, work, out):
        self.bin_dir = bin_dir
        self.data = os.path.join(work, "data")
        self.socket = os.path.join(work, "s", "stashd.sock")
        self.log = open(os.path.join(out, "soak-stashd.log"), "ab")
        self.process = None

    def start(self):
        self.process = subprocess.Popen(
            [f"{self.bin_dir}/stashd", "--data-dir", self.data, "--socket", self.socket, "--max-parallel", "4"],
            stdout=self.log, stderr=self.log)
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"stashd exited with {self.process.returncode} at start; see soak-stashd.log")
            if self.cli_ok("info"):
                return
            time.sleep(0.05)
        raise RuntimeError("stashd did not answer within 30 s of its start")

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)

    def cli(self, *args):
        return subprocess.run([f"{self.bin_dir}/stash", *args, "--socket", self.socket],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)

    def cli_ok(self, *args):
        try:
            return self.cli(*args).returncode == 0
        except subprocess.TimeoutExpired:
            return False

    def records(self):
        result = self.cli("ls", "--json")
        if result.returncode != 0:
            raise RuntimeError(f"stash ls failed ({result.returncode}): {result.stderr.strip()}")
        return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


# ------------------------------------------------------------------ checks
def sha256_file(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify(record, expected, hls_digests):
    """None when the COMPLETED download is byte-exact, else what is wrong."""
    kind, detail = expected
    asset = record["assetPath"]
    if kind == "file":
        if not os.path.isfile(asset):
            return f"{asset} is missing"
        actual = sha256_file(asset)
        return None if actual == detail else f"{asset}: sha256 {actual}, source {detail}"
    if kind == "bundle":
        for relative, digest in detail.items():
            path = os.path.join(asset, relative)
            if not os.path.isfile(path):
                return f"{path} is missing"
            if sha256_file(path) != digest:
                return f"{path}: not the source's bytes"
        return None
    found = []
    for folder, _, names in os.walk(asset):
        found += [sha256_file(os.path.join(folder, name)) for name in names if name.endswith(".ts")]
    if sorted(found) != sorted(hls_digests):
        return f"{asset}: {len(found)} segments on disk, {len(hls_digests)} in the stream, or their bytes differ"
    return None


# ------------------------------------------------------------------ the run
def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin_dir")
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--downloads", type=int, default=220)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=None)
    parser.add_argument("--finish-seconds", type=int, default=600)
    args = parser.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="stash-soak-out-")
    os.makedirs(out, exist_ok=True)
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="stash-soak-")
    began = time.time()

    source = Source()
    sizes = [rng.choice([40_000, 300_000, 1_000_000, 3_000_000]) + rng.randrange(1000) for _ in range(args.downloads * 2)]
    for index, size in enumerate(sizes):
        source.add(f"/f/{index}.bin", rng.randbytes(size))
    playlist, segments = make_hls(os.path.join(work, "hls"))
    hls_folder = os.path.dirname(playlist)
    with open(playlist, "rb") as f:
        source.add("/hls/index.m3u8", f.read())
    hls_digests = []
    for name in segments:
        with open(os.path.join(hls_folder, name), "rb") as f:
            body = f.read()
        source.add(f"/hls/{name}", body)
        hls_digests.append(hashlib.sha256(body).hexdigest())

    faults = Faults(args.seed)
    # 4 MB/s per connection: a megabyte file takes a quarter second, so kills land mid-transfer.
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), make_handler(source, faults, rate=4_000_000))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"

    # The downloads: mostly single files, every 8th a bundle, every 25th the HLS stream.
    plan = []
    next_file = 0
    for index in range(args.downloads):
        if index % 25 == 12:
            plan.append((f"h{index}", "hls", None))
        elif index % 8 == 3:
            count = rng.randint(4, 8)
            files = {f"part/{n}.bin": next_file + n for n in range(count)}
            next_file += count
            plan.append((f"b{index}", "bundle", files))
        else:
            plan.append((f"f{index}", "file", next_file))
            next_file += 1
        if next_file >= len(sizes) - 8:
            next_file = 0

    expected = {}
    daemon = Daemon(args.bin_dir, work, out)
    verified = set()
    problems = []
    resumed = 0
    kills = 0
    lists = os.path.join(work, "lists")
    os.makedirs(lists)

    def add(item):
        ident, kind, detail = item
        if kind == "file":
            # --force: each item is a download of its own even where two share a source.
            result = daemon.cli("add", f"{base}/f/{detail}.bin", "--id", ident, "--force")
            expected[ident] = ("file", source.digests[f"/f/{detail}.bin"])
        elif kind == "bundle":
            listing = os.path.join(lists, ident)
            with open(listing, "w") as f:
                for relative, n in detail.items():
                    f.write(f"{base}/f/{n}.bin\t{relative}\n")
            result = daemon.cli("add", "--bundle", "--from-file", listing, "--id", ident, "--force")
            expected[ident] = ("bundle", {relative: source.digests[f"/f/{n}.bin"] for relative, n in detail.items()})
        else:
            result = daemon.cli("add", f"{base}/hls/index.m3u8", "--id", ident, "--force")
            expected[ident] = ("hls", None)
        return result.returncode == 0

    def check(final=False):
        nonlocal resumed
        records = daemon.records()
        by_id = {r["id"]: r for r in records}
        for ident in expected:
            if ident not in by_id:
                problems.append(f"{ident} was added (its add was answered) and is gone from the registry")
        for record in records:
            ident = record["id"]
            if record["state"] == "COMPLETED" and (final or ident not in verified):
                wrong = verify(record, expected[ident], hls_digests)
                if wrong:
                    problems.append(f"{ident} COMPLETED but {wrong}")
                verified.add(ident)
            elif record["state"] == "FAILED":
                if daemon.cli_ok("resume", ident):
                    resumed += 1
        return records

    pending = list(plan)
    try:
        daemon.start()
        while kills < args.kills:
            for _ in range(3 if len(pending) > (args.kills - kills) * 2 else 2):
                if pending:
                    item = pending.pop(0)
                    if not add(item):
                        problems.append(f"adding {item[0]} failed")
            time.sleep(rng.uniform(0.1, 2.5))
            daemon.kill()
            kills += 1
            try:
                daemon.start()
                check()
            except RuntimeError as error:
                problems.append(f"after kill {kills}: {error}")
                break
        for item in pending:
            add(item)
        # No more kills: everything must complete.
        deadline = time.time() + args.finish_seconds
        while time.time() < deadline:
            records = check()
            if all(r["state"] == "COMPLETED" for r in records) and len(records) == len(expected):
                break
            time.sleep(1)
        records = check(final=True)
        unfinished = [f'{r["id"]} {r["state"]} {((r.get("error") or {}).get("message") or "")[:120]}'
                      for r in records if r["state"] != "COMPLETED"]
        if unfinished:
            problems.append(f"{len(unfinished)} downloads never completed: " + "; ".join(unfinished[:5]))
        daemon.stop()
    finally:
        if daemon.process and daemon.process.poll() is None:
            daemon.process.kill()
        server.shutdown()

    kinds = {k: sum(1 for _, kind, _ in plan if kind == k) for k in ("file", "bundle", "hls")}
    summary = [
        f"kills {kills}",
        f"downloads {len(plan)} (files {kinds['file']}, bundles {kinds['bundle']}, hls {kinds['hls']})",
        f"completed_and_byte_exact {len(verified) - sum(1 for p in problems if 'COMPLETED but' in p)}",
        f"resumed_after_failure {resumed}",
        f"requests {faults.counts['requests']}",
        f"faults cut {faults.counts['cut']}, 503 {faults.counts['503']}, 500 {faults.counts['500']}, stall {faults.counts['stall']}",
        f"range_resumes {faults.counts['range_resumes']}",
        f"problems {len(problems)}",
        f"seconds {time.time() - began:.0f}",
    ]
    text = "\n".join(summary + [f"problem: {p}" for p in problems]) + "\n"
    with open(os.path.join(out, "soak.txt"), "w") as f:
        f.write(text)
    print(text, end="")
    if problems:
        print(f"daemon log: {out}/soak-stashd.log; data kept in {work}", file=sys.stderr)
        sys.exit(1)
    if faults.counts["range_resumes"] == 0:
        print("no partial file was resumed with a Range: the run did not test resumption", file=sys.stderr)
        sys.exit(1)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
