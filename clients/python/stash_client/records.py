"""The values the clients return: dataclasses named and laid out as the messages of
proto/stash/v1/stash.proto, with enums as their names ("COMPLETED") and repeated fields as
tuples. Times are unix milliseconds, as on the wire."""
from dataclasses import dataclass, field, fields, replace
from typing import Any, Dict, Optional, Tuple, Type, TypeVar, Union, get_args, get_origin

from google.protobuf.descriptor import EnumDescriptor, FieldDescriptor

from . import stash_pb2 as pb
from .errors import StashError

TERMINAL_STATES = frozenset({"COMPLETED", "FAILED", "LICENSE_EXPIRED", "DRM_EXPIRED"})
"""States a download stays in until something is asked of it (what `Client.wait` waits for)."""


@dataclass(frozen=True)
class Header:
    name: str
    value: str


@dataclass(frozen=True)
class BundleFile:
    """One file of a bundle. To add: ``url``, and optionally ``path`` (default: the URL's file
    name), ``size`` (0: unknown), ``sha256``, ``expect`` (what it must be: "image", "video",
    "audio", "text" or a MIME type; "": the download's) and ``min_size`` (its fewest bytes; 0: the
    download's). In a record also its bytes on disk and ``done``."""

    url: str
    path: str = ""
    size: int = 0
    sha256: str = ""
    downloaded_bytes: int = 0
    done: bool = False
    expect: str = ""
    min_size: int = 0


@dataclass(frozen=True)
class TextTrack:
    """A side-loaded subtitle file: ``uri``, ``lang`` and the optional ``title`` and ``type``
    ("vtt" or "srt"); in a record also ``path``, its file in the asset folder."""

    uri: str
    lang: str
    title: str = ""
    type: str = ""
    path: str = ""


@dataclass(frozen=True)
class HlsOptions:
    """An HLS download's choice: ``quality`` (low, medium, high, auto), ``max_height``,
    ``bandwidth`` (bits/s), ``subtitles`` and ``audio`` languages (or "all"),
    ``segment_concurrency`` (0: 8), and a time range: ``start`` and ``end`` in seconds (None:
    from the beginning, to the end; daemon feature "time-range"). Only the segments that
    overlap [start, end) are fetched; in a record, ``end`` is clamped to the stream's duration
    once its playlist is read."""

    quality: str = ""
    max_height: int = 0
    bandwidth: int = 0
    subtitles: Tuple[str, ...] = ()
    audio: Tuple[str, ...] = ()
    segment_concurrency: int = 0
    start: Optional[float] = None
    end: Optional[float] = None


@dataclass(frozen=True)
class DrmParams:
    """Where a protected stream's keys come from (PROTOCOL.md, "Licence exchange")."""

    type: str = "clearkey"
    license_server: str = ""
    license_headers: Tuple[Header, ...] = ()
    content_id: str = ""
    certificate_url: str = ""


@dataclass(frozen=True)
class LicenseStatus:
    id: str
    valid: bool
    verdict: str  # valid, license_expired, playback_expired, refused, none
    license_seconds_left: int  # -1: never expires
    playback_seconds_left: int  # -1: no playback window
    expires_at: int
    acquired_at: int
    first_playback_at: int
    keys: int
    state: str
    playback_duration: int
    key_ids: Tuple[str, ...]


@dataclass(frozen=True)
class DownloadError:
    kind: str  # ERROR_NETWORK, ERROR_HTTP, ERROR_STORAGE, ERROR_VALIDATION, ERROR_INTERNAL
    message: str
    http_status: int  # 0 when no HTTP status is involved


