"""Client: a blocking connection to stashd."""
import os
import socket
import threading
import time

from . import records, wire
from .errors import StashError
from .operations import Operations


def default_socket_path():
    """The daemon's default socket: $XDG_RUNTIME_DIR/stash/stashd.sock, or
    /tmp/stash-$UID/stashd.sock when XDG_RUNTIME_DIR is unset or empty."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return os.path.join(runtime, "stash", "stashd.sock")
    return f"/tmp/stash-{os.getuid()}/stashd.sock"


class _Connection:
    """One socket and the frames on it; any failure closes it for good."""

    def __init__(self, path, timeout):
        self.path = path
        self.timeout = timeout
        self.frames = wire.FrameBuffer()
        self.failure = None
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.sock.settimeout(timeout)
            self.sock.connect(path)
        except OSError as error:
            self.sock.close()
            hint = " (is it running? start it with `systemctl --user start stashd.socket` where stash is installed as a service, else `stashd`)" if isinstance(
                error, (FileNotFoundError, ConnectionRefusedError)) else ""
            raise StashError("UNAVAILABLE", f"cannot reach stashd at {path}: {error.strerror or error}{hint}") from None

    def fail(self, error):
        if self.failure is None:
            self.failure = error
            self.sock.close()
        raise error

    def send(self, request):
        if self.failure is not None:
            raise self.failure
        data = wire.frame(request)
        try:
            self.sock.sendall(data)
        except socket.timeout:
            self.fail(StashError("UNAVAILABLE", f"stashd took no request within {self.timeout} s"))
        except OSError as error:
            self.fail(StashError("UNAVAILABLE", f"writing to stashd failed: {error}"))

    def receive(self, deadline=None):
        """The next message; None when `deadline` (monotonic seconds) passes first."""
        if self.failure is not None:
            raise self.failure
        while True:
            try:
                payload = self.frames.next_payload()
                if payload is not None:
                    return wire.decode(payload)
            except StashError as error:
                self.fail(error)
            wait = self.timeout
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                wait = left if wait is None else min(wait, left)
            try:
                self.sock.settimeout(wait)
                data = self.sock.recv(65536)
            except socket.timeout:
                if deadline is not None and time.monotonic() >= deadline:
                    return None
                self.fail(StashError("UNAVAILABLE", f"no answer from stashd within {self.timeout} s"))
            except OSError as error:
                self.fail(StashError("UNAVAILABLE", f"reading from stashd failed: {error}"))
            if not data:
                pending = self.frames.pending()
                self.fail(StashError("UNAVAILABLE", "stashd closed the connection" + (
                    f" in the middle of a frame ({pending} bytes of it received)" if pending else "")))
            self.frames.feed(data)

    def close(self):
        if self.failure is None:
            self.failure = StashError("UNAVAILABLE", "the client is closed")
            self.sock.close()


class Client(Operations):
    """A blocking connection to stashd; it says Hello when made.

    ``socket_path`` None is the daemon's default socket. ``timeout`` (seconds, None: no
    limit) bounds each call's wait for its answer; a call that times out raises UNAVAILABLE
    and closes the client. One call runs at a time (calls from several threads take turns).
    Use it as a context manager, or call ``close()``.

    ``daemon_version`` and ``features`` are the daemon's answer to the Hello.
    """

    client_name = "stash_client (python)"

    def __init__(self, socket_path=None, timeout=None):
        self.socket_path = socket_path or default_socket_path()
        self.timeout = timeout
        self._lock = threading.Lock()
        self._next_id = 1
        self._connection = _Connection(self.socket_path, timeout)
        try:
            answer = self.hello()
        except BaseException:
            self._connection.close()
            raise
        self.daemon_version = answer.daemon_version
        self.features = answer.features

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self._connection.close()

    def _call(self, request, expected, transform=None):
        with self._lock:
            request.id = self._next_id
            self._next_id += 1
            # The timeout bounds the whole call: a peer that sends a byte now and then must not
            # hold it forever, as a timeout of each read alone would allow.
            deadline = None if self.timeout is None else time.monotonic() + self.timeout
            self._connection.send(request)
            while True:
                message = self._connection.receive(deadline)
                if message is None:
                    self._connection.fail(StashError("UNAVAILABLE", f"no answer from stashd within {self.timeout} s"))
                if message.response_id == request.id:
                    break
                if wire.refused(message):
                    self._connection.fail(StashError(message.error.code,
                                                     f"stashd refused the connection: {message.error.message}"))
                # Events on a subscribed connection wait in their own iterator (events()), and
                # a response to nothing in flight is dropped.
        result = wire.checked_result(message, request.WhichOneof("op"), expected)
        return transform(result) if transform else result

    def list(self, state=None, group=None):
        """Every download (all pages), or those in ``state`` (a name or a list) and ``group``."""
        downloads, token = [], None
        while True:
            page = self.list_page(state=state, group=group, page_size=1000, page_token=token)
            downloads.extend(page.downloads)
            token = page.next_page_token
            if not token:
                return downloads

    def config_get(self, key=None):
        """The Config, or the value of one key ("max-parallel")."""
        config = self._call(wire.empty("get_config"), "config")
        if key is None:
            return config
        attribute = key.replace("-", "_")
        if not hasattr(config, attribute):
            raise StashError("INVALID_ARGUMENT", f"config key '{key}' is not one of "
                             f"{', '.join(k.replace('_', '-') for k in config.__dataclass_fields__)}")
        return getattr(config, attribute)

    def events(self, ids=None, min_progress_step=0, min_interval_ms=0, replay_from_seq=0):
        """An iterator of events (StateChanged, Progress, Removed, LicenseEvent, EventsLost) on a
        connection of its own, until it is closed (``close()`` on the iterator, or leaving a
        ``with`` block around it). ``ids`` empty: every download."""
        return EventStream(self.socket_path, self.client_name, ids, min_progress_step, min_interval_ms, replay_from_seq)

    def wait(self, id, timeout=None):
        """Waits until the download is in a terminal state (COMPLETED, FAILED, LICENSE_EXPIRED,
        DRM_EXPIRED) and returns its record. Raises NOT_FOUND when it is cancelled meanwhile, and
        TimeoutError after ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        # Subscribed first, so a change between the read and the subscription is still seen.
        with self.events(ids=[id]) as stream:
            record = self.get(id)
            while record.state not in records.TERMINAL_STATES:
                event = stream.next(deadline)
                if event is None:
                    raise TimeoutError(f"download {id} is still {record.state} after {timeout} s")
                if isinstance(event, records.StateChanged) and event.download.id == id:
                    record = event.download
                elif isinstance(event, records.Removed) and event.id == id:
                    raise StashError("NOT_FOUND", f"download {id} was cancelled")
                elif isinstance(event, records.EventsLost):
                    record = self.get(id)
            return record


class EventStream:
    """The events of one subscription, as an iterator; its own connection to the daemon."""

    def __init__(self, socket_path, client_name, ids, min_progress_step, min_interval_ms, replay_from_seq):
        self._connection = _Connection(socket_path, None)
        try:
            for request_id, request in enumerate(
                    (wire.hello(client_name),
                     wire.subscribe(ids, min_progress_step, min_interval_ms, replay_from_seq)), start=1):
                request.id = request_id
                self._connection.send(request)
                while True:
                    message = self._connection.receive()
                    if message.response_id == request_id or wire.refused(message):
                        wire.checked_result(message, request.WhichOneof("op"), None)
                        break
        except BaseException:
            self._connection.close()
            raise

    def __iter__(self):
        return self

    def __next__(self):
        event = self.next()
        if event is None:
            raise StopIteration
        return event

    def next(self, deadline=None):
        """The next event; None when ``deadline`` (time.monotonic() seconds) passes first."""
        while True:
            message = self._connection.receive(deadline)
            if message is None:
                return None
            if wire.refused(message):
                self._connection.fail(message.error)
            if message.event is not None:
                return message.event

    def close(self):
        self._connection.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
