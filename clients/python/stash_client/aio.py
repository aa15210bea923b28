"""AsyncClient: stashd from asyncio."""
import asyncio
import time

from . import records, wire
from .client import default_socket_path
from .errors import StashError
from .operations import Operations

_READ_SIZE = 65536


async def _open(path):
    try:
        return await asyncio.open_unix_connection(path)
    except OSError as error:
        hint = " (is it running? start it with `systemctl --user start stashd.socket` where stash is installed as a service, else `stashd`)" if isinstance(
            error, (FileNotFoundError, ConnectionRefusedError)) else ""
        raise StashError("UNAVAILABLE", f"cannot reach stashd at {path}: {error.strerror or error}{hint}") from None


async def _messages(reader):
    """The messages arriving on a connection; raises StashError when it fails or closes."""
    frames = wire.FrameBuffer()
    while True:
        payload = frames.next_payload()
        if payload is not None:
            yield wire.decode(payload)
            continue
        try:
            data = await reader.read(_READ_SIZE)
        except OSError as error:
            raise StashError("UNAVAILABLE", f"reading from stashd failed: {error}") from None
        if not data:
            pending = frames.pending()
            raise StashError("UNAVAILABLE", "stashd closed the connection" + (
                f" in the middle of a frame ({pending} bytes of it received)" if pending else ""))
        frames.feed(data)