@dataclass(frozen=True)
class Download:
    """The public record of a download (PROTOCOL.md section 8). ``state`` is the state's name;
    ``total_bytes`` and ``remaining_time`` are -1 while unknown; ``error``, ``hls``, ``drm`` and
    ``license`` are None when the download has none. ``created`` is set by ``add`` only: this
    call added it (False: the same id or content was there already)."""

    id: str
    uri: str
    title: str
    state: str
    progress: int
    downloaded_bytes: int
    total_bytes: int
    speed: int
    remaining_time: int
    quality: str
    has_subtitles: bool
    has_drm: bool
    asset_path: str
    error: Optional[DownloadError]
    created_at: int
    completed_at: int
    sha256: str
    headers: Tuple[Header, ...]
    state_reason: str
    bundle: bool
    files: Tuple[BundleFile, ...]
    files_done: int
    files_total: int
    hls: Optional[HlsOptions]
    drm: Optional[DrmParams]
    license: Optional[LicenseStatus]
    app_data: bytes
    group: str
    text_tracks: Tuple[TextTrack, ...]
    expect: str = ""
    min_size: int = 0
    priority: str = "PRIORITY_NORMAL"
    created: bool = False
    rate_limit: int = 0  # bytes per second over its transfers, 0: none (daemon 0.11.0)
    network: str = ""  # its own rule, "any" or "unmetered"; "": the config's (feature "desktop")
    on_battery: str = ""  # its own rule, "continue" or "pause"; "": the config's


@dataclass(frozen=True)
class GroupTotals:
    """What the downloads of a listing hold together; ``states`` maps a state to its count."""

    bytes_downloaded: int = 0
    bytes_total: int = 0
    files_done: int = 0
    files_total: int = 0
    states: Dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class DownloadPage:
    downloads: Tuple[Download, ...]
    next_page_token: str  # "" on the last page
    total: int  # matching downloads over all pages
    totals: GroupTotals = field(default_factory=GroupTotals)


@dataclass(frozen=True)
class HasResult:
    """``has(id)``: true when the download exists; ``state`` is NOT_DOWNLOADED when not."""

    exists: bool
    state: str

    def __bool__(self) -> bool:
        return self.exists


@dataclass(frozen=True)
class HelloResult:
    protocol_version: int
    daemon_version: str
    features: Tuple[str, ...]


@dataclass(frozen=True)
class Stats:
    speed: int
    counts: Dict[str, int]
    active_transfers: int
    downloaded_bytes: int


@dataclass(frozen=True)
class Finding:
    kind: str  # FINDING_MISSING_FILE, ...
    id: str
    path: str
    detail: str
    repaired: bool


@dataclass(frozen=True)
class VerifyReport:
    findings: Tuple[Finding, ...]
    downloads_checked: int
    files_checked: int
    finished_at: int
    duration_ms: int
    deep: bool
    repaired: bool
    requeued: int
    files_deleted: int
    bytes_freed: int


@dataclass(frozen=True)
class SystemInfo:
    data_dir: str
    disk_total: int
    disk_free: int
    bytes_held: int
    daemon_version: str
    socket_path: str
    download_count: int
    bytes_by_state: Dict[str, int]
    asset_count: int
    last_verify: Optional[VerifyReport]
    warnings: Tuple[str, ...]
    rate_limit_now: int = 0  # the global limit in force, bytes per second, 0 unlimited (daemon 0.11.0)
    rate_limit_changes_at: int = 0  # unix seconds of the rate schedule's next change, 0: never
    rate_limit_next: int = 0  # the limit from then on
    metered: bool = False  # NetworkManager says the network is metered (daemon with feature "desktop")
    on_battery: bool = False  # UPower says the machine runs on battery
    network_service: str = ""  # what the daemon sees of NetworkManager ("not metered", "no system bus", ...)
    power_service: str = ""  # what the daemon sees of UPower ("on AC power", ...)
    sleep_inhibitor: str = ""  # logind's sleep lock while downloads run ("held (delay)", "not held", ...)
    notification_service: str = ""  # what the daemon sees of the notification service ("sent (last id 3)", ...)


