"""Client: a blocking connection to stashd."""
import os
import socket
import threading
import time
from types import TracebackType
from typing import Iterable, Literal, List, Mapping, NoReturn, Optional, Type, TypeVar, Union, Unpack, overload

from . import records, wire
from . import stash_pb2 as pb
from .errors import StashError
from .options import AddOptions, Headers, TextTracks
from .records import (
    Config, Download, DownloadPage, ExportResult, HasResult, HelloResult, LicenseStatus, ManifestInfo, PlaybackKey,
    PurgeResult, Stats, Subtitles, SystemInfo, VerifyReport)

_Result = TypeVar("_Result")


def default_socket_path() -> str:
    """The daemon's default socket: $XDG_RUNTIME_DIR/stash/stashd.sock, or
    /tmp/stash-$UID/stashd.sock when XDG_RUNTIME_DIR is unset or empty."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return os.path.join(runtime, "stash", "stashd.sock")
    return f"/tmp/stash-{os.getuid()}/stashd.sock"


class _Connection:
    """One socket and the frames on it; any failure closes it for good."""

    def __init__(self, path: str, timeout: Optional[float]) -> None:
        self.path = path
        self.timeout = timeout
        self.frames = wire.FrameBuffer()
        self.failure: Optional[StashError] = None
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.sock.settimeout(timeout)
            self.sock.connect(path)
        except OSError as error:
            self.sock.close()
            hint = " (is it running? start it with `systemctl --user start stashd.socket` where stash is installed as a service, else `stashd`)" if isinstance(
                error, (FileNotFoundError, ConnectionRefusedError)) else ""
            raise StashError("UNAVAILABLE", f"cannot reach stashd at {path}: {error.strerror or error}{hint}") from None

    def fail(self, error: StashError) -> NoReturn:
        if self.failure is None:
            self.failure = error
            self.sock.close()
        raise error

    def send(self, request: pb.Request) -> None:
        if self.failure is not None:
            raise self.failure
        data = wire.frame(request)
        try:
            self.sock.sendall(data)
        except socket.timeout:
            self.fail(StashError("UNAVAILABLE", f"stashd took no request within {self.timeout} s"))
        except OSError as error:
            self.fail(StashError("UNAVAILABLE", f"writing to stashd failed: {error}"))

    def receive(self, deadline: Optional[float] = None) -> Optional[wire.Message]:
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

    def close(self) -> None:
        if self.failure is None:
            self.failure = StashError("UNAVAILABLE", "the client is closed")
            self.sock.close()


class Client:
    """A blocking connection to stashd; it says Hello when made.

    ``socket_path`` None is the daemon's default socket. ``timeout`` (seconds, None: no
    limit) bounds each call's wait for its answer; a call that times out raises UNAVAILABLE
    and closes the client. One call runs at a time (calls from several threads take turns).
    Use it as a context manager, or call ``close()``.

    ``daemon_version`` and ``features`` are the daemon's answer to the Hello. Every operation
    raises StashError when the daemon refuses (its ``code`` and ``message`` name what and why)
    or cannot be reached. AsyncClient has the same operations as coroutines.
    """

    client_name = "stash_client (python)"

    def __init__(self, socket_path: Optional[str] = None, timeout: Optional[float] = None) -> None:
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

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], error: Optional[BaseException],
                 traceback: Optional[TracebackType]) -> None:
        self.close()

    def close(self) -> None:
        self._connection.close()

    def _answer(self, request: pb.Request) -> wire.Message:
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
                    return message
                if wire.refused(message) and message.error is not None:
                    self._connection.fail(StashError(message.error.code,
                                                     f"stashd refused the connection: {message.error.message}"))
                # Events on a subscribed connection wait in their own iterator (events()), and
                # a response to nothing in flight is dropped.

    def _call(self, request: pb.Request, expected: str, kind: Type[_Result]) -> _Result:
        return wire.typed_result(self._answer(request), request.WhichOneof("op"), expected, kind)

    def hello(self) -> HelloResult:
        """Hello again (connecting said it): the daemon's protocol version, version and features."""
        return self._call(wire.hello(self.client_name), "hello", HelloResult)

    def add(self, url: Optional[str] = None, id: Optional[str] = None, title: Optional[str] = None,
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
        return self._call(request, "download", Download)

    def get(self, id: str) -> Download:
        """The download's record (NOT_FOUND for an unknown id)."""
        return self._call(wire.by_id("get_download", id), "download", Download)

    def has(self, id: str) -> HasResult:
        """HasResult: true when the download exists, with its state; cheap."""
        return self._call(wire.by_id("has_download", id), "has", HasResult)

    def list_page(self, state: Union[str, Iterable[str], None] = None, group: Optional[str] = None, page_size: int = 0,
                  page_token: Optional[str] = None) -> DownloadPage:
        """One page of ListDownloads: DownloadPage with the downloads, ``next_page_token`` ("" on
        the last page), ``total`` and the ``totals`` of every match. ``state`` is a state's name
        or a list of them; ``group`` takes that group and those under it."""
        return self._call(wire.list_downloads(state, group, page_size, page_token), "list", DownloadPage)

    def list(self, state: Union[str, Iterable[str], None] = None, group: Optional[str] = None) -> List[Download]:
        """Every download (all pages), or those in ``state`` (a name or a list) and ``group``."""
        downloads: List[Download] = []
        token: Optional[str] = None
        while True:
            page = self.list_page(state=state, group=group, page_size=1000, page_token=token)
            downloads.extend(page.downloads)
            token = page.next_page_token
            if not token:
                return downloads

    def pause(self, id: str) -> Download:
        """Pauses a download (its partial files stay); returns the record."""
        return self._call(wire.by_id("pause", id), "download", Download)

    def resume(self, id: str) -> Download:
        """Queues a PAUSED, FAILED or STOPPED download again; returns the record."""
        return self._call(wire.by_id("resume", id), "download", Download)

    def cancel(self, id: str) -> None:
        """Stops a download and deletes its files and record before it returns."""
        request = wire.by_id("cancel", id)
        wire.checked_result(self._answer(request), "cancel", None)

    def stop(self, id: str, reason: Optional[str] = None) -> Download:
        """Stops a download for the app's reason (STOPPED); only its resume lifts it."""
        return self._call(wire.stop(id, reason), "download", Download)

    def forget(self, id: str, move_to: str) -> Download:
        """Moves a COMPLETED download's files to the folder ``move_to`` and drops its record."""
        return self._call(wire.forget(id, move_to), "download", Download)

    def adopt(self, path: str, id: str, url: Optional[str] = None, sha256: Optional[str] = None,
              link: bool = False) -> Download:
        """Takes a file or folder at the absolute ``path`` as the COMPLETED download ``id``."""
        return self._call(wire.adopt(path, id, url, sha256, link), "download", Download)

    def pause_all(self) -> int:
        """Pauses every download that can be; returns how many."""
        return self._call(wire.empty("pause_all"), "count", int)

    def resume_all(self) -> int:
        """Resumes every PAUSED and FAILED download (not the STOPPED); returns how many."""
        return self._call(wire.empty("resume_all"), "count", int)

    def cancel_all(self) -> int:
        """Cancels every download; returns how many."""
        return self._call(wire.empty("cancel_all"), "count", int)

    def set_download(self, id: str, *, priority: Optional[str] = None, rate_limit: Optional[int] = None,
                     uri: Optional[str] = None, file: Optional[str] = None, headers: Optional[Headers] = None,
                     clear_headers: bool = False, license_headers: Optional[Headers] = None,
                     clear_license_headers: bool = False) -> Download:
        """Changes several settings of a download in one request, as the calls of one setting
        below do each: the daemon checks them all before it applies any, so one refused (licence
        headers for a download without DRM) changes nothing. Each needs its call's feature."""
        request = wire.set_download(self.features, self.daemon_version, id, priority, rate_limit, uri, file, headers,
                                    clear_headers, license_headers, clear_license_headers)
        return self._call(request, "download", Download)

    def set_priority(self, id: str, priority: str) -> Download:
        """Gives a download another priority ("high", "normal" or "low"); a QUEUED one goes to the
        end of its new priority's queue. Needs the daemon feature "priority"."""
        wire.check_priority(self.features, self.daemon_version)
        return self._call(wire.set_priority(id, priority), "download", Download)

    def set_rate_limit(self, id: str, rate_limit: int) -> Download:
        """Gives a download its own rate limit in bytes per second (0 = none), within the global
        one; its running transfers take it at once. Needs the daemon feature "set-download"."""
        wire.check_set_download(self.features, self.daemon_version)
        return self._call(wire.set_rate_limit(id, rate_limit), "download", Download)

    def set_desktop_rules(self, id: str, *, network: Optional[str] = None, on_battery: Optional[str] = None) -> Download:
        """Gives a download its own network rule ("any" or "unmetered"), on-battery rule
        ("continue" or "pause") or both, in place of the daemon's config; it waits or goes on
        under them at once. Needs the daemon feature "desktop"."""
        wire.check_desktop(self.features, self.daemon_version, True)
        return self._call(wire.set_desktop_rules(id, network, on_battery), "download", Download)

    def set_uri(self, id: str, uri: str, file: Optional[str] = None) -> Download:
        """Gives a single-file download a new URL (a renewed signed one), or with ``file`` (its
        path) one file of a bundle: the bytes held are kept when the new URL serves the same
        content (its ETag, else Last-Modified, and its size); a running download restarts on
        it, a failed one waits for resume. Needs the daemon feature "set-uri" ("set-file-uri"
        with ``file``)."""
        wire.check_set_uri(self.features, self.daemon_version, file)
        return self._call(wire.set_uri(id, uri, file), "download", Download)

    def set_headers(self, id: str, headers: Optional[Headers] = None, *, clear: bool = False) -> Download:
        """Changes the headers a download's requests carry: ``clear`` drops them all first, then
        each header given (a dict, pairs or Header records) replaces those of its name (in any
        case) or is added. The transfers started from then on carry them; a running download
        restarts on them, keeping its bytes. Needs the daemon feature "set-headers"."""
        wire.check_set_headers(self.features, self.daemon_version)
        return self._call(wire.set_headers(id, headers, clear), "download", Download)

    def set_license_headers(self, id: str, headers: Optional[Headers] = None, *, clear: bool = False) -> Download:
        """The same for the headers of the download's licence requests; a licence whose renewal
        the server refused (an expired token's 401) is asked for again at once with them.
        Needs the daemon feature "set-headers"."""
        wire.check_set_headers(self.features, self.daemon_version)
        return self._call(wire.set_headers(id, headers, clear, license=True), "download", Download)

    def move(self, id: str, *, top: bool = False, bottom: bool = False, before: Optional[str] = None,
             after: Optional[str] = None) -> Download:
        """Moves a QUEUED download: to the ``top`` or ``bottom`` of its priority, or just
        ``before`` or ``after`` another QUEUED download (taking its priority); exactly one.
        Needs the daemon feature "priority"."""
        wire.check_priority(self.features, self.daemon_version)
        return self._call(wire.move(id, top, bottom, before, after), "download", Download)

    def queue(self, group: Optional[str] = None) -> List[Download]:
        """The QUEUED downloads (of ``group``) in the order they will get a slot."""
        return self.list(state="QUEUED", group=group)

    def pause_group(self, group: str) -> int:
        """Pauses what can be paused of ``group`` and the groups under it ("one-piece" takes
        "one-piece/ch-12", not "one-piece-2") in one request; returns how many. Needs a daemon
        with the feature "group-ops" (an older one answers UNIMPLEMENTED)."""
        return self._call(wire.group("pause_group", group), "count", int)

    def resume_group(self, group: str, include_failed: bool = False) -> int:
        """Resumes the PAUSED downloads of ``group`` and those under it, the FAILED ones too with
        ``include_failed``, never the STOPPED ones; returns how many ("group-ops")."""
        return self._call(wire.group("resume_group", group, include_failed), "count", int)

    def cancel_group(self, group: str) -> int:
        """Cancels every download of ``group`` and those under it, deleting their files; returns
        how many ("group-ops")."""
        return self._call(wire.group("cancel_group", group), "count", int)

    def stats(self) -> Stats:
        """Speed, downloads per state, transfers running, bytes received since the start."""
        return self._call(wire.empty("get_stats"), "stats", Stats)

    def info(self) -> SystemInfo:
        """SystemInfo: paths, disk space, bytes held (per state), the last verify, warnings."""
        return self._call(wire.empty("get_system_info"), "system_info", SystemInfo)

    @overload
    def config_get(self, key: None = None) -> Config: ...

    @overload
    # Checked first, so the one text key is typed str and the others int; mypy calls any such
    # narrowing of str an overlap.
    def config_get(self, key: Literal["rate-schedule"]) -> str: ...  # type: ignore[misc]

    @overload
    def config_get(self, key: str) -> int: ...

    def config_get(self, key: Optional[str] = None) -> Union[Config, int, str]:
        """The Config, or the value of one key ("max-parallel"; "rate-schedule" is text)."""
        return wire.config_value(self._call(wire.empty("get_config"), "config", Config), key)

    def config_set(self, key: Union[str, Mapping[str, object]], value: object = None) -> Config:
        """Sets ``key`` to ``value``, or every entry of a dict ``key`` (all or none); returns the
        Config after the change. Keys as in PROTOCOL.md section 10 ("max-parallel")."""
        return self._call(wire.set_config(key, value), "config", Config)

    def verify(self, deep: bool = False, repair: bool = False, dry_run: bool = False) -> VerifyReport:
        """Compares the registry with the disk; returns the VerifyReport."""
        return self._call(wire.verify(deep, repair, dry_run), "verify", VerifyReport)

    def purge(self) -> PurgeResult:
        """Deletes what no download owns; returns what was deleted."""
        return self._call(wire.empty("purge"), "purge", PurgeResult)

    def plan(self, uri: str, headers: Optional[Headers] = None, start: Optional[float] = None,
             end: Optional[float] = None) -> ManifestInfo:
        """What an HLS stream offers (variants, renditions, sizes); nothing is stored. With
        ``start``/``end`` (seconds, feature "time-range"), the sizes are that time range's."""
        wire.check_time_range(self.features, self.daemon_version, start=start, end=end)
        return self._call(wire.plan(uri, headers, start, end), "manifest_info", ManifestInfo)

    def export(self, id: str, dir: str, decrypt: bool = False) -> ExportResult:
        """Writes a COMPLETED HLS download to the absolute folder ``dir`` as a playable package."""
        return self._call(wire.export(id, dir, decrypt), "export", ExportResult)

    def export_file(self, id: str, file: str, format: Optional[str] = None, force: bool = False,
                    link: bool = False) -> ExportResult:
        """Writes a COMPLETED download as one file at the absolute path ``file``: an HLS
        download remuxed without re-encoding into MP4 or Matroska (``format`` "mp4" or "mkv",
        else the extension's), each audio and subtitle rendition a track; a single file copied,
        or with ``link`` hard-linked. An existing file is replaced only with ``force``. While it
        runs, ``events(ids=[id])`` yields ExportProgress. Needs a daemon with "export-file"."""
        return self._call(wire.export_file(id, file, format, force, link), "export", ExportResult)

    def subtitles_get(self, id: str) -> Subtitles:
        """The subtitle renditions and text tracks a download keeps."""
        return self._call(wire.by_id("get_subtitles", id), "subtitles", Subtitles)

    def subtitles_add(self, id: str, languages: Optional[Iterable[str]] = None,
                      text_tracks: Optional[TextTracks] = None) -> Download:
        """Adds languages of an HLS download, or text tracks to any download; returns the record."""
        return self._call(wire.subtitles("add_subtitles", id, languages, text_tracks), "download", Download)

    def subtitles_remove(self, id: str, languages: Iterable[str]) -> Download:
        """Removes languages (renditions and text tracks) offline; returns the record."""
        return self._call(wire.subtitles("remove_subtitles", id, languages, None), "download", Download)

    def license_get(self, id: str) -> LicenseStatus:
        """Asks the licence server for the download's keys (DownloadLicense)."""
        return self._call(wire.by_id("download_license", id), "license", LicenseStatus)

    def license_check(self, id: str) -> LicenseStatus:
        """The licence's status now."""
        return self._call(wire.by_id("check_license", id), "license", LicenseStatus)

    def license_renew(self, id: str) -> LicenseStatus:
        """Asks the licence server to renew the licence now."""
        return self._call(wire.by_id("renew_license", id), "license", LicenseStatus)

    def license_release(self, id: str) -> LicenseStatus:
        """Gives the licence back and deletes its keys."""
        return self._call(wire.by_id("release_license", id), "license", LicenseStatus)

    def license_release_all(self) -> int:
        """Releases every licence held; returns how many."""
        return self._call(wire.empty("release_all_licenses"), "count", int)

    def playback_key(self, id: str, key_id: Optional[str] = None) -> PlaybackKey:
        """A 16-byte content key for a player (only to the daemon's own user, while the licence
        is valid); ``key_id`` None: the licence's first key."""
        return self._call(wire.playback_key(id, key_id), "playback_key", PlaybackKey)

    def events(self, ids: Optional[Iterable[str]] = None, min_progress_step: int = 0, min_interval_ms: int = 0,
               replay_from_seq: int = 0, states: Union[str, Iterable[str], None] = None) -> "EventStream":
        """An iterator of events (StateChanged, Progress, Removed, LicenseEvent, EventsLost,
        ExportProgress, SettingsChanged) on a
        connection of its own, until it is closed (``close()`` on the iterator, or leaving a
        ``with`` block around it). ``ids`` empty: every download. ``states`` (a state name or
        several, as "COMPLETED"): only changes into these, Removed and EventsLost."""
        return EventStream(self.socket_path, self.client_name, ids, min_progress_step, min_interval_ms, replay_from_seq,
                           states)

    def wait(self, id: str, timeout: Optional[float] = None) -> Download:
        """Waits until the download is in a terminal state (COMPLETED, FAILED, LICENSE_EXPIRED,
        DRM_EXPIRED) and returns its record. Raises NOT_FOUND when it is cancelled meanwhile, and
        TimeoutError after ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        # Subscribed first, so a change between the read and the subscription is still seen.
        with self.events(ids=[id]) as stream:
            record = self.get(id)
            # Events already in the stream may be older than the record read after it: they
            # are skipped until the change that leaves the record's state.
            awaiting = True
            while record.state not in records.TERMINAL_STATES:
                event = stream.next(deadline)
                if event is None:
                    raise TimeoutError(f"download {id} is still {record.state} after {timeout} s")
                if isinstance(event, records.StateChanged) and event.download.id == id:
                    if awaiting and event.previous != record.state:
                        continue
                    awaiting = False
                    record = event.download
                elif isinstance(event, records.Removed) and event.id == id:
                    raise StashError("NOT_FOUND", f"download {id} was cancelled")
                elif isinstance(event, records.EventsLost):
                    record = self.get(id)
                    awaiting = True
            return record

class EventStream:
    """The events of one subscription, as an iterator; its own connection to the daemon."""

    def __init__(self, socket_path: str, client_name: str, ids: Optional[Iterable[str]], min_progress_step: int,
                 min_interval_ms: int, replay_from_seq: int, states: Union[str, Iterable[str], None] = None) -> None:
        subscribe = wire.subscribe(ids, min_progress_step, min_interval_ms, replay_from_seq, states)
        self._connection = _Connection(socket_path, None)
        try:
            for request_id, request in enumerate((wire.hello(client_name), subscribe), start=1):
                request.id = request_id
                self._connection.send(request)
                while True:
                    message = self._connection.receive()
                    if message is None:  # no deadline: receive returns a message or raises
                        continue
                    if message.response_id == request_id or wire.refused(message):
                        wire.checked_result(message, request.WhichOneof("op"), None)
                        break
        except BaseException:
            self._connection.close()
            raise

    def __iter__(self) -> "EventStream":
        return self

    def __next__(self) -> records.Event:
        event = self.next()
        if event is None:
            raise StopIteration
        return event

    def next(self, deadline: Optional[float] = None) -> Optional[records.Event]:
        """The next event; None when ``deadline`` (time.monotonic() seconds) passes first."""
        while True:
            message = self._connection.receive(deadline)
            if message is None:
                return None
            if wire.refused(message) and message.error is not None:
                self._connection.fail(message.error)
            if message.event is not None:
                return message.event

    def close(self) -> None:
        self._connection.close()

    def __enter__(self) -> "EventStream":
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], error: Optional[BaseException],
                 traceback: Optional[TracebackType]) -> None:
        self.close()
