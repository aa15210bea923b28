"""AsyncClient: stashd from asyncio."""
import asyncio
import time
from types import TracebackType
from typing import AsyncGenerator, Dict, Iterable, List, Literal, Mapping, Optional, Tuple, Type, TypeVar, Union, Unpack, overload

from . import records, wire
from . import stash_pb2 as pb
from .client import default_socket_path
from .errors import StashError
from .options import AddOptions, Headers, TextTracks
from .records import (
    Config, Download, DownloadPage, ExportResult, HasResult, HelloResult, LicenseStatus, ManifestInfo, PlaybackKey,
    PurgeResult, Stats, Subtitles, SystemInfo, VerifyReport)

_READ_SIZE = 65536
_Result = TypeVar("_Result")


async def _open(path: str) -> Tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    try:
        return await asyncio.open_unix_connection(path)
    except OSError as error:
        hint = " (is it running? start it with `systemctl --user start stashd.socket` where stash is installed as a service, else `stashd`)" if isinstance(
            error, (FileNotFoundError, ConnectionRefusedError)) else ""
        raise StashError("UNAVAILABLE", f"cannot reach stashd at {path}: {error.strerror or error}{hint}") from None


async def _messages(reader: asyncio.StreamReader) -> AsyncGenerator[wire.Message, None]:
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


