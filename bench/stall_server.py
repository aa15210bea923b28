"""A server that accepts connections and never answers: the head download of `make bench`'s
registry workload stalls on it, so the downloads behind it stay QUEUED (max-parallel 1).

usage: stall_server.py [PORT]   prints the port it listens on (on 127.0.0.1), then serves
until killed. Connections are held open, unread, so the client waits rather than retries.
"""
import socket
import sys


def main():
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0))
    server.listen(64)
    print(server.getsockname()[1], flush=True)
    held = []
    while True:
        connection, _ = server.accept()
        held.append(connection)


if __name__ == "__main__":
    main()
