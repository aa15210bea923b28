"""A real stashd on a private socket and data dir, and a real HTTP server, for the client tests.

As a command, runs one test program against them:

    harness.py --bin DIR -- PROGRAM [ARGS...]

DIR holds the stashd that `swift build` made. PROGRAM gets STASH_TEST_SOCKET (the daemon's
socket), STASH_TEST_BASE_URL (the HTTP server), STASH_TEST_DAEMON_PID and STASH_TEST_WORK (a
scratch folder) in its environment; the exit status is PROGRAM's, and the daemon's log is
printed when it fails. As a module, `Fixture` gives the same to the Python tests.

The server makes up what it serves, from no file but the DASH presentation's:

    /data/SIZE/NAME   SIZE bytes (at most 1 GiB), the same bytes for the same path; a NAME
                      ending in .ts has the MPEG-TS sync byte 0x47 every 188 bytes, as stashd
                      checks in an HLS segment
    /page/NAME        a 58-byte HTML error page, served with 200 and Content-Type text/html
    /slow/SIZE/NAME   the same, at about 2 MB/s, so a download shows progress and can be paused
    /hls/master.m3u8  an HLS master of two variants (v0: 640x360, v1: 1280x720), two segments each
    /dash/manifest.mpd  a DASH presentation, real media (stashd checks a DASH segment's boxes)
                      that ffmpeg's dash muxer makes on the first request, once per process: 4 s
                      of video as two representations (256x144 at 200 kb/s, 426x240 at
                      600 kb/s) and one audio track, in 2-second segments beside it
    anything else     404

GET answers a `Range: bytes=N-` with 206, so a paused download resumes where it stopped.
"""
import argparse
import atexit
import hashlib
import http.server
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

CHUNK = 16 * 1024
SLOW_BYTES_PER_SECOND = 2_000_000
LARGEST = 1 << 30
START_TIMEOUT = 20


def content(path, first, last):
    """Bytes first..last (inclusive) of the made-up file at `path`."""
    pattern = hashlib.sha256(path.encode()).digest() * (CHUNK // 32)
    out = bytearray()
    position = first
    while position <= last:
        offset = position % len(pattern)
        take = min(len(pattern) - offset, last - position + 1)
        out += pattern[offset:offset + take]
        position += take
    if path.endswith(".ts"):
        for sync in range((first + 187) // 188 * 188, last + 1, 188):
            out[sync - first] = 0x47
    return bytes(out)


ERROR_PAGE = b"<!DOCTYPE html>\n<html><body>Chapter not found</body></html"


HLS_MASTER = """#EXTM3U
#EXT-X-STREAM-INF:BANDWIDTH=800000,AVERAGE-BANDWIDTH=700000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2"
v0.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=2400000,RESOLUTION=1280x720,CODECS="avc1.4d401f,mp4a.40.2"
v1.m3u8
"""

HLS_MEDIA = """#EXTM3U
#EXT-X-VERSION:3
#EXT-X-TARGETDURATION:4
#EXT-X-PLAYLIST-TYPE:VOD
#EXTINF:4.0,
/data/4000/{name}-seg0.ts
#EXTINF:2.5,
/data/4000/{name}-seg1.ts
#EXT-X-ENDLIST
"""


_dash_lock = threading.Lock()
_dash_folder = None


def dash_folder():
    """The folder of the DASH presentation, made by ffmpeg on the first call."""
    global _dash_folder
    with _dash_lock:
        if _dash_folder is None:
            folder = tempfile.mkdtemp(prefix="stash-clients-dash-")
            atexit.register(shutil.rmtree, folder, True)
            subprocess.run([
                "ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=256x144:rate=25:duration=4",
                "-f", "lavfi", "-i", "sine=frequency=440:duration=4", "-map", "0:v", "-map", "0:v", "-map", "1:a",
                "-c:v", "libx264", "-preset", "ultrafast", "-g", "50", "-keyint_min", "50", "-sc_threshold", "0",
                "-b:v:0", "200k", "-s:v:0", "256x144", "-b:v:1", "600k", "-s:v:1", "426x240", "-c:a", "aac", "-b:a", "64k",
                "-seg_duration", "2", "-use_template", "1", "-use_timeline", "1", "-adaptation_sets", "id=0,streams=v id=1,streams=a",
                "-f", "dash", os.path.join(folder, "manifest.mpd"),
            ], check=True)
            _dash_folder = folder
        return _dash_folder


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_HEAD(self):
        self.answer(head=True)

    def do_GET(self):
        self.answer(head=False)

    def answer(self, head):
        path = self.path.split("?")[0]
        parts = path.split("/")
        if path == "/hls/master.m3u8":
            return self.text(HLS_MASTER, head)
        if path in ("/hls/v0.m3u8", "/hls/v1.m3u8"):
            return self.text(HLS_MEDIA.format(name=parts[2][:2]), head)
        if len(parts) == 3 and parts[1] == "dash" and not parts[2].startswith("."):
            return self.dash_file(parts[2], head)
        if len(parts) == 3 and parts[1] == "page":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(ERROR_PAGE)))
            self.end_headers()
            if not head:
                self.wfile.write(ERROR_PAGE)
            return
        if len(parts) < 4 or parts[1] not in ("data", "slow") or not parts[2].isdigit() or int(parts[2]) > LARGEST:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        size = int(parts[2])
        first, last = 0, size - 1
        ranged = self.headers.get("Range", "")
        if ranged.startswith("bytes=") and ranged.endswith("-") and ranged[6:-1].isdigit() and int(ranged[6:-1]) < size:
            first = int(ranged[6:-1])
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {first}-{last}/{size}")
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(last - first + 1))
        self.send_header("ETag", '"' + hashlib.sha256(path.encode()).hexdigest()[:16] + '"')
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        if head:
            return
        slow = parts[1] == "slow"
        try:
            position = first
            while position <= last:
                end = min(position + CHUNK, last + 1)
                self.wfile.write(content(path, position, end - 1))
                position = end
                if slow:
                    time.sleep(CHUNK / SLOW_BYTES_PER_SECOND)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def dash_file(self, name, head):
        try:
            with open(os.path.join(dash_folder(), name), "rb") as file:
                data = file.read()
        except FileNotFoundError:
            data = None
        self.send_response(200 if data is not None else 404)
        if data is not None and name.endswith(".mpd"):
            self.send_header("Content-Type", "application/dash+xml")
        self.send_header("Content-Length", str(len(data or b"")))
        self.end_headers()
        if data and not head:
            self.wfile.write(data)

    def text(self, body, head):
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/vnd.apple.mpegurl")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if not head:
            self.wfile.write(data)