class AsyncClient:
    """A connection to stashd for asyncio: ``client = await AsyncClient.connect()``.

    Every operation of Client is a coroutine here; calls may run concurrently on one client
    (requests are pipelined and answers matched by id). ``timeout`` (seconds, None: no limit)
    bounds each call's wait for its answer. ``events()`` is an async iterator on a connection
    of its own. ``daemon_version`` and ``features`` are the daemon's answer to the Hello.
    """

    client_name = "stash_client (python asyncio)"

    def __init__(self, socket_path: str, timeout: Optional[float], reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter) -> None:
        self.socket_path = socket_path
        self.timeout = timeout
        self._writer = writer
        self._next_id = 1
        self._pending: Dict[int, "asyncio.Future[wire.Message]"] = {}
        self._failure: Optional[StashError] = None
        self._reading = asyncio.get_running_loop().create_task(self._read(reader))
        self.daemon_version = ""
        self.features: Tuple[str, ...] = ()

    @classmethod
    async def connect(cls, socket_path: Optional[str] = None, timeout: Optional[float] = None) -> "AsyncClient":
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

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, kind: Optional[Type[BaseException]], error: Optional[BaseException],
                        traceback: Optional[TracebackType]) -> None:
        await self.close()

    async def close(self) -> None:
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

    def _fail(self, error: StashError) -> None:
        if self._failure is None:
            self._failure = error
        for future in self._pending.values():
            if not future.done():
                future.set_exception(error)
        self._pending.clear()

    async def _read(self, reader: asyncio.StreamReader) -> None:
        try:
            async for message in _messages(reader):
                if message.response_id is None:
                    continue  # an event on a subscribed connection: events() has its own
                future = self._pending.pop(message.response_id, None)
                if future is not None and not future.done():
                    future.set_result(message)
                elif wire.refused(message) and message.error is not None:
                    self._fail(StashError(message.error.code, f"stashd refused the connection: {message.error.message}"))
        except StashError as error:
            self._fail(error)
        else:
            self._fail(StashError("UNAVAILABLE", "stashd closed the connection"))

    async def _answer(self, request: pb.Request) -> wire.Message:
        if self._failure is not None:
            raise self._failure
        request.id = self._next_id
        self._next_id += 1
        future: "asyncio.Future[wire.Message]" = asyncio.get_running_loop().create_future()
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
            return await asyncio.wait_for(future, self.timeout)
        except asyncio.TimeoutError:
            failure = StashError("UNAVAILABLE", f"no answer from stashd within {self.timeout} s")
            self._fail(failure)
            self._writer.close()
            raise failure from None

    async def _call(self, request: pb.Request, expected: str, kind: Type[_Result]) -> _Result:
        return wire.typed_result(await self._answer(request), request.WhichOneof("op"), expected, kind)

    async def hello(self) -> HelloResult:
        """Hello again (connecting said it): the daemon's protocol version, version and features."""
        return await self._call(wire.hello(self.client_name), "hello", HelloResult)

    async def add(self, url: Optional[str] = None, id: Optional[str] = None, title: Optional[str] = None,
            **options: Unpack[AddOptions]) -> Download:
        """Adds a download and returns its record (``created`` False when the same id or content
        was there already).

        ``url`` is the file's (or HLS master's) URL; for a bundle leave it out and give
        ``files``. ``id`` empty: the daemon picks one. Options: ``sha256`` (hex digest),
        ``headers`` (dict or pairs), ``files`` (URLs, BundleFile or dicts), ``hls`` (HlsOptions
        or dict), ``drm`` (DrmParams or dict), ``force`` (add even when another download holds
        the content), ``app_data`` (bytes, at most 64 KiB), ``group`` ("one-piece/ch-12"),
        ``append`` (add ``files`` to the bundle ``id``), ``text_tracks`` (TextTrack or dicts),
        ``rate_limit`` (bytes per second over its transfers, within the global limit; daemon
        feature "rate-limit", else UNIMPLEMENTED);
        ``expect`` (what each file must be: "image", "video", "audio", "text" or a MIME type; a
        file that is not fails with a validation error naming it, and nothing of it is kept) and
        ``min_size`` (each file's fewest bytes; a file of ``files`` may give its own); both need
        the daemon feature "content-check", without which the call raises UNIMPLEMENTED;
        ``priority`` ("high", "normal" or "low"; needs the daemon feature "priority", without
        which the call raises UNIMPLEMENTED); ``replace`` (fetch the COMPLETED download holding
        ``id``, or without an id ``url`` or ``files``, again beside the old copy and swap it in once
        complete; the old copy stays COMPLETED until then and if the replace fails, and
        ``state_reason`` says how it goes; daemon feature "replace", and "replace-any" for a
        bundle, an HLS stream or a download with text tracks, else UNIMPLEMENTED).
        A time range (``hls`` with ``start``/``end``) needs the daemon feature "time-range";
        without it the call raises UNIMPLEMENTED, as that daemon would fetch the whole stream.
        """
        wire.check_time_range(self.features, self.daemon_version, options.get("hls"))
        wire.check_rate_limit(self.features, self.daemon_version, options.get("rate_limit"))
        wire.check_priority(self.features, self.daemon_version, options.get("priority") not in (None, "normal", "NORMAL", "PRIORITY_NORMAL"))
        wire.check_replace(self.features, self.daemon_version, bool(options.get("replace")))
        wire.check_desktop(self.features, self.daemon_version, options.get("network") is not None or options.get("on_battery") is not None)
        request = wire.add(url, id, title, options)
        wire.check_content_rules(self.features, self.daemon_version, request.add_download)
        wire.check_replace_any(self.features, self.daemon_version, request.add_download)
        return await self._call(request, "download", Download)

    async def get(self, id: str) -> Download:
        """The download's record (NOT_FOUND for an unknown id)."""
        return await self._call(wire.by_id("get_download", id), "download", Download)

    async def has(self, id: str) -> HasResult:
        """HasResult: true when the download exists, with its state; cheap."""
        return await self._call(wire.by_id("has_download", id), "has", HasResult)

    async def list_page(self, state: Union[str, Iterable[str], None] = None, group: Optional[str] = None, page_size: int = 0,
                  page_token: Optional[str] = None) -> DownloadPage:
        """One page of ListDownloads: DownloadPage with the downloads, ``next_page_token`` ("" on
        the last page), ``total`` and the ``totals`` of every match. ``state`` is a state's name
        or a list of them; ``group`` takes that group and those under it."""
        return await self._call(wire.list_downloads(state, group, page_size, page_token), "list", DownloadPage)

    async def list(self, state: Union[str, Iterable[str], None] = None, group: Optional[str] = None) -> List[Download]:
        """Every download (all pages), or those in ``state`` (a name or a list) and ``group``."""
        downloads: List[Download] = []
        token: Optional[str] = None
        while True:
            page = await self.list_page(state=state, group=group, page_size=1000, page_token=token)
            downloads.extend(page.downloads)
            token = page.next_page_token
            if not token:
                return downloads

    async def pause(self, id: str) -> Download:
        """Pauses a download (its partial files stay); returns the record."""
        return await self._call(wire.by_id("pause", id), "download", Download)

    async def resume(self, id: str) -> Download:
        """Queues a PAUSED, FAILED or STOPPED download again; returns the record."""
        return await self._call(wire.by_id("resume", id), "download", Download)

    async def cancel(self, id: str) -> None:
        """Stops a download and deletes its files and record before it returns."""
        request = wire.by_id("cancel", id)
        wire.checked_result(await self._answer(request), "cancel", None)

    async def stop(self, id: str, reason: Optional[str] = None) -> Download:
        """Stops a download for the app's reason (STOPPED); only its resume lifts it."""
        return await self._call(wire.stop(id, reason), "download", Download)

    async def forget(self, id: str, move_to: str) -> Download:
        """Moves a COMPLETED download's files to the folder ``move_to`` and drops its record."""
        return await self._call(wire.forget(id, move_to), "download", Download)

    async def adopt(self, path: str, id: str, url: Optional[str] = None, sha256: Optional[str] = None,
              link: bool = False) -> Download:
        """Takes a file or folder at the absolute ``path`` as the COMPLETED download ``id``."""
        return await self._call(wire.adopt(path, id, url, sha256, link), "download", Download)

    async def pause_all(self) -> int:
        """Pauses every download that can be; returns how many."""
        return await self._call(wire.empty("pause_all"), "count", int)

    async def resume_all(self) -> int:
        """Resumes every PAUSED and FAILED download (not the STOPPED); returns how many."""
        return await self._call(wire.empty("resume_all"), "count", int)

    async def cancel_all(self) -> int:
        """Cancels every download; returns how many."""
        return await self._call(wire.empty("cancel_all"), "count", int)

    async def set_download(self, id: str, *, priority: Optional[str] = None, rate_limit: Optional[int] = None,
                     uri: Optional[str] = None, file: Optional[str] = None, headers: Optional[Headers] = None,
                     clear_headers: bool = False, license_headers: Optional[Headers] = None,
                     clear_license_headers: bool = False) -> Download:
        """Changes several settings of a download in one request, as the calls of one setting
        below do each: the daemon checks them all before it applies any, so one refused (licence
        headers for a download without DRM) changes nothing. Each needs its call's feature."""
        request = wire.set_download(self.features, self.daemon_version, id, priority, rate_limit, uri, file, headers,
                                    clear_headers, license_headers, clear_license_headers)
        return await self._call(request, "download", Download)

    async def set_priority(self, id: str, priority: str) -> Download:
        """Gives a download another priority ("high", "normal" or "low"); a QUEUED one goes to the
        end of its new priority's queue. Needs the daemon feature "priority"."""
        wire.check_priority(self.features, self.daemon_version)
        return await self._call(wire.set_priority(id, priority), "download", Download)

    async def set_rate_limit(self, id: str, rate_limit: int) -> Download:
        """Gives a download its own rate limit in bytes per second (0 = none), within the global
        one; its running transfers take it at once. Needs the daemon feature "set-download"."""
        wire.check_set_download(self.features, self.daemon_version)
        return await self._call(wire.set_rate_limit(id, rate_limit), "download", Download)

    async def set_desktop_rules(self, id: str, *, network: Optional[str] = None, on_battery: Optional[str] = None) -> Download:
        """Gives a download its own network rule ("any" or "unmetered"), on-battery rule
        ("continue" or "pause") or both, in place of the daemon's config; it waits or goes on
        under them at once. Needs the daemon feature "desktop"."""
        wire.check_desktop(self.features, self.daemon_version, True)
        return await self._call(wire.set_desktop_rules(id, network, on_battery), "download", Download)

    async def set_uri(self, id: str, uri: str, file: Optional[str] = None) -> Download:
        """Gives a single-file download a new URL (a renewed signed one), or with ``file`` (its
        path) one file of a bundle: the bytes held are kept when the new URL serves the same
        content (its ETag, else Last-Modified, and its size); a running download restarts on
        it, a failed one waits for resume. Needs the daemon feature "set-uri" ("set-file-uri"
        with ``file``)."""
        wire.check_set_uri(self.features, self.daemon_version, file)
        return await self._call(wire.set_uri(id, uri, file), "download", Download)

    async def set_headers(self, id: str, headers: Optional[Headers] = None, *, clear: bool = False) -> Download:
        """Changes the headers a download's requests carry: ``clear`` drops them all first, then
        each header given (a dict, pairs or Header records) replaces those of its name (in any
        case) or is added. The transfers started from then on carry them; a running download
        restarts on them, keeping its bytes. Needs the daemon feature "set-headers"."""
        wire.check_set_headers(self.features, self.daemon_version)
        return await self._call(wire.set_headers(id, headers, clear), "download", Download)

    async def set_license_headers(self, id: str, headers: Optional[Headers] = None, *, clear: bool = False) -> Download:
        """The same for the headers of the download's licence requests; a licence whose renewal
        the server refused (an expired token's 401) is asked for again at once with them.
        Needs the daemon feature "set-headers"."""
        wire.check_set_headers(self.features, self.daemon_version)
        return await self._call(wire.set_headers(id, headers, clear, license=True), "download", Download)

    async def move(self, id: str, *, top: bool = False, bottom: bool = False, before: Optional[str] = None,
             after: Optional[str] = None) -> Download:
        """Moves a QUEUED download: to the ``top`` or ``bottom`` of its priority, or just
        ``before`` or ``after`` another QUEUED download (taking its priority); exactly one.
        Needs the daemon feature "priority"."""
        wire.check_priority(self.features, self.daemon_version)
        return await self._call(wire.move(id, top, bottom, before, after), "download", Download)

    async def queue(self, group: Optional[str] = None) -> List[Download]:
        """The QUEUED downloads (of ``group``) in the order they will get a slot."""
        return await self.list(state="QUEUED", group=group)

    async def pause_group(self, group: str) -> int:
        """Pauses what can be paused of ``group`` and the groups under it ("one-piece" takes
        "one-piece/ch-12", not "one-piece-2") in one request; returns how many. Needs a daemon
        with the feature "group-ops" (an older one answers UNIMPLEMENTED)."""
        return await self._call(wire.group("pause_group", group), "count", int)

    async def resume_group(self, group: str, include_failed: bool = False) -> int:
        """Resumes the PAUSED downloads of ``group`` and those under it, the FAILED ones too with
        ``include_failed``, never the STOPPED ones; returns how many ("group-ops")."""
        return await self._call(wire.group("resume_group", group, include_failed), "count", int)

    async def cancel_group(self, group: str) -> int:
        """Cancels every download of ``group`` and those under it, deleting their files; returns
        how many ("group-ops")."""
        return await self._call(wire.group("cancel_group", group), "count", int)

    async def stats(self) -> Stats:
        """Speed, downloads per state, transfers running, bytes received since the start."""
        return await self._call(wire.empty("get_stats"), "stats", Stats)

    async def info(self) -> SystemInfo:
        """SystemInfo: paths, disk space, bytes held (per state), the last verify, warnings."""
        return await self._call(wire.empty("get_system_info"), "system_info", SystemInfo)

    @overload
    async def config_get(self, key: None = None) -> Config: ...

    @overload
    # Checked first, so the one text key is typed str and the others int; mypy calls any such
    # narrowing of str an overlap.
    async def config_get(self, key: Literal["rate-schedule"]) -> str: ...  # type: ignore[misc]

    @overload
    async def config_get(self, key: str) -> int: ...

    async def config_get(self, key: Optional[str] = None) -> Union[Config, int, str]:
        """The Config, or the value of one key ("max-parallel"; "rate-schedule" is text)."""
        return wire.config_value(await self._call(wire.empty("get_config"), "config", Config), key)

    async def config_set(self, key: Union[str, Mapping[str, object]], value: object = None) -> Config:
        """Sets ``key`` to ``value``, or every entry of a dict ``key`` (all or none); returns the
        Config after the change. Keys as in PROTOCOL.md section 10 ("max-parallel")."""
        return await self._call(wire.set_config(key, value), "config", Config)

    async def verify(self, deep: bool = False, repair: bool = False, dry_run: bool = False) -> VerifyReport:
        """Compares the registry with the disk; returns the VerifyReport."""
        return await self._call(wire.verify(deep, repair, dry_run), "verify", VerifyReport)

    async def purge(self) -> PurgeResult:
        """Deletes what no download owns; returns what was deleted."""
        return await self._call(wire.empty("purge"), "purge", PurgeResult)

    async def plan(self, uri: str, headers: Optional[Headers] = None, start: Optional[float] = None,
             end: Optional[float] = None) -> ManifestInfo:
        """What an HLS stream offers (variants, renditions, sizes); nothing is stored. With
        ``start``/``end`` (seconds, feature "time-range"), the sizes are that time range's."""
        wire.check_time_range(self.features, self.daemon_version, start=start, end=end)
        return await self._call(wire.plan(uri, headers, start, end), "manifest_info", ManifestInfo)

    async def export(self, id: str, dir: str, decrypt: bool = False) -> ExportResult:
        """Writes a COMPLETED HLS download to the absolute folder ``dir`` as a playable package."""
        return await self._call(wire.export(id, dir, decrypt), "export", ExportResult)

    async def export_file(self, id: str, file: str, format: Optional[str] = None, force: bool = False,
                          link: bool = False) -> ExportResult:
        """Writes a COMPLETED download as one file at the absolute path ``file``: an HLS
        download remuxed without re-encoding into MP4 or Matroska (``format`` "mp4" or "mkv",
        else the extension's), each audio and subtitle rendition a track; a single file copied,
        or with ``link`` hard-linked. An existing file is replaced only with ``force``. While it
        runs, ``events(ids=[id])`` yields ExportProgress. Needs a daemon with "export-file"."""
        return await self._call(wire.export_file(id, file, format, force, link), "export", ExportResult)

    async def subtitles_get(self, id: str) -> Subtitles:
        """The subtitle renditions and text tracks a download keeps."""
        return await self._call(wire.by_id("get_subtitles", id), "subtitles", Subtitles)

    async def subtitles_add(self, id: str, languages: Optional[Iterable[str]] = None,
                      text_tracks: Optional[TextTracks] = None) -> Download:
        """Adds languages of an HLS download, or text tracks to any download; returns the record."""
        return await self._call(wire.subtitles("add_subtitles", id, languages, text_tracks), "download", Download)

    async def subtitles_remove(self, id: str, languages: Iterable[str]) -> Download:
        """Removes languages (renditions and text tracks) offline; returns the record."""
        return await self._call(wire.subtitles("remove_subtitles", id, languages, None), "download", Download)

    async def license_get(self, id: str) -> LicenseStatus:
        """Asks the licence server for the download's keys (DownloadLicense)."""
        return await self._call(wire.by_id("download_license", id), "license", LicenseStatus)

    async def license_check(self, id: str) -> LicenseStatus:
        """The licence's status now."""
        return await self._call(wire.by_id("check_license", id), "license", LicenseStatus)

    async def license_renew(self, id: str) -> LicenseStatus:
        """Asks the licence server to renew the licence now."""
        return await self._call(wire.by_id("renew_license", id), "license", LicenseStatus)

    async def license_release(self, id: str) -> LicenseStatus:
        """Gives the licence back and deletes its keys."""
        return await self._call(wire.by_id("release_license", id), "license", LicenseStatus)

    async def license_release_all(self) -> int:
        """Releases every licence held; returns how many."""
        return await self._call(wire.empty("release_all_licenses"), "count", int)

    async def playback_key(self, id: str, key_id: Optional[str] = None) -> PlaybackKey:
        """A 16-byte content key for a player (only to the daemon's own user, while the licence
        is valid); ``key_id`` None: the licence's first key."""
        return await self._call(wire.playback_key(id, key_id), "playback_key", PlaybackKey)

    def events(self, ids: Optional[Iterable[str]] = None, min_progress_step: int = 0, min_interval_ms: int = 0,
               replay_from_seq: int = 0, states: Union[str, Iterable[str], None] = None) -> "AsyncEventStream":
        """An async iterator of events on a connection of its own: ``async with
        client.events() as stream: async for event in stream: ...``. ``states``: only changes
        into these, Removed and EventsLost, as with ``StashClient.events``."""
        return AsyncEventStream(self.socket_path, self.client_name, ids, min_progress_step, min_interval_ms,
                                replay_from_seq, states)

    async def wait(self, id: str, timeout: Optional[float] = None) -> Download:
        """Waits until the download is in a terminal state (COMPLETED, FAILED, LICENSE_EXPIRED,
        DRM_EXPIRED) and returns its record. Raises NOT_FOUND when it is cancelled meanwhile, and
        TimeoutError after ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        async with self.events(ids=[id]) as stream:
            record = await self.get(id)
            # Events already in the stream may be older than the record read after it: they
            # are skipped until the change that leaves the record's state.
            awaiting = True
            while record.state not in records.TERMINAL_STATES:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                try:
                    event = await asyncio.wait_for(stream.__anext__(), left)
                except asyncio.TimeoutError:
                    raise TimeoutError(f"download {id} is still {record.state} after {timeout} s") from None
                if isinstance(event, records.StateChanged) and event.download.id == id:
                    if awaiting and event.previous != record.state:
                        continue
                    awaiting = False
                    record = event.download
                elif isinstance(event, records.Removed) and event.id == id:
                    raise StashError("NOT_FOUND", f"download {id} was cancelled")
                elif isinstance(event, records.EventsLost):
                    record = await self.get(id)
                    awaiting = True
            return record


class AsyncEventStream:
    """The events of one subscription; opened by ``async with`` (or the first ``async for``)."""

    def __init__(self, socket_path: str, client_name: str, ids: Optional[Iterable[str]], min_progress_step: int,
                 min_interval_ms: int, replay_from_seq: int, states: Union[str, Iterable[str], None] = None) -> None:
        self._path = socket_path
        self._requests = (wire.hello(client_name),
                          wire.subscribe(ids, min_progress_step, min_interval_ms, replay_from_seq, states))
        self._writer: Optional[asyncio.StreamWriter] = None
        self._messages: Optional[AsyncGenerator[wire.Message, None]] = None

    async def open(self) -> AsyncGenerator[wire.Message, None]:
        """Connects and subscribes; the messages that follow."""
        reader, writer = await _open(self._path)
        self._writer = writer
        messages = self._messages = _messages(reader)
        try:
            for request_id, request in enumerate(self._requests, start=1):
                request.id = request_id
                writer.write(wire.frame(request))
                await writer.drain()
                async for message in messages:
                    if message.response_id == request_id or wire.refused(message):
                        wire.checked_result(message, request.WhichOneof("op"), None)
                        break
        except BaseException:
            await self.close()
            raise
        return messages

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            try:
                await self._writer.wait_closed()
            except OSError:
                pass
        if self._messages is not None:
            await self._messages.aclose()

    async def __aenter__(self) -> "AsyncEventStream":
        await self.open()
        return self

    async def __aexit__(self, kind: Optional[Type[BaseException]], error: Optional[BaseException],
                        traceback: Optional[TracebackType]) -> None:
        await self.close()

    def __aiter__(self) -> "AsyncEventStream":
        return self

    async def __anext__(self) -> records.Event:
        messages = self._messages if self._messages is not None else await self.open()
        async for message in messages:
            if wire.refused(message) and message.error is not None:
                raise message.error
            if message.event is not None:
                return message.event
        raise StopAsyncIteration