@dataclass(frozen=True)
class Config:
    max_parallel: int
    retry_max_attempts: int
    retry_base_delay_ms: int
    retry_max_delay_ms: int
    rate_limit: int
    low_speed_limit: int
    low_speed_time: int
    files_per_download: int
    max_connections: int
    max_connections_per_host: int
    storage_reserve: int
    rate_schedule: str = ""  # the global limit by weekday and hour, as the daemon read it (daemon 0.11.0)
    preempt: bool = False
    network: str = ""  # "unmetered", or "" for any network (daemon with feature "desktop")
    on_battery: str = ""  # "pause", or "" for continue
    notify: str = ""  # "groups" or "all", or "" for none
    inhibit_sleep: str = ""  # "block" or "no", or "" for delay


@dataclass(frozen=True)
class PurgeResult:
    files_deleted: int
    bytes_freed: int
    paths: Tuple[str, ...]


@dataclass(frozen=True)
class VariantInfo:
    uri: str
    bandwidth: int
    average_bandwidth: int
    width: int
    height: int
    codecs: Tuple[str, ...]
    frame_rate: float
    encryption: Tuple[str, ...]
    estimated_bytes: int
    size_is_exact: bool
    duration: float


@dataclass(frozen=True)
class RenditionInfo:
    group_id: str
    language: str
    name: str
    default: bool
    forced: bool
    uri: str


@dataclass(frozen=True)
class ManifestInfo:
    """What ``plan`` answers. With a time range, each variant's ``estimated_bytes`` are those of
    its segments in the range, and ``start`` and ``end`` are the range as a download would keep
    it (``end``: the duration when none was given or one past it, then ``warnings[0]`` says so)."""

    variants: Tuple[VariantInfo, ...]
    audio: Tuple[RenditionInfo, ...]
    subtitles: Tuple[RenditionInfo, ...]
    duration: float
    warnings: Tuple[str, ...] = ()
    start: Optional[float] = None
    end: Optional[float] = None


