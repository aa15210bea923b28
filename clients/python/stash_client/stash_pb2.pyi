from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

ALREADY_EXISTS: StatusCode
COMPLETED: DownloadState
DESCRIPTOR: _descriptor.FileDescriptor
DOWNLOADING: DownloadState
DRM_EXPIRED: DownloadState
ERROR_HTTP: ErrorKind
ERROR_INTERNAL: ErrorKind
ERROR_NETWORK: ErrorKind
ERROR_NONE: ErrorKind
ERROR_STORAGE: ErrorKind
ERROR_VALIDATION: ErrorKind
EXPORT_FORMAT_MKV: ExportFormat
EXPORT_FORMAT_MP4: ExportFormat
EXPORT_FORMAT_UNSPECIFIED: ExportFormat
EXPORT_TRACK_AUDIO: ExportTrackKind
EXPORT_TRACK_SUBTITLES: ExportTrackKind
EXPORT_TRACK_UNKNOWN: ExportTrackKind
EXPORT_TRACK_VIDEO: ExportTrackKind
FAILED: DownloadState
FAILED_PRECONDITION: StatusCode
FINDING_MISSING_FILE: FindingKind
FINDING_ORPHAN_FILE: FindingKind
FINDING_ORPHAN_FOLDER: FindingKind
FINDING_STALE_PART: FindingKind
FINDING_UNKNOWN: FindingKind
FINDING_WRONG_DIGEST: FindingKind
FINDING_WRONG_SIZE: FindingKind
INTERNAL: StatusCode
INVALID_ARGUMENT: StatusCode
LICENSE_EVENT_DOWNLOADED: LicenseEventKind
LICENSE_EVENT_ERROR: LicenseEventKind
LICENSE_EVENT_EXPIRED: LicenseEventKind
LICENSE_EVENT_RELEASED: LicenseEventKind
LICENSE_EVENT_RENEWED: LicenseEventKind
LICENSE_EVENT_UNKNOWN: LicenseEventKind
LICENSE_EXPIRED: DownloadState
MOVE_PLACE_AFTER: MovePlace
MOVE_PLACE_BEFORE: MovePlace
MOVE_PLACE_BOTTOM: MovePlace
MOVE_PLACE_TOP: MovePlace
MOVE_PLACE_UNSPECIFIED: MovePlace
NOT_DOWNLOADED: DownloadState
NOT_FOUND: StatusCode
OK: StatusCode
PAUSED: DownloadState
PERMISSION_DENIED: StatusCode
PREPARING: DownloadState
PRIORITY_HIGH: Priority
PRIORITY_LOW: Priority
PRIORITY_NORMAL: Priority
QUEUED: DownloadState
REMOVING: DownloadState
RESOURCE_EXHAUSTED: StatusCode
RESTARTING: DownloadState
STOPPED: DownloadState
UNAVAILABLE: StatusCode
UNIMPLEMENTED: StatusCode
WAITING_FOR_NETWORK: DownloadState

class AddDownloadRequest(_message.Message):
    __slots__ = ["app_data", "append", "drm", "expect", "files", "force", "group", "headers", "hls", "id", "min_size", "network", "on_battery", "priority", "rate_limit", "replace", "sha256", "text_tracks", "title", "uri"]
    APPEND_FIELD_NUMBER: _ClassVar[int]
    APP_DATA_FIELD_NUMBER: _ClassVar[int]
    DRM_FIELD_NUMBER: _ClassVar[int]
    EXPECT_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    FORCE_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    HEADERS_FIELD_NUMBER: _ClassVar[int]
    HLS_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    MIN_SIZE_FIELD_NUMBER: _ClassVar[int]
    NETWORK_FIELD_NUMBER: _ClassVar[int]
    ON_BATTERY_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    RATE_LIMIT_FIELD_NUMBER: _ClassVar[int]
    REPLACE_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    TEXT_TRACKS_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    URI_FIELD_NUMBER: _ClassVar[int]
    app_data: bytes
    append: bool
    drm: DrmParams
    expect: str
    files: _containers.RepeatedCompositeFieldContainer[BundleFile]
    force: bool
    group: str
    headers: _containers.RepeatedCompositeFieldContainer[Header]
    hls: HlsOptions
    id: str
    min_size: int
    network: str
    on_battery: str
    priority: Priority
    rate_limit: int
    replace: bool
    sha256: str
    text_tracks: _containers.RepeatedCompositeFieldContainer[TextTrack]
    title: str
    uri: str
    def __init__(self, id: _Optional[str] = ..., uri: _Optional[str] = ..., title: _Optional[str] = ..., sha256: _Optional[str] = ..., headers: _Optional[_Iterable[_Union[Header, _Mapping]]] = ..., files: _Optional[_Iterable[_Union[BundleFile, _Mapping]]] = ..., hls: _Optional[_Union[HlsOptions, _Mapping]] = ..., drm: _Optional[_Union[DrmParams, _Mapping]] = ..., force: bool = ..., app_data: _Optional[bytes] = ..., group: _Optional[str] = ..., append: bool = ..., text_tracks: _Optional[_Iterable[_Union[TextTrack, _Mapping]]] = ..., rate_limit: _Optional[int] = ..., expect: _Optional[str] = ..., min_size: _Optional[int] = ..., priority: _Optional[_Union[Priority, str]] = ..., replace: bool = ..., network: _Optional[str] = ..., on_battery: _Optional[str] = ...) -> None: ...

class AdoptRequest(_message.Message):
    __slots__ = ["id", "link", "path", "sha256", "url"]
    ID_FIELD_NUMBER: _ClassVar[int]
    LINK_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    id: str
    link: bool
    path: str
    sha256: str
    url: str
    def __init__(self, path: _Optional[str] = ..., id: _Optional[str] = ..., url: _Optional[str] = ..., sha256: _Optional[str] = ..., link: bool = ...) -> None: ...

class BundleFile(_message.Message):
    __slots__ = ["done", "downloaded_bytes", "expect", "min_size", "path", "sha256", "size", "url"]
    DONE_FIELD_NUMBER: _ClassVar[int]
    DOWNLOADED_BYTES_FIELD_NUMBER: _ClassVar[int]
    EXPECT_FIELD_NUMBER: _ClassVar[int]
    MIN_SIZE_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    done: bool
    downloaded_bytes: int
    expect: str
    min_size: int
    path: str
    sha256: str
    size: int
    url: str
    def __init__(self, url: _Optional[str] = ..., path: _Optional[str] = ..., size: _Optional[int] = ..., sha256: _Optional[str] = ..., downloaded_bytes: _Optional[int] = ..., done: bool = ..., expect: _Optional[str] = ..., min_size: _Optional[int] = ...) -> None: ...