def wait_for_state(pid, state, timeout=5):
    """Until /proc says process `pid` is in `state` ("T": stopped): a signal is delivered
    after kill() returns."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open(f"/proc/{pid}/stat") as f:
            if f.read().rsplit(")", 1)[1].split()[0] == state:
                return
        time.sleep(0.005)
    raise RuntimeError(f"process {pid} did not enter state {state} within {timeout} s")


class Fixture:
    """A stashd and an HTTP server in a scratch folder; `stop()` ends both and removes it."""

    def __init__(self, bin_dir):
        self.work = tempfile.mkdtemp(prefix="stash-clients-")
        self.socket = os.path.join(self.work, "run", "stashd.sock")
        self.log_path = os.path.join(self.work, "stashd.log")
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        stashd = os.path.join(bin_dir, "stashd")
        if not os.access(stashd, os.X_OK):
            self.stop()
            raise RuntimeError(f"no stashd in {bin_dir}: run `swift build` first")
        # Buses that are not there: the tests never reach the machine's logind or notifications.
        no_bus = "unix:path=" + os.path.join(self.work, "no-bus")
        with open(self.log_path, "ab") as log:
            self.daemon = subprocess.Popen(
                [stashd, "--socket", self.socket, "--data-dir", os.path.join(self.work, "data"), "--log-level", "warning"],
                stdout=log, stderr=log, env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=no_bus, DBUS_SESSION_BUS_ADDRESS=no_bus))
        self.wait_until_ready()

    def wait_until_ready(self):
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.daemon.poll() is not None:
                raise RuntimeError(f"stashd exited with {self.daemon.returncode} at start:\n{self.log()}")
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                probe.connect(self.socket)
                return
            except OSError:
                time.sleep(0.05)
            finally:
                probe.close()
        self.stop()
        raise RuntimeError(f"stashd did not accept on {self.socket} within {START_TIMEOUT} s")

    def environment(self):
        return dict(os.environ, STASH_TEST_SOCKET=self.socket, STASH_TEST_BASE_URL=self.base_url,
                    STASH_TEST_DAEMON_PID=str(self.daemon.pid), STASH_TEST_WORK=self.work)

    def freeze(self):
        """Stops the daemon (SIGSTOP) and returns once it is stopped, so it answers nothing."""
        self.daemon.send_signal(signal.SIGSTOP)
        wait_for_state(self.daemon.pid, "T")

    def thaw(self):
        self.daemon.send_signal(signal.SIGCONT)

    def log(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def stop(self):
        """Stops the daemon (waking it first, in case a test left it stopped) and the server."""
        daemon = getattr(self, "daemon", None)
        if daemon and daemon.poll() is None:
            daemon.send_signal(signal.SIGCONT)
            daemon.terminate()
            try:
                daemon.wait(timeout=30)
            except subprocess.TimeoutExpired:
                daemon.kill()
                daemon.wait()
        self.server.shutdown()
        self.server.server_close()
        shutil.rmtree(self.work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", required=True, help="the folder of the stashd to run")
    parser.add_argument("command", nargs="+", help="the test program and its arguments")
    args = parser.parse_args()
    fixture = Fixture(args.bin)
    try:
        status = subprocess.run(args.command, env=fixture.environment()).returncode
        if status != 0:
            print(f"harness: {args.command[0]} exited with {status}; stashd's log:\n{fixture.log()}", file=sys.stderr)
        return status
    finally:
        fixture.stop()


if __name__ == "__main__":
    sys.exit(main())