@dataclass(frozen=True)
class ExportTrack:
    """One track of a file an export wrote: ``kind`` EXPORT_TRACK_VIDEO, _AUDIO or _SUBTITLES,
    ``language`` as ISO 639-2 ("eng", "und" when unknown), ``codec`` as libavcodec names it
    ("h264", "aac", "webvtt", "mov_text") and ``title`` (the rendition's NAME)."""

    kind: str
    language: str
    codec: str
    title: str


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote: a folder (``dir``, ``files`` of it) or one ``file``, whose
    ``format`` (EXPORT_FORMAT_MP4, EXPORT_FORMAT_MKV; EXPORT_FORMAT_UNSPECIFIED for a single file
    copied or linked as it is) and ``tracks`` it names; ``linked`` when it is a hard link."""

    dir: str
    files: int
    bytes: int
    decrypted: bool
    file: str
    format: str
    tracks: Tuple[ExportTrack, ...]
    linked: bool


@dataclass(frozen=True)
class Subtitles:
    subtitles: Tuple[RenditionInfo, ...]
    text_tracks: Tuple[TextTrack, ...]


@dataclass(frozen=True)
class PlaybackKey:
    key: bytes
    key_id: str
    playback_seconds_left: int


# ------------------------------------------------------------------ events

@dataclass(frozen=True)
class StateChanged:
    """A download's new state, with its record as committed (a bundle's without ``files``)."""

    seq: int
    time: int
    download: Download
    previous: str


@dataclass(frozen=True)
class Progress:
    seq: int
    time: int
    id: str
    downloaded_bytes: int
    total_bytes: int
    progress: int
    speed: int
    remaining_time: int
    files_done: int
    files_total: int


@dataclass(frozen=True)
class Removed:
    seq: int
    time: int
    id: str


@dataclass(frozen=True)
class LicenseEvent:
    seq: int
    time: int
    id: str
    kind: str  # LICENSE_EVENT_DOWNLOADED, ...
    message: str
    status: Optional[LicenseStatus]


@dataclass(frozen=True)
class EventsLost:
    """Events first_seq..last_seq were dropped (``count`` meant for this subscriber): read the
    records again (PROTOCOL.md section 7, "Slow subscribers")."""

    seq: int
    time: int
    first_seq: int
    last_seq: int
    count: int


@dataclass(frozen=True)
class ExportProgress:
    """An export of download ``id`` to ``file`` has read ``bytes_done`` of ``bytes_total`` bytes
    (``progress`` percent); sent at each whole percent and at 100 % once the file is in place."""

    seq: int
    time: int
    id: str
    file: str
    bytes_done: int
    bytes_total: int
    progress: int


@dataclass(frozen=True)
class SettingsChanged:
    """A download's settings changed (set_priority, set_rate_limit, set_uri, set_headers,
    set_license_headers): its record after the change; ``changed`` names what changed
    ("priority", "rate_limit", "uri", "headers", "license_headers")."""

    seq: int
    time: int
    download: Download
    changed: Tuple[str, ...]


Event = Union[StateChanged, Progress, Removed, LicenseEvent, EventsLost, ExportProgress, SettingsChanged]
"""What an event stream yields."""

# ------------------------------------------------------------------ from the wire

_Record = TypeVar("_Record")

# The dataclass of each message; StateCount and StateBytes lists become dicts.
_CLASSES: Dict[str, type] = {
    "stash.v1.Header": Header,
    "stash.v1.BundleFile": BundleFile,
    "stash.v1.TextTrack": TextTrack,
    "stash.v1.HlsOptions": HlsOptions,
    "stash.v1.DrmParams": DrmParams,
    "stash.v1.LicenseStatus": LicenseStatus,
    "stash.v1.DownloadError": DownloadError,
    "stash.v1.Download": Download,
    "stash.v1.GroupTotals": GroupTotals,
    "stash.v1.ListDownloadsResult": DownloadPage,
    "stash.v1.HasDownloadResult": HasResult,
    "stash.v1.HelloResult": HelloResult,
    "stash.v1.StatsResult": Stats,
    "stash.v1.Finding": Finding,
    "stash.v1.VerifyReport": VerifyReport,
    "stash.v1.SystemInfoResult": SystemInfo,
    "stash.v1.Config": Config,
    "stash.v1.PurgeResult": PurgeResult,
    "stash.v1.VariantInfo": VariantInfo,
    "stash.v1.RenditionInfo": RenditionInfo,
    "stash.v1.ManifestInfoResult": ManifestInfo,
    "stash.v1.ExportResult": ExportResult,
    "stash.v1.ExportTrack": ExportTrack,
    "stash.v1.SubtitlesResult": Subtitles,
    "stash.v1.PlaybackKeyResult": PlaybackKey,
}
_STATE_MAPS = {"stash.v1.StateCount": "count", "stash.v1.StateBytes": "bytes"}


def _optional(annotation: Any) -> bool:
    return get_origin(annotation) is Union and type(None) in get_args(annotation)


def is_repeated(descriptor: FieldDescriptor) -> bool:
    # Newer protobuf runtimes replace FieldDescriptor.label with is_repeated.
    repeated = getattr(descriptor, "is_repeated", None)
    return bool(repeated) if repeated is not None else bool(descriptor.label == descriptor.LABEL_REPEATED)


def enum_name(descriptor: EnumDescriptor, number: int, where: str) -> str:
    """The name of an enum number; a number this client does not know makes the message
    unreadable (PROTOCOL.md section 9)."""
    value = descriptor.values_by_number.get(number)
    if value is None:
        known = sorted(descriptor.values_by_number)
        raise StashError(
            "INTERNAL",
            f"stashd sent {where} {number}, not a {descriptor.name} this client knows ({known[0]} to {known[-1]})")
    return str(value.name)


def _single(descriptor: FieldDescriptor, value: Any, where: str) -> Any:
    if descriptor.enum_type is not None:
        return enum_name(descriptor.enum_type, value, where)
    if descriptor.message_type is not None:
        return convert(value, _CLASSES[descriptor.message_type.full_name], descriptor.message_type.name)
    return value


def convert(message: Any, cls: Type[_Record], where: str) -> _Record:
    """A protobuf message as the dataclass `cls`, field by field of the same name."""
    values: Dict[str, Any] = {}
    by_name = message.DESCRIPTOR.fields_by_name
    for item in fields(cls):
        descriptor = by_name.get(item.name)
        if descriptor is None:
            continue  # a field of the record that the message does not carry (Download.created)
        value = getattr(message, item.name)
        path = f"{where}.{item.name}"
        if is_repeated(descriptor):
            kind = descriptor.message_type.full_name if descriptor.message_type else None
            if kind in _STATE_MAPS:
                values[item.name] = {enum_name(entry.DESCRIPTOR.fields_by_name["state"].enum_type, entry.state, path + ".state"):
                                     getattr(entry, _STATE_MAPS[kind]) for entry in value}
            else:
                values[item.name] = tuple(_single(descriptor, entry, path) for entry in value)
        elif descriptor.message_type is not None and not message.HasField(item.name):
            # An absent sub-message is None where the record says it may be, else its empty value.
            values[item.name] = None if _optional(item.type) else _single(descriptor, value, path)
        elif descriptor.containing_oneof is not None and _optional(item.type) and not message.HasField(item.name):
            # A number with presence (a oneof of one field, HlsOptions.start) left out: not 0.
            values[item.name] = None
        else:
            values[item.name] = _single(descriptor, value, path)
    return cls(**values)


def download(message: "pb.Download", created: bool = False) -> Download:
    record = convert(message, Download, "Download")
    return replace(record, created=True) if created else record


def event(message: "pb.Event") -> Optional[Event]:
    """An Event as its dataclass; None for a kind this client does not know (skipped, as the
    protocol requires)."""
    kind = message.WhichOneof("kind")
    seq, time = message.seq, message.time
    if kind == "state_changed":
        changed = message.state_changed
        return StateChanged(seq, time, download(changed.download),
                            enum_name(pb.DownloadState.DESCRIPTOR, changed.previous, "StateChanged.previous"))
    if kind == "progress":
        p = message.progress
        return Progress(seq, time, p.id, p.downloaded_bytes, p.total_bytes, p.progress, p.speed, p.remaining_time,
                        p.files_done, p.files_total)
    if kind == "removed":
        return Removed(seq, time, message.removed.id)
    if kind == "license":
        lic = message.license
        status = convert(lic.status, LicenseStatus, "LicenseStatus") if lic.HasField("status") else None
        return LicenseEvent(seq, time, lic.id, enum_name(pb.LicenseEventKind.DESCRIPTOR, lic.kind, "LicenseEvent.kind"),
                            lic.message, status)
    if kind == "events_lost":
        lost = message.events_lost
        return EventsLost(seq, time, lost.first_seq, lost.last_seq, lost.count)
    if kind == "export_progress":
        e = message.export_progress
        return ExportProgress(seq, time, e.id, e.file, e.bytes_done, e.bytes_total, e.progress)
    if kind == "settings_changed":
        s = message.settings_changed
        return SettingsChanged(seq, time, download(s.download), tuple(s.changed))
    return None


def result(response: "pb.Response") -> Tuple[Optional[str], object]:
    """An OK Response's result as its dataclass (None when it carries none): the field name of
    the result and the value."""
    name = response.WhichOneof("result")
    if name is None:
        return None, None
    message = getattr(response, name)
    if name == "download":
        return name, download(message.download, created=message.created)
    if name == "count":
        return name, message.affected
    return name, convert(message, _CLASSES[message.DESCRIPTOR.full_name], message.DESCRIPTOR.name)