class AsyncClient(Operations):
    """A connection to stashd for asyncio: ``client = await AsyncClient.connect()``.

    Every operation is a coroutine; calls may run concurrently on one client (requests are
    pipelined and answers matched by id). ``timeout`` (seconds, None: no limit) bounds each
    call's wait for its answer. ``events()`` is an async iterator on a connection of its own.
    ``daemon_version`` and ``features`` are the daemon's answer to the Hello.
    """

    client_name = "stash_client (python asyncio)"

    def __init__(self, socket_path, timeout, reader, writer):
        self.socket_path = socket_path
        self.timeout = timeout
        self._writer = writer
        self._next_id = 1
        self._pending = {}
        self._failure = None
        self._reading = asyncio.get_running_loop().create_task(self._read(reader))
        self.daemon_version = ""
        self.features = ()

    @classmethod
    async def connect(cls, socket_path=None, timeout=None):
        """Connects and says Hello; raises StashError UNAVAILABLE when nothing listens."""
        path = socket_path or default_socket_path()
        reader, writer = await _open(path)
        client = cls(path, timeout, reader, writer)
        try:
            answer = await client.hello()
        except BaseException:
            await client.close()
            raise
        client.daemon_version = answer.daemon_version
        client.features = answer.features
        return client

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self.close()

    async def close(self):
        self._fail(StashError("UNAVAILABLE", "the client is closed"))
        self._reading.cancel()
        try:
            await self._reading
        except (asyncio.CancelledError, StashError):
            pass
        self._writer.close()
        try:
            await self._writer.wait_closed()
        except OSError:
            pass

    def _fail(self, error):
        if self._failure is None:
            self._failure = error
        for future in self._pending.values():
            if not future.done():
                future.set_exception(error)
        self._pending.clear()

    async def _read(self, reader):
        try:
            async for message in _messages(reader):
                if message.response_id is None:
                    continue  # an event on a subscribed connection: events() has its own
                future = self._pending.pop(message.response_id, None)
                if future is not None and not future.done():
                    future.set_result(message)
                elif wire.refused(message):
                    self._fail(StashError(message.error.code, f"stashd refused the connection: {message.error.message}"))
        except StashError as error:
            self._fail(error)
        else:
            self._fail(StashError("UNAVAILABLE", "stashd closed the connection"))

    async def _call(self, request, expected, transform=None):
        if self._failure is not None:
            raise self._failure
        request.id = self._next_id
        self._next_id += 1
        future = asyncio.get_running_loop().create_future()
        self._pending[request.id] = future
        try:
            self._writer.write(wire.frame(request))
            await self._writer.drain()
        except OSError as error:
            self._fail(StashError("UNAVAILABLE", f"writing to stashd failed: {error}"))
        except StashError:
            self._pending.pop(request.id, None)
            raise
        try:
            message = await asyncio.wait_for(future, self.timeout)
        except asyncio.TimeoutError:
            error = StashError("UNAVAILABLE", f"no answer from stashd within {self.timeout} s")
            self._fail(error)
            self._writer.close()
            raise error from None
        result = wire.checked_result(message, request.WhichOneof("op"), expected)
        return transform(result) if transform else result

    async def list(self, state=None, group=None):
        """Every download (all pages), or those in ``state`` (a name or a list) and ``group``."""
        downloads, token = [], None
        while True:
            page = await self.list_page(state=state, group=group, page_size=1000, page_token=token)
            downloads.extend(page.downloads)
            token = page.next_page_token
            if not token:
                return downloads

    async def config_get(self, key=None):
        """The Config, or the value of one key ("max-parallel")."""
        config = await self._call(wire.empty("get_config"), "config")
        if key is None:
            return config
        attribute = key.replace("-", "_")
        if not hasattr(config, attribute):
            raise StashError("INVALID_ARGUMENT", f"config key '{key}' is not one of "
                             f"{', '.join(k.replace('_', '-') for k in config.__dataclass_fields__)}")
        return getattr(config, attribute)

    def events(self, ids=None, min_progress_step=0, min_interval_ms=0, replay_from_seq=0):
        """An async iterator of events on a connection of its own: ``async with
        client.events() as stream: async for event in stream: ...``."""
        return AsyncEventStream(self.socket_path, self.client_name, ids, min_progress_step, min_interval_ms,
                                replay_from_seq)

    async def wait(self, id, timeout=None):
        """Waits until the download is in a terminal state (COMPLETED, FAILED, LICENSE_EXPIRED,
        DRM_EXPIRED) and returns its record. Raises NOT_FOUND when it is cancelled meanwhile, and
        TimeoutError after ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        async with self.events(ids=[id]) as stream:
            record = await self.get(id)
            while record.state not in records.TERMINAL_STATES:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                try:
                    event = await asyncio.wait_for(stream.__anext__(), left)
                except asyncio.TimeoutError:
                    raise TimeoutError(f"download {id} is still {record.state} after {timeout} s") from None
                if isinstance(event, records.StateChanged) and event.download.id == id:
                    record = event.download
                elif isinstance(event, records.Removed) and event.id == id:
                    raise StashError("NOT_FOUND", f"download {id} was cancelled")
                elif isinstance(event, records.EventsLost):
                    record = await self.get(id)
            return record


class AsyncEventStream:
    """The events of one subscription; opened by ``async with`` (or the first ``async for``)."""

    def __init__(self, socket_path, client_name, ids, min_progress_step, min_interval_ms, replay_from_seq):
        self._path = socket_path
        self._requests = (wire.hello(client_name),
                          wire.subscribe(ids, min_progress_step, min_interval_ms, replay_from_seq))
        self._writer = None
        self._messages = None

    async def open(self):
        reader, self._writer = await _open(self._path)
        self._messages = _messages(reader)
        try:
            for request_id, request in enumerate(self._requests, start=1):
                request.id = request_id
                self._writer.write(wire.frame(request))
                await self._writer.drain()
                async for message in self._messages:
                    if message.response_id == request_id or wire.refused(message):
                        wire.checked_result(message, request.WhichOneof("op"), None)
                        break
        except BaseException:
            await self.close()
            raise

    async def close(self):
        if self._writer is not None:
            self._writer.close()
            try:
                await self._writer.wait_closed()
            except OSError:
                pass
        if self._messages is not None:
            await self._messages.aclose()

    async def __aenter__(self):
        await self.open()
        return self

    async def __aexit__(self, *exc):
        await self.close()

    def __aiter__(self):
        return self

    async def __anext__(self):
        if self._messages is None:
            await self.open()
        async for message in self._messages:
            if wire.refused(message):
                raise message.error
            if message.event is not None:
                return message.event
        raise StopAsyncIteration
