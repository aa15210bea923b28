"""A small throttled HTTP server for `make demo`: serves one file slowly enough that the
progress bar has something to show. Usage: demo_server.py FILE PORT_FILE BYTES_PER_SECOND"""
import http.server
import os
import sys
import time

path, port_file, rate = sys.argv[1], sys.argv[2], int(sys.argv[3])


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        size = os.path.getsize(path)
        self.send_response(200)
        self.send_header("Content-Length", str(size))
        self.send_header("ETag", '"demo-%d"' % size)
        self.end_headers()
        chunk = max(1, rate // 20)
        with open(path, "rb") as f:
            while True:
                data = f.read(chunk)
                if not data:
                    break
                self.wfile.write(data)
                time.sleep(0.05)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(port_file, "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