class Config(_message.Message):
    __slots__ = ["files_per_download", "inhibit_sleep", "low_speed_limit", "low_speed_time", "max_connections", "max_connections_per_host", "max_parallel", "network", "notify", "on_battery", "preempt", "rate_limit", "rate_schedule", "retry_base_delay_ms", "retry_max_attempts", "retry_max_delay_ms", "storage_reserve"]
    FILES_PER_DOWNLOAD_FIELD_NUMBER: _ClassVar[int]
    INHIBIT_SLEEP_FIELD_NUMBER: _ClassVar[int]
    LOW_SPEED_LIMIT_FIELD_NUMBER: _ClassVar[int]
    LOW_SPEED_TIME_FIELD_NUMBER: _ClassVar[int]
    MAX_CONNECTIONS_FIELD_NUMBER: _ClassVar[int]
    MAX_CONNECTIONS_PER_HOST_FIELD_NUMBER: _ClassVar[int]
    MAX_PARALLEL_FIELD_NUMBER: _ClassVar[int]
    NETWORK_FIELD_NUMBER: _ClassVar[int]
    NOTIFY_FIELD_NUMBER: _ClassVar[int]
    ON_BATTERY_FIELD_NUMBER: _ClassVar[int]
    PREEMPT_FIELD_NUMBER: _ClassVar[int]
    RATE_LIMIT_FIELD_NUMBER: _ClassVar[int]
    RATE_SCHEDULE_FIELD_NUMBER: _ClassVar[int]
    RETRY_BASE_DELAY_MS_FIELD_NUMBER: _ClassVar[int]
    RETRY_MAX_ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    RETRY_MAX_DELAY_MS_FIELD_NUMBER: _ClassVar[int]
    STORAGE_RESERVE_FIELD_NUMBER: _ClassVar[int]
    files_per_download: int
    inhibit_sleep: str
    low_speed_limit: int
    low_speed_time: int
    max_connections: int
    max_connections_per_host: int
    max_parallel: int
    network: str
    notify: str
    on_battery: str
    preempt: bool
    rate_limit: int
    rate_schedule: str
    retry_base_delay_ms: int
    retry_max_attempts: int
    retry_max_delay_ms: int
    storage_reserve: int
    def __init__(self, max_parallel: _Optional[int] = ..., retry_max_attempts: _Optional[int] = ..., retry_base_delay_ms: _Optional[int] = ..., retry_max_delay_ms: _Optional[int] = ..., rate_limit: _Optional[int] = ..., low_speed_limit: _Optional[int] = ..., low_speed_time: _Optional[int] = ..., files_per_download: _Optional[int] = ..., max_connections: _Optional[int] = ..., max_connections_per_host: _Optional[int] = ..., storage_reserve: _Optional[int] = ..., rate_schedule: _Optional[str] = ..., preempt: bool = ..., network: _Optional[str] = ..., on_battery: _Optional[str] = ..., notify: _Optional[str] = ..., inhibit_sleep: _Optional[str] = ...) -> None: ...

class ConfigEntry(_message.Message):
    __slots__ = ["key", "value"]
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    key: str
    value: str
    def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...

class CountResult(_message.Message):
    __slots__ = ["affected"]
    AFFECTED_FIELD_NUMBER: _ClassVar[int]
    affected: int
    def __init__(self, affected: _Optional[int] = ...) -> None: ...

class Download(_message.Message):
    __slots__ = ["app_data", "asset_path", "bundle", "completed_at", "created_at", "downloaded_bytes", "drm", "error", "expect", "files", "files_done", "files_total", "group", "has_drm", "has_subtitles", "headers", "hls", "id", "license", "min_size", "network", "on_battery", "priority", "progress", "quality", "rate_limit", "remaining_time", "sha256", "speed", "state", "state_reason", "text_tracks", "title", "total_bytes", "uri"]
    APP_DATA_FIELD_NUMBER: _ClassVar[int]
    ASSET_PATH_FIELD_NUMBER: _ClassVar[int]
    BUNDLE_FIELD_NUMBER: _ClassVar[int]
    COMPLETED_AT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    DOWNLOADED_BYTES_FIELD_NUMBER: _ClassVar[int]
    DRM_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    EXPECT_FIELD_NUMBER: _ClassVar[int]
    FILES_DONE_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    FILES_TOTAL_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    HAS_DRM_FIELD_NUMBER: _ClassVar[int]
    HAS_SUBTITLES_FIELD_NUMBER: _ClassVar[int]
    HEADERS_FIELD_NUMBER: _ClassVar[int]
    HLS_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    LICENSE_FIELD_NUMBER: _ClassVar[int]
    MIN_SIZE_FIELD_NUMBER: _ClassVar[int]
    NETWORK_FIELD_NUMBER: _ClassVar[int]
    ON_BATTERY_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    QUALITY_FIELD_NUMBER: _ClassVar[int]
    RATE_LIMIT_FIELD_NUMBER: _ClassVar[int]
    REMAINING_TIME_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    SPEED_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    STATE_REASON_FIELD_NUMBER: _ClassVar[int]
    TEXT_TRACKS_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_BYTES_FIELD_NUMBER: _ClassVar[int]
    URI_FIELD_NUMBER: _ClassVar[int]
    app_data: bytes
    asset_path: str
    bundle: bool
    completed_at: int
    created_at: int
    downloaded_bytes: int
    drm: DrmParams
    error: DownloadError
    expect: str
    files: _containers.RepeatedCompositeFieldContainer[BundleFile]
    files_done: int
    files_total: int
    group: str
    has_drm: bool
    has_subtitles: bool
    headers: _containers.RepeatedCompositeFieldContainer[Header]
    hls: HlsOptions
    id: str
    license: LicenseStatus
    min_size: int
    network: str
    on_battery: str
    priority: Priority
    progress: int
    quality: str
    rate_limit: int
    remaining_time: int
    sha256: str
    speed: int
    state: DownloadState
    state_reason: str
    text_tracks: _containers.RepeatedCompositeFieldContainer[TextTrack]
    title: str
    total_bytes: int
    uri: str
    def __init__(self, id: _Optional[str] = ..., uri: _Optional[str] = ..., title: _Optional[str] = ..., state: _Optional[_Union[DownloadState, str]] = ..., progress: _Optional[int] = ..., downloaded_bytes: _Optional[int] = ..., total_bytes: _Optional[int] = ..., speed: _Optional[int] = ..., remaining_time: _Optional[int] = ..., quality: _Optional[str] = ..., has_subtitles: bool = ..., has_drm: bool = ..., asset_path: _Optional[str] = ..., error: _Optional[_Union[DownloadError, _Mapping]] = ..., created_at: _Optional[int] = ..., completed_at: _Optional[int] = ..., sha256: _Optional[str] = ..., headers: _Optional[_Iterable[_Union[Header, _Mapping]]] = ..., state_reason: _Optional[str] = ..., bundle: bool = ..., files: _Optional[_Iterable[_Union[BundleFile, _Mapping]]] = ..., files_done: _Optional[int] = ..., files_total: _Optional[int] = ..., hls: _Optional[_Union[HlsOptions, _Mapping]] = ..., drm: _Optional[_Union[DrmParams, _Mapping]] = ..., license: _Optional[_Union[LicenseStatus, _Mapping]] = ..., app_data: _Optional[bytes] = ..., group: _Optional[str] = ..., text_tracks: _Optional[_Iterable[_Union[TextTrack, _Mapping]]] = ..., rate_limit: _Optional[int] = ..., expect: _Optional[str] = ..., min_size: _Optional[int] = ..., priority: _Optional[_Union[Priority, str]] = ..., network: _Optional[str] = ..., on_battery: _Optional[str] = ...) -> None: ...

class DownloadError(_message.Message):
    __slots__ = ["http_status", "kind", "message"]
    HTTP_STATUS_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    http_status: int
    kind: ErrorKind
    message: str
    def __init__(self, kind: _Optional[_Union[ErrorKind, str]] = ..., message: _Optional[str] = ..., http_status: _Optional[int] = ...) -> None: ...

class DownloadResult(_message.Message):
    __slots__ = ["created", "download"]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    DOWNLOAD_FIELD_NUMBER: _ClassVar[int]
    created: bool
    download: Download
    def __init__(self, download: _Optional[_Union[Download, _Mapping]] = ..., created: bool = ...) -> None: ...

class DrmParams(_message.Message):
    __slots__ = ["certificate_url", "content_id", "license_headers", "license_server", "type"]
    CERTIFICATE_URL_FIELD_NUMBER: _ClassVar[int]
    CONTENT_ID_FIELD_NUMBER: _ClassVar[int]
    LICENSE_HEADERS_FIELD_NUMBER: _ClassVar[int]
    LICENSE_SERVER_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    certificate_url: str
    content_id: str
    license_headers: _containers.RepeatedCompositeFieldContainer[Header]
    license_server: str
    type: str
    def __init__(self, type: _Optional[str] = ..., license_server: _Optional[str] = ..., license_headers: _Optional[_Iterable[_Union[Header, _Mapping]]] = ..., content_id: _Optional[str] = ..., certificate_url: _Optional[str] = ...) -> None: ...

class EmptyRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class Event(_message.Message):
    __slots__ = ["events_lost", "export_progress", "license", "progress", "removed", "seq", "settings_changed", "state_changed", "time"]
    EVENTS_LOST_FIELD_NUMBER: _ClassVar[int]
    EXPORT_PROGRESS_FIELD_NUMBER: _ClassVar[int]
    LICENSE_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_CHANGED_FIELD_NUMBER: _ClassVar[int]
    STATE_CHANGED_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    events_lost: EventsLost
    export_progress: ExportProgress
    license: LicenseEvent
    progress: Progress
    removed: Removed
    seq: int
    settings_changed: SettingsChanged
    state_changed: StateChanged
    time: int
    def __init__(self, seq: _Optional[int] = ..., time: _Optional[int] = ..., state_changed: _Optional[_Union[StateChanged, _Mapping]] = ..., progress: _Optional[_Union[Progress, _Mapping]] = ..., removed: _Optional[_Union[Removed, _Mapping]] = ..., license: _Optional[_Union[LicenseEvent, _Mapping]] = ..., events_lost: _Optional[_Union[EventsLost, _Mapping]] = ..., export_progress: _Optional[_Union[ExportProgress, _Mapping]] = ..., settings_changed: _Optional[_Union[SettingsChanged, _Mapping]] = ...) -> None: ...

class EventsLost(_message.Message):
    __slots__ = ["count", "first_seq", "last_seq"]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    FIRST_SEQ_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    count: int
    first_seq: int
    last_seq: int
    def __init__(self, first_seq: _Optional[int] = ..., last_seq: _Optional[int] = ..., count: _Optional[int] = ...) -> None: ...

class ExportProgress(_message.Message):
    __slots__ = ["bytes_done", "bytes_total", "file", "id", "progress"]
    BYTES_DONE_FIELD_NUMBER: _ClassVar[int]
    BYTES_TOTAL_FIELD_NUMBER: _ClassVar[int]
    FILE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    bytes_done: int
    bytes_total: int
    file: str
    id: str
    progress: int
    def __init__(self, id: _Optional[str] = ..., file: _Optional[str] = ..., bytes_done: _Optional[int] = ..., bytes_total: _Optional[int] = ..., progress: _Optional[int] = ...) -> None: ...

class ExportRequest(_message.Message):
    __slots__ = ["decrypt", "dir", "file", "force", "format", "id", "link"]
    DECRYPT_FIELD_NUMBER: _ClassVar[int]
    DIR_FIELD_NUMBER: _ClassVar[int]
    FILE_FIELD_NUMBER: _ClassVar[int]
    FORCE_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    LINK_FIELD_NUMBER: _ClassVar[int]
    decrypt: bool
    dir: str
    file: str
    force: bool
    format: ExportFormat
    id: str
    link: bool
    def __init__(self, id: _Optional[str] = ..., dir: _Optional[str] = ..., decrypt: bool = ..., file: _Optional[str] = ..., format: _Optional[_Union[ExportFormat, str]] = ..., force: bool = ..., link: bool = ...) -> None: ...

class ExportResult(_message.Message):
    __slots__ = ["bytes", "decrypted", "dir", "file", "files", "format", "linked", "tracks"]
    BYTES_FIELD_NUMBER: _ClassVar[int]
    DECRYPTED_FIELD_NUMBER: _ClassVar[int]
    DIR_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    FILE_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    LINKED_FIELD_NUMBER: _ClassVar[int]
    TRACKS_FIELD_NUMBER: _ClassVar[int]
    bytes: int
    decrypted: bool
    dir: str
    file: str
    files: int
    format: ExportFormat
    linked: bool
    tracks: _containers.RepeatedCompositeFieldContainer[ExportTrack]
    def __init__(self, dir: _Optional[str] = ..., files: _Optional[int] = ..., bytes: _Optional[int] = ..., decrypted: bool = ..., file: _Optional[str] = ..., format: _Optional[_Union[ExportFormat, str]] = ..., tracks: _Optional[_Iterable[_Union[ExportTrack, _Mapping]]] = ..., linked: bool = ...) -> None: ...

class ExportTrack(_message.Message):
    __slots__ = ["codec", "kind", "language", "title"]
    CODEC_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    codec: str
    kind: ExportTrackKind
    language: str
    title: str
    def __init__(self, kind: _Optional[_Union[ExportTrackKind, str]] = ..., language: _Optional[str] = ..., codec: _Optional[str] = ..., title: _Optional[str] = ...) -> None: ...

class Finding(_message.Message):
    __slots__ = ["detail", "id", "kind", "path", "repaired"]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    REPAIRED_FIELD_NUMBER: _ClassVar[int]
    detail: str
    id: str
    kind: FindingKind
    path: str
    repaired: bool
    def __init__(self, kind: _Optional[_Union[FindingKind, str]] = ..., id: _Optional[str] = ..., path: _Optional[str] = ..., detail: _Optional[str] = ..., repaired: bool = ...) -> None: ...

class ForgetRequest(_message.Message):
    __slots__ = ["id", "move_to"]
    ID_FIELD_NUMBER: _ClassVar[int]
    MOVE_TO_FIELD_NUMBER: _ClassVar[int]
    id: str
    move_to: str
    def __init__(self, id: _Optional[str] = ..., move_to: _Optional[str] = ...) -> None: ...

class GetManifestInfoRequest(_message.Message):
    __slots__ = ["end", "headers", "start", "uri"]
    END_FIELD_NUMBER: _ClassVar[int]
    HEADERS_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    URI_FIELD_NUMBER: _ClassVar[int]
    end: float
    headers: _containers.RepeatedCompositeFieldContainer[Header]
    start: float
    uri: str
    def __init__(self, uri: _Optional[str] = ..., headers: _Optional[_Iterable[_Union[Header, _Mapping]]] = ..., start: _Optional[float] = ..., end: _Optional[float] = ...) -> None: ...

class GroupRequest(_message.Message):
    __slots__ = ["group", "include_failed"]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_FAILED_FIELD_NUMBER: _ClassVar[int]
    group: str
    include_failed: bool
    def __init__(self, group: _Optional[str] = ..., include_failed: bool = ...) -> None: ...

class GroupTotals(_message.Message):
    __slots__ = ["bytes_downloaded", "bytes_total", "files_done", "files_total", "states"]
    BYTES_DOWNLOADED_FIELD_NUMBER: _ClassVar[int]
    BYTES_TOTAL_FIELD_NUMBER: _ClassVar[int]
    FILES_DONE_FIELD_NUMBER: _ClassVar[int]
    FILES_TOTAL_FIELD_NUMBER: _ClassVar[int]
    STATES_FIELD_NUMBER: _ClassVar[int]
    bytes_downloaded: int
    bytes_total: int
    files_done: int
    files_total: int
    states: _containers.RepeatedCompositeFieldContainer[StateCount]
    def __init__(self, bytes_downloaded: _Optional[int] = ..., bytes_total: _Optional[int] = ..., files_done: _Optional[int] = ..., files_total: _Optional[int] = ..., states: _Optional[_Iterable[_Union[StateCount, _Mapping]]] = ...) -> None: ...

class HasDownloadResult(_message.Message):
    __slots__ = ["exists", "state"]
    EXISTS_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    exists: bool
    state: DownloadState
    def __init__(self, exists: bool = ..., state: _Optional[_Union[DownloadState, str]] = ...) -> None: ...

class Header(_message.Message):
    __slots__ = ["name", "value"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    name: str
    value: str
    def __init__(self, name: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...

class HelloRequest(_message.Message):
    __slots__ = ["client_name", "protocol_version"]
    CLIENT_NAME_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    client_name: str
    protocol_version: int
    def __init__(self, protocol_version: _Optional[int] = ..., client_name: _Optional[str] = ...) -> None: ...

class HelloResult(_message.Message):
    __slots__ = ["daemon_version", "features", "protocol_version"]
    DAEMON_VERSION_FIELD_NUMBER: _ClassVar[int]
    FEATURES_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    daemon_version: str
    features: _containers.RepeatedScalarFieldContainer[str]
    protocol_version: int
    def __init__(self, protocol_version: _Optional[int] = ..., daemon_version: _Optional[str] = ..., features: _Optional[_Iterable[str]] = ...) -> None: ...

class HlsOptions(_message.Message):
    __slots__ = ["audio", "bandwidth", "end", "max_height", "quality", "segment_concurrency", "start", "subtitles"]
    AUDIO_FIELD_NUMBER: _ClassVar[int]
    BANDWIDTH_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    MAX_HEIGHT_FIELD_NUMBER: _ClassVar[int]
    QUALITY_FIELD_NUMBER: _ClassVar[int]
    SEGMENT_CONCURRENCY_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    SUBTITLES_FIELD_NUMBER: _ClassVar[int]
    audio: _containers.RepeatedScalarFieldContainer[str]
    bandwidth: int
    end: float
    max_height: int
    quality: str
    segment_concurrency: int
    start: float
    subtitles: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, quality: _Optional[str] = ..., max_height: _Optional[int] = ..., bandwidth: _Optional[int] = ..., subtitles: _Optional[_Iterable[str]] = ..., audio: _Optional[_Iterable[str]] = ..., segment_concurrency: _Optional[int] = ..., start: _Optional[float] = ..., end: _Optional[float] = ...) -> None: ...

class IdRequest(_message.Message):
    __slots__ = ["id"]
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class LicenseEvent(_message.Message):
    __slots__ = ["id", "kind", "message", "status"]
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    id: str
    kind: LicenseEventKind
    message: str
    status: LicenseStatus
    def __init__(self, id: _Optional[str] = ..., kind: _Optional[_Union[LicenseEventKind, str]] = ..., message: _Optional[str] = ..., status: _Optional[_Union[LicenseStatus, _Mapping]] = ...) -> None: ...

class LicenseStatus(_message.Message):
    __slots__ = ["acquired_at", "expires_at", "first_playback_at", "id", "key_ids", "keys", "license_seconds_left", "playback_duration", "playback_seconds_left", "state", "valid", "verdict"]
    ACQUIRED_AT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    FIRST_PLAYBACK_AT_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    KEYS_FIELD_NUMBER: _ClassVar[int]
    KEY_IDS_FIELD_NUMBER: _ClassVar[int]
    LICENSE_SECONDS_LEFT_FIELD_NUMBER: _ClassVar[int]
    PLAYBACK_DURATION_FIELD_NUMBER: _ClassVar[int]
    PLAYBACK_SECONDS_LEFT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    VALID_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    acquired_at: int
    expires_at: int
    first_playback_at: int
    id: str
    key_ids: _containers.RepeatedScalarFieldContainer[str]
    keys: int
    license_seconds_left: int
    playback_duration: int
    playback_seconds_left: int
    state: DownloadState
    valid: bool
    verdict: str
    def __init__(self, id: _Optional[str] = ..., valid: bool = ..., verdict: _Optional[str] = ..., license_seconds_left: _Optional[int] = ..., playback_seconds_left: _Optional[int] = ..., expires_at: _Optional[int] = ..., acquired_at: _Optional[int] = ..., first_playback_at: _Optional[int] = ..., keys: _Optional[int] = ..., state: _Optional[_Union[DownloadState, str]] = ..., playback_duration: _Optional[int] = ..., key_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class ListDownloadsRequest(_message.Message):
    __slots__ = ["group", "page_size", "page_token", "states"]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    STATES_FIELD_NUMBER: _ClassVar[int]
    group: str
    page_size: int
    page_token: str
    states: _containers.RepeatedScalarFieldContainer[DownloadState]
    def __init__(self, states: _Optional[_Iterable[_Union[DownloadState, str]]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., group: _Optional[str] = ...) -> None: ...

class ListDownloadsResult(_message.Message):
    __slots__ = ["downloads", "next_page_token", "total", "totals"]
    DOWNLOADS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    downloads: _containers.RepeatedCompositeFieldContainer[Download]
    next_page_token: str
    total: int
    totals: GroupTotals
    def __init__(self, downloads: _Optional[_Iterable[_Union[Download, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total: _Optional[int] = ..., totals: _Optional[_Union[GroupTotals, _Mapping]] = ...) -> None: ...

class ManifestInfoResult(_message.Message):
    __slots__ = ["audio", "duration", "end", "start", "subtitles", "variants", "warnings"]
    AUDIO_FIELD_NUMBER: _ClassVar[int]
    DURATION_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    SUBTITLES_FIELD_NUMBER: _ClassVar[int]
    VARIANTS_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    audio: _containers.RepeatedCompositeFieldContainer[RenditionInfo]
    duration: float
    end: float
    start: float
    subtitles: _containers.RepeatedCompositeFieldContainer[RenditionInfo]
    variants: _containers.RepeatedCompositeFieldContainer[VariantInfo]
    warnings: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, variants: _Optional[_Iterable[_Union[VariantInfo, _Mapping]]] = ..., audio: _Optional[_Iterable[_Union[RenditionInfo, _Mapping]]] = ..., subtitles: _Optional[_Iterable[_Union[RenditionInfo, _Mapping]]] = ..., duration: _Optional[float] = ..., warnings: _Optional[_Iterable[str]] = ..., start: _Optional[float] = ..., end: _Optional[float] = ...) -> None: ...

class MoveRequest(_message.Message):
    __slots__ = ["id", "other", "place"]
    ID_FIELD_NUMBER: _ClassVar[int]
    OTHER_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    id: str
    other: str
    place: MovePlace
    def __init__(self, id: _Optional[str] = ..., place: _Optional[_Union[MovePlace, str]] = ..., other: _Optional[str] = ...) -> None: ...

class PlaybackKeyRequest(_message.Message):
    __slots__ = ["id", "key_id"]
    ID_FIELD_NUMBER: _ClassVar[int]
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    key_id: str
    def __init__(self, id: _Optional[str] = ..., key_id: _Optional[str] = ...) -> None: ...

class PlaybackKeyResult(_message.Message):
    __slots__ = ["key", "key_id", "playback_seconds_left"]
    KEY_FIELD_NUMBER: _ClassVar[int]
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYBACK_SECONDS_LEFT_FIELD_NUMBER: _ClassVar[int]
    key: bytes
    key_id: str
    playback_seconds_left: int
    def __init__(self, key: _Optional[bytes] = ..., key_id: _Optional[str] = ..., playback_seconds_left: _Optional[int] = ...) -> None: ...

class Progress(_message.Message):
    __slots__ = ["downloaded_bytes", "files_done", "files_total", "id", "progress", "remaining_time", "speed", "total_bytes"]
    DOWNLOADED_BYTES_FIELD_NUMBER: _ClassVar[int]
    FILES_DONE_FIELD_NUMBER: _ClassVar[int]
    FILES_TOTAL_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    REMAINING_TIME_FIELD_NUMBER: _ClassVar[int]
    SPEED_FIELD_NUMBER: _ClassVar[int]
    TOTAL_BYTES_FIELD_NUMBER: _ClassVar[int]
    downloaded_bytes: int
    files_done: int
    files_total: int
    id: str
    progress: int
    remaining_time: int
    speed: int
    total_bytes: int
    def __init__(self, id: _Optional[str] = ..., downloaded_bytes: _Optional[int] = ..., total_bytes: _Optional[int] = ..., progress: _Optional[int] = ..., speed: _Optional[int] = ..., remaining_time: _Optional[int] = ..., files_done: _Optional[int] = ..., files_total: _Optional[int] = ...) -> None: ...

class PurgeResult(_message.Message):
    __slots__ = ["bytes_freed", "files_deleted", "paths"]
    BYTES_FREED_FIELD_NUMBER: _ClassVar[int]
    FILES_DELETED_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    bytes_freed: int
    files_deleted: int
    paths: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, files_deleted: _Optional[int] = ..., bytes_freed: _Optional[int] = ..., paths: _Optional[_Iterable[str]] = ...) -> None: ...

class Removed(_message.Message):
    __slots__ = ["id"]
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class RenditionInfo(_message.Message):
    __slots__ = ["default", "forced", "group_id", "language", "name", "uri"]
    DEFAULT_FIELD_NUMBER: _ClassVar[int]
    FORCED_FIELD_NUMBER: _ClassVar[int]
    GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    URI_FIELD_NUMBER: _ClassVar[int]
    default: bool
    forced: bool
    group_id: str
    language: str
    name: str
    uri: str
    def __init__(self, group_id: _Optional[str] = ..., language: _Optional[str] = ..., name: _Optional[str] = ..., default: bool = ..., forced: bool = ..., uri: _Optional[str] = ...) -> None: ...

class Request(_message.Message):
    __slots__ = ["add_download", "add_subtitles", "adopt", "cancel", "cancel_all", "cancel_group", "check_license", "download_license", "export", "forget", "get_config", "get_download", "get_manifest_info", "get_playback_key", "get_stats", "get_subtitles", "get_system_info", "has_download", "hello", "id", "list_downloads", "move", "pause", "pause_all", "pause_group", "purge", "release_all_licenses", "release_license", "remove_subtitles", "renew_license", "resume", "resume_all", "resume_group", "set_config", "set_download", "stop", "subscribe", "verify"]
    ADD_DOWNLOAD_FIELD_NUMBER: _ClassVar[int]
    ADD_SUBTITLES_FIELD_NUMBER: _ClassVar[int]
    ADOPT_FIELD_NUMBER: _ClassVar[int]
    CANCEL_ALL_FIELD_NUMBER: _ClassVar[int]
    CANCEL_FIELD_NUMBER: _ClassVar[int]
    CANCEL_GROUP_FIELD_NUMBER: _ClassVar[int]
    CHECK_LICENSE_FIELD_NUMBER: _ClassVar[int]
    DOWNLOAD_LICENSE_FIELD_NUMBER: _ClassVar[int]
    EXPORT_FIELD_NUMBER: _ClassVar[int]
    FORGET_FIELD_NUMBER: _ClassVar[int]
    GET_CONFIG_FIELD_NUMBER: _ClassVar[int]
    GET_DOWNLOAD_FIELD_NUMBER: _ClassVar[int]
    GET_MANIFEST_INFO_FIELD_NUMBER: _ClassVar[int]
    GET_PLAYBACK_KEY_FIELD_NUMBER: _ClassVar[int]
    GET_STATS_FIELD_NUMBER: _ClassVar[int]
    GET_SUBTITLES_FIELD_NUMBER: _ClassVar[int]
    GET_SYSTEM_INFO_FIELD_NUMBER: _ClassVar[int]
    HAS_DOWNLOAD_FIELD_NUMBER: _ClassVar[int]
    HELLO_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    LIST_DOWNLOADS_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    PAUSE_ALL_FIELD_NUMBER: _ClassVar[int]
    PAUSE_FIELD_NUMBER: _ClassVar[int]
    PAUSE_GROUP_FIELD_NUMBER: _ClassVar[int]
    PURGE_FIELD_NUMBER: _ClassVar[int]
    RELEASE_ALL_LICENSES_FIELD_NUMBER: _ClassVar[int]
    RELEASE_LICENSE_FIELD_NUMBER: _ClassVar[int]
    REMOVE_SUBTITLES_FIELD_NUMBER: _ClassVar[int]
    RENEW_LICENSE_FIELD_NUMBER: _ClassVar[int]
    RESUME_ALL_FIELD_NUMBER: _ClassVar[int]
    RESUME_FIELD_NUMBER: _ClassVar[int]
    RESUME_GROUP_FIELD_NUMBER: _ClassVar[int]
    SET_CONFIG_FIELD_NUMBER: _ClassVar[int]
    SET_DOWNLOAD_FIELD_NUMBER: _ClassVar[int]
    STOP_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIBE_FIELD_NUMBER: _ClassVar[int]
    VERIFY_FIELD_NUMBER: _ClassVar[int]
    add_download: AddDownloadRequest
    add_subtitles: SubtitlesRequest
    adopt: AdoptRequest
    cancel: IdRequest
    cancel_all: EmptyRequest
    cancel_group: GroupRequest
    check_license: IdRequest
    download_license: IdRequest
    export: ExportRequest
    forget: ForgetRequest
    get_config: EmptyRequest
    get_download: IdRequest
    get_manifest_info: GetManifestInfoRequest
    get_playback_key: PlaybackKeyRequest
    get_stats: EmptyRequest
    get_subtitles: IdRequest
    get_system_info: EmptyRequest
    has_download: IdRequest
    hello: HelloRequest
    id: int
    list_downloads: ListDownloadsRequest
    move: MoveRequest
    pause: IdRequest
    pause_all: EmptyRequest
    pause_group: GroupRequest
    purge: EmptyRequest
    release_all_licenses: EmptyRequest
    release_license: IdRequest
    remove_subtitles: SubtitlesRequest
    renew_license: IdRequest
    resume: IdRequest
    resume_all: EmptyRequest
    resume_group: GroupRequest
    set_config: SetConfigRequest
    set_download: SetDownloadRequest
    stop: StopRequest
    subscribe: SubscribeRequest
    verify: VerifyRequest
    def __init__(self, id: _Optional[int] = ..., hello: _Optional[_Union[HelloRequest, _Mapping]] = ..., add_download: _Optional[_Union[AddDownloadRequest, _Mapping]] = ..., get_download: _Optional[_Union[IdRequest, _Mapping]] = ..., list_downloads: _Optional[_Union[ListDownloadsRequest, _Mapping]] = ..., has_download: _Optional[_Union[IdRequest, _Mapping]] = ..., pause: _Optional[_Union[IdRequest, _Mapping]] = ..., resume: _Optional[_Union[IdRequest, _Mapping]] = ..., cancel: _Optional[_Union[IdRequest, _Mapping]] = ..., pause_all: _Optional[_Union[EmptyRequest, _Mapping]] = ..., resume_all: _Optional[_Union[EmptyRequest, _Mapping]] = ..., cancel_all: _Optional[_Union[EmptyRequest, _Mapping]] = ..., subscribe: _Optional[_Union[SubscribeRequest, _Mapping]] = ..., get_stats: _Optional[_Union[EmptyRequest, _Mapping]] = ..., get_system_info: _Optional[_Union[EmptyRequest, _Mapping]] = ..., get_config: _Optional[_Union[EmptyRequest, _Mapping]] = ..., set_config: _Optional[_Union[SetConfigRequest, _Mapping]] = ..., verify: _Optional[_Union[VerifyRequest, _Mapping]] = ..., purge: _Optional[_Union[EmptyRequest, _Mapping]] = ..., get_manifest_info: _Optional[_Union[GetManifestInfoRequest, _Mapping]] = ..., export: _Optional[_Union[ExportRequest, _Mapping]] = ..., add_subtitles: _Optional[_Union[SubtitlesRequest, _Mapping]] = ..., remove_subtitles: _Optional[_Union[SubtitlesRequest, _Mapping]] = ..., get_subtitles: _Optional[_Union[IdRequest, _Mapping]] = ..., download_license: _Optional[_Union[IdRequest, _Mapping]] = ..., check_license: _Optional[_Union[IdRequest, _Mapping]] = ..., renew_license: _Optional[_Union[IdRequest, _Mapping]] = ..., release_license: _Optional[_Union[IdRequest, _Mapping]] = ..., release_all_licenses: _Optional[_Union[EmptyRequest, _Mapping]] = ..., get_playback_key: _Optional[_Union[PlaybackKeyRequest, _Mapping]] = ..., stop: _Optional[_Union[StopRequest, _Mapping]] = ..., forget: _Optional[_Union[ForgetRequest, _Mapping]] = ..., adopt: _Optional[_Union[AdoptRequest, _Mapping]] = ..., pause_group: _Optional[_Union[GroupRequest, _Mapping]] = ..., resume_group: _Optional[_Union[GroupRequest, _Mapping]] = ..., cancel_group: _Optional[_Union[GroupRequest, _Mapping]] = ..., set_download: _Optional[_Union[SetDownloadRequest, _Mapping]] = ..., move: _Optional[_Union[MoveRequest, _Mapping]] = ...) -> None: ...

class Response(_message.Message):
    __slots__ = ["config", "count", "download", "export", "has", "hello", "id", "license", "list", "manifest_info", "playback_key", "purge", "stats", "status", "subtitles", "system_info", "verify"]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    DOWNLOAD_FIELD_NUMBER: _ClassVar[int]
    EXPORT_FIELD_NUMBER: _ClassVar[int]
    HAS_FIELD_NUMBER: _ClassVar[int]
    HELLO_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    LICENSE_FIELD_NUMBER: _ClassVar[int]
    LIST_FIELD_NUMBER: _ClassVar[int]
    MANIFEST_INFO_FIELD_NUMBER: _ClassVar[int]
    PLAYBACK_KEY_FIELD_NUMBER: _ClassVar[int]
    PURGE_FIELD_NUMBER: _ClassVar[int]
    STATS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SUBTITLES_FIELD_NUMBER: _ClassVar[int]
    SYSTEM_INFO_FIELD_NUMBER: _ClassVar[int]
    VERIFY_FIELD_NUMBER: _ClassVar[int]
    config: Config
    count: CountResult
    download: DownloadResult
    export: ExportResult
    has: HasDownloadResult
    hello: HelloResult
    id: int
    license: LicenseStatus
    list: ListDownloadsResult
    manifest_info: ManifestInfoResult
    playback_key: PlaybackKeyResult
    purge: PurgeResult
    stats: StatsResult
    status: Status
    subtitles: SubtitlesResult
    system_info: SystemInfoResult
    verify: VerifyReport
    def __init__(self, id: _Optional[int] = ..., status: _Optional[_Union[Status, _Mapping]] = ..., hello: _Optional[_Union[HelloResult, _Mapping]] = ..., download: _Optional[_Union[DownloadResult, _Mapping]] = ..., list: _Optional[_Union[ListDownloadsResult, _Mapping]] = ..., has: _Optional[_Union[HasDownloadResult, _Mapping]] = ..., count: _Optional[_Union[CountResult, _Mapping]] = ..., stats: _Optional[_Union[StatsResult, _Mapping]] = ..., system_info: _Optional[_Union[SystemInfoResult, _Mapping]] = ..., config: _Optional[_Union[Config, _Mapping]] = ..., verify: _Optional[_Union[VerifyReport, _Mapping]] = ..., purge: _Optional[_Union[PurgeResult, _Mapping]] = ..., manifest_info: _Optional[_Union[ManifestInfoResult, _Mapping]] = ..., export: _Optional[_Union[ExportResult, _Mapping]] = ..., subtitles: _Optional[_Union[SubtitlesResult, _Mapping]] = ..., license: _Optional[_Union[LicenseStatus, _Mapping]] = ..., playback_key: _Optional[_Union[PlaybackKeyResult, _Mapping]] = ...) -> None: ...

class ServerMessage(_message.Message):
    __slots__ = ["event", "response"]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    event: Event
    response: Response
    def __init__(self, response: _Optional[_Union[Response, _Mapping]] = ..., event: _Optional[_Union[Event, _Mapping]] = ...) -> None: ...

class SetConfigRequest(_message.Message):
    __slots__ = ["entries"]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[ConfigEntry]
    def __init__(self, entries: _Optional[_Iterable[_Union[ConfigEntry, _Mapping]]] = ...) -> None: ...

class SetDownloadRequest(_message.Message):
    __slots__ = ["clear_headers", "clear_license_headers", "file", "headers", "id", "license_headers", "network", "on_battery", "priority", "rate_limit", "uri"]
    CLEAR_HEADERS_FIELD_NUMBER: _ClassVar[int]
    CLEAR_LICENSE_HEADERS_FIELD_NUMBER: _ClassVar[int]
    FILE_FIELD_NUMBER: _ClassVar[int]
    HEADERS_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    LICENSE_HEADERS_FIELD_NUMBER: _ClassVar[int]
    NETWORK_FIELD_NUMBER: _ClassVar[int]
    ON_BATTERY_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    RATE_LIMIT_FIELD_NUMBER: _ClassVar[int]
    URI_FIELD_NUMBER: _ClassVar[int]
    clear_headers: bool
    clear_license_headers: bool
    file: str
    headers: _containers.RepeatedCompositeFieldContainer[Header]
    id: str
    license_headers: _containers.RepeatedCompositeFieldContainer[Header]
    network: str
    on_battery: str
    priority: Priority
    rate_limit: int
    uri: str
    def __init__(self, id: _Optional[str] = ..., priority: _Optional[_Union[Priority, str]] = ..., rate_limit: _Optional[int] = ..., uri: _Optional[str] = ..., file: _Optional[str] = ..., headers: _Optional[_Iterable[_Union[Header, _Mapping]]] = ..., clear_headers: bool = ..., license_headers: _Optional[_Iterable[_Union[Header, _Mapping]]] = ..., clear_license_headers: bool = ..., network: _Optional[str] = ..., on_battery: _Optional[str] = ...) -> None: ...

class SettingsChanged(_message.Message):
    __slots__ = ["changed", "download"]
    CHANGED_FIELD_NUMBER: _ClassVar[int]
    DOWNLOAD_FIELD_NUMBER: _ClassVar[int]
    changed: _containers.RepeatedScalarFieldContainer[str]
    download: Download
    def __init__(self, download: _Optional[_Union[Download, _Mapping]] = ..., changed: _Optional[_Iterable[str]] = ...) -> None: ...

class StateBytes(_message.Message):
    __slots__ = ["bytes", "state"]
    BYTES_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    bytes: int
    state: DownloadState
    def __init__(self, state: _Optional[_Union[DownloadState, str]] = ..., bytes: _Optional[int] = ...) -> None: ...

class StateChanged(_message.Message):
    __slots__ = ["download", "previous"]
    DOWNLOAD_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_FIELD_NUMBER: _ClassVar[int]
    download: Download
    previous: DownloadState
    def __init__(self, download: _Optional[_Union[Download, _Mapping]] = ..., previous: _Optional[_Union[DownloadState, str]] = ...) -> None: ...

class StateCount(_message.Message):
    __slots__ = ["count", "state"]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    count: int
    state: DownloadState
    def __init__(self, state: _Optional[_Union[DownloadState, str]] = ..., count: _Optional[int] = ...) -> None: ...

class StatsResult(_message.Message):
    __slots__ = ["active_transfers", "counts", "downloaded_bytes", "speed"]
    ACTIVE_TRANSFERS_FIELD_NUMBER: _ClassVar[int]
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    DOWNLOADED_BYTES_FIELD_NUMBER: _ClassVar[int]
    SPEED_FIELD_NUMBER: _ClassVar[int]
    active_transfers: int
    counts: _containers.RepeatedCompositeFieldContainer[StateCount]
    downloaded_bytes: int
    speed: int
    def __init__(self, speed: _Optional[int] = ..., counts: _Optional[_Iterable[_Union[StateCount, _Mapping]]] = ..., active_transfers: _Optional[int] = ..., downloaded_bytes: _Optional[int] = ...) -> None: ...

class Status(_message.Message):
    __slots__ = ["code", "message"]
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: StatusCode
    message: str
    def __init__(self, code: _Optional[_Union[StatusCode, str]] = ..., message: _Optional[str] = ...) -> None: ...

class StopRequest(_message.Message):
    __slots__ = ["id", "reason"]
    ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    id: str
    reason: str
    def __init__(self, id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class SubscribeRequest(_message.Message):
    __slots__ = ["ids", "min_interval_ms", "min_progress_step", "replay_from_seq", "states"]
    IDS_FIELD_NUMBER: _ClassVar[int]
    MIN_INTERVAL_MS_FIELD_NUMBER: _ClassVar[int]
    MIN_PROGRESS_STEP_FIELD_NUMBER: _ClassVar[int]
    REPLAY_FROM_SEQ_FIELD_NUMBER: _ClassVar[int]
    STATES_FIELD_NUMBER: _ClassVar[int]
    ids: _containers.RepeatedScalarFieldContainer[str]
    min_interval_ms: int
    min_progress_step: int
    replay_from_seq: int
    states: _containers.RepeatedScalarFieldContainer[DownloadState]
    def __init__(self, ids: _Optional[_Iterable[str]] = ..., min_progress_step: _Optional[int] = ..., min_interval_ms: _Optional[int] = ..., replay_from_seq: _Optional[int] = ..., states: _Optional[_Iterable[_Union[DownloadState, str]]] = ...) -> None: ...

class SubtitlesRequest(_message.Message):
    __slots__ = ["id", "languages", "text_tracks"]
    ID_FIELD_NUMBER: _ClassVar[int]
    LANGUAGES_FIELD_NUMBER: _ClassVar[int]
    TEXT_TRACKS_FIELD_NUMBER: _ClassVar[int]
    id: str
    languages: _containers.RepeatedScalarFieldContainer[str]
    text_tracks: _containers.RepeatedCompositeFieldContainer[TextTrack]
    def __init__(self, id: _Optional[str] = ..., languages: _Optional[_Iterable[str]] = ..., text_tracks: _Optional[_Iterable[_Union[TextTrack, _Mapping]]] = ...) -> None: ...

class SubtitlesResult(_message.Message):
    __slots__ = ["subtitles", "text_tracks"]
    SUBTITLES_FIELD_NUMBER: _ClassVar[int]
    TEXT_TRACKS_FIELD_NUMBER: _ClassVar[int]
    subtitles: _containers.RepeatedCompositeFieldContainer[RenditionInfo]
    text_tracks: _containers.RepeatedCompositeFieldContainer[TextTrack]
    def __init__(self, subtitles: _Optional[_Iterable[_Union[RenditionInfo, _Mapping]]] = ..., text_tracks: _Optional[_Iterable[_Union[TextTrack, _Mapping]]] = ...) -> None: ...

class SystemInfoResult(_message.Message):
    __slots__ = ["asset_count", "bytes_by_state", "bytes_held", "daemon_version", "data_dir", "disk_free", "disk_total", "download_count", "last_verify", "metered", "network_service", "notification_service", "on_battery", "power_service", "rate_limit_changes_at", "rate_limit_next", "rate_limit_now", "sleep_inhibitor", "socket_path", "warnings"]
    ASSET_COUNT_FIELD_NUMBER: _ClassVar[int]
    BYTES_BY_STATE_FIELD_NUMBER: _ClassVar[int]
    BYTES_HELD_FIELD_NUMBER: _ClassVar[int]
    DAEMON_VERSION_FIELD_NUMBER: _ClassVar[int]
    DATA_DIR_FIELD_NUMBER: _ClassVar[int]
    DISK_FREE_FIELD_NUMBER: _ClassVar[int]
    DISK_TOTAL_FIELD_NUMBER: _ClassVar[int]
    DOWNLOAD_COUNT_FIELD_NUMBER: _ClassVar[int]
    LAST_VERIFY_FIELD_NUMBER: _ClassVar[int]
    METERED_FIELD_NUMBER: _ClassVar[int]
    NETWORK_SERVICE_FIELD_NUMBER: _ClassVar[int]
    NOTIFICATION_SERVICE_FIELD_NUMBER: _ClassVar[int]
    ON_BATTERY_FIELD_NUMBER: _ClassVar[int]
    POWER_SERVICE_FIELD_NUMBER: _ClassVar[int]
    RATE_LIMIT_CHANGES_AT_FIELD_NUMBER: _ClassVar[int]
    RATE_LIMIT_NEXT_FIELD_NUMBER: _ClassVar[int]
    RATE_LIMIT_NOW_FIELD_NUMBER: _ClassVar[int]
    SLEEP_INHIBITOR_FIELD_NUMBER: _ClassVar[int]
    SOCKET_PATH_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    asset_count: int
    bytes_by_state: _containers.RepeatedCompositeFieldContainer[StateBytes]
    bytes_held: int
    daemon_version: str
    data_dir: str
    disk_free: int
    disk_total: int
    download_count: int
    last_verify: VerifyReport
    metered: bool
    network_service: str
    notification_service: str
    on_battery: bool
    power_service: str
    rate_limit_changes_at: int
    rate_limit_next: int
    rate_limit_now: int
    sleep_inhibitor: str
    socket_path: str
    warnings: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, data_dir: _Optional[str] = ..., disk_total: _Optional[int] = ..., disk_free: _Optional[int] = ..., bytes_held: _Optional[int] = ..., daemon_version: _Optional[str] = ..., socket_path: _Optional[str] = ..., download_count: _Optional[int] = ..., bytes_by_state: _Optional[_Iterable[_Union[StateBytes, _Mapping]]] = ..., asset_count: _Optional[int] = ..., last_verify: _Optional[_Union[VerifyReport, _Mapping]] = ..., warnings: _Optional[_Iterable[str]] = ..., rate_limit_now: _Optional[int] = ..., rate_limit_changes_at: _Optional[int] = ..., rate_limit_next: _Optional[int] = ..., metered: bool = ..., on_battery: bool = ..., network_service: _Optional[str] = ..., power_service: _Optional[str] = ..., sleep_inhibitor: _Optional[str] = ..., notification_service: _Optional[str] = ...) -> None: ...

class TextTrack(_message.Message):
    __slots__ = ["lang", "path", "title", "type", "uri"]
    LANG_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    URI_FIELD_NUMBER: _ClassVar[int]
    lang: str
    path: str
    title: str
    type: str
    uri: str
    def __init__(self, uri: _Optional[str] = ..., lang: _Optional[str] = ..., title: _Optional[str] = ..., type: _Optional[str] = ..., path: _Optional[str] = ...) -> None: ...

class VariantInfo(_message.Message):
    __slots__ = ["average_bandwidth", "bandwidth", "codecs", "duration", "encryption", "estimated_bytes", "frame_rate", "height", "size_is_exact", "uri", "width"]
    AVERAGE_BANDWIDTH_FIELD_NUMBER: _ClassVar[int]
    BANDWIDTH_FIELD_NUMBER: _ClassVar[int]
    CODECS_FIELD_NUMBER: _ClassVar[int]
    DURATION_FIELD_NUMBER: _ClassVar[int]
    ENCRYPTION_FIELD_NUMBER: _ClassVar[int]
    ESTIMATED_BYTES_FIELD_NUMBER: _ClassVar[int]
    FRAME_RATE_FIELD_NUMBER: _ClassVar[int]
    HEIGHT_FIELD_NUMBER: _ClassVar[int]
    SIZE_IS_EXACT_FIELD_NUMBER: _ClassVar[int]
    URI_FIELD_NUMBER: _ClassVar[int]
    WIDTH_FIELD_NUMBER: _ClassVar[int]
    average_bandwidth: int
    bandwidth: int
    codecs: _containers.RepeatedScalarFieldContainer[str]
    duration: float
    encryption: _containers.RepeatedScalarFieldContainer[str]
    estimated_bytes: int
    frame_rate: float
    height: int
    size_is_exact: bool
    uri: str
    width: int
    def __init__(self, uri: _Optional[str] = ..., bandwidth: _Optional[int] = ..., average_bandwidth: _Optional[int] = ..., width: _Optional[int] = ..., height: _Optional[int] = ..., codecs: _Optional[_Iterable[str]] = ..., frame_rate: _Optional[float] = ..., encryption: _Optional[_Iterable[str]] = ..., estimated_bytes: _Optional[int] = ..., size_is_exact: bool = ..., duration: _Optional[float] = ...) -> None: ...

class VerifyReport(_message.Message):
    __slots__ = ["bytes_freed", "deep", "digests_checked", "downloads_checked", "duration_ms", "files_checked", "files_deleted", "findings", "finished_at", "repaired", "requeued"]
    BYTES_FREED_FIELD_NUMBER: _ClassVar[int]
    DEEP_FIELD_NUMBER: _ClassVar[int]
    DIGESTS_CHECKED_FIELD_NUMBER: _ClassVar[int]
    DOWNLOADS_CHECKED_FIELD_NUMBER: _ClassVar[int]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    FILES_CHECKED_FIELD_NUMBER: _ClassVar[int]
    FILES_DELETED_FIELD_NUMBER: _ClassVar[int]
    FINDINGS_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    REPAIRED_FIELD_NUMBER: _ClassVar[int]
    REQUEUED_FIELD_NUMBER: _ClassVar[int]
    bytes_freed: int
    deep: bool
    digests_checked: int
    downloads_checked: int
    duration_ms: int
    files_checked: int
    files_deleted: int
    findings: _containers.RepeatedCompositeFieldContainer[Finding]
    finished_at: int
    repaired: bool
    requeued: int
    def __init__(self, findings: _Optional[_Iterable[_Union[Finding, _Mapping]]] = ..., downloads_checked: _Optional[int] = ..., files_checked: _Optional[int] = ..., finished_at: _Optional[int] = ..., duration_ms: _Optional[int] = ..., deep: bool = ..., repaired: bool = ..., requeued: _Optional[int] = ..., files_deleted: _Optional[int] = ..., bytes_freed: _Optional[int] = ..., digests_checked: _Optional[int] = ...) -> None: ...

class VerifyRequest(_message.Message):
    __slots__ = ["deep", "dry_run", "repair"]
    DEEP_FIELD_NUMBER: _ClassVar[int]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    REPAIR_FIELD_NUMBER: _ClassVar[int]
    deep: bool
    dry_run: bool
    repair: bool
    def __init__(self, deep: bool = ..., repair: bool = ..., dry_run: bool = ...) -> None: ...

class StatusCode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class DownloadState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class ErrorKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class Priority(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class MovePlace(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class ExportFormat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class FindingKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class ExportTrackKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class LicenseEventKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
