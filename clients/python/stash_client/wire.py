"""PROTOCOL.md section 2 in pure Python: frames (a u32 big-endian length, then one protobuf
message), the Requests of every operation, and what a ServerMessage means to a client. Shared
by the blocking and the asyncio client; no I/O here."""
import struct
from dataclasses import fields, is_dataclass
from typing import Any, Iterable, List, Mapping, Optional, Type, TypeVar, Union

from . import records, validate
from .budget import MAX_DECODED_BYTES, DecodeBudget
from . import stash_pb2 as pb
from .errors import STATUS_NAMES, StashError
from .options import AddOptions, BundleFiles, Headers, TextTracks

MAX_FRAME_LENGTH = 4 * 1024 * 1024
"""The largest payload of one frame, either way."""

_BUDGET = DecodeBudget(pb.ServerMessage.DESCRIPTOR, MAX_DECODED_BYTES)

PROTOCOL_VERSION = 1
PREFIX = struct.Struct(">I")

_Result = TypeVar("_Result")


def frame(request: pb.Request) -> bytes:
    """A Request as the bytes of one frame."""
    payload: bytes = request.SerializeToString()
    if len(payload) > MAX_FRAME_LENGTH:
        raise StashError(
            "INVALID_ARGUMENT", f"the request is {len(payload)} bytes packed; a frame holds at most {MAX_FRAME_LENGTH}")
    return PREFIX.pack(len(payload)) + payload


def payload_length(prefix: bytes) -> int:
    """The payload length a frame's 4-byte prefix announces, checked before anything is read
    or kept for the payload: 0 and lengths above the limit end the connection."""
    length: int = PREFIX.unpack(prefix)[0]
    if length == 0:
        raise StashError("INTERNAL", "stashd sent a frame of length 0; the smallest payload is 1 byte")
    if length > MAX_FRAME_LENGTH:
        raise StashError(
            "RESOURCE_EXHAUSTED",
            f"stashd sent a frame length of {length} bytes; the limit is {MAX_FRAME_LENGTH} (MAX_FRAME_LENGTH)")
    return length


class FrameBuffer:
    """Splits received bytes into payloads: frames may arrive split over reads, and one read may
    hold several."""

    def __init__(self) -> None:
        self._bytes = bytearray()

    def feed(self, data: bytes) -> None:
        self._bytes += data

    def next_payload(self) -> Optional[bytes]:
        """The next whole payload, or None while it has not all arrived."""
        if len(self._bytes) < PREFIX.size:
            return None
        length = payload_length(bytes(self._bytes[:PREFIX.size]))
        if len(self._bytes) < PREFIX.size + length:
            return None
        payload = bytes(self._bytes[PREFIX.size:PREFIX.size + length])
        del self._bytes[:PREFIX.size + length]
        return payload

    def pending(self) -> int:
        """Bytes of a frame that has not all arrived."""
        return len(self._bytes)


class Message:
    """A ServerMessage as a client reads it: an event (``event``, None for a kind this client
    skips), or a response (``response_id`` not None) with either ``error`` or ``result_name``
    and ``result``."""

    __slots__ = ("event", "response_id", "error", "result_name", "result", "is_event")

    def __init__(self) -> None:
        self.is_event = False
        self.event: Optional[records.Event] = None
        self.response_id: Optional[int] = None
        self.error: Optional[StashError] = None
        self.result_name: Optional[str] = None
        self.result: object = None


def decode(payload: bytes) -> Message:
    """Reads one ServerMessage payload. Raises StashError INTERNAL for bytes that are not one,
    hold a number this client does not know, a string that is not UTF-8 or holds a NUL, or a
    record whose numbers cannot be (validate.py): the connection cannot be trusted after it.
    Raises RESOURCE_EXHAUSTED, before decoding, for one that would take more than
    MAX_DECODED_BYTES."""
    _BUDGET.check(payload)
    message = pb.ServerMessage()
    try:
        message.ParseFromString(payload)
    except Exception as error:  # the runtime's DecodeError, whose module differs between versions
        # The runtime does not say which string was not UTF-8; the walk does, when that was why.
        validate.check_strings(payload)
        raise StashError("INTERNAL", f"stashd sent {len(payload)} bytes that are not a stash.v1.ServerMessage: {error}")
    if b"\0" in payload:
        validate.check_strings(payload)  # a NUL inside a string needs a 0 byte on the wire
    out = Message()
    kind = message.WhichOneof("msg")
    if kind == "event":
        out.is_event = True
        validate.check_event(message.event)
        out.event = records.event(message.event)
    elif kind == "response":
        response = message.response
        out.response_id = response.id
        code = response.status.code if response.HasField("status") else 0
        if code >= len(STATUS_NAMES) or code < 0:
            # PROTOCOL.md section 6: a code the client does not know is INTERNAL.
            out.error = StashError(
                "INTERNAL", f"stashd answered with status code {code}, which this client does not know: "
                f"{response.status.message}")
        elif code != 0:
            out.error = StashError(STATUS_NAMES[code], response.status.message)
        else:
            validate.check_result(response)
            out.result_name, out.result = records.result(response)
    else:
        raise StashError("INTERNAL", "stashd sent a ServerMessage with neither a response nor an event set")
    return out


def refused(message: Message) -> bool:
    """Id 0 is the daemon refusing the connection itself (PROTOCOL.md section 2)."""
    return message.response_id == 0 and message.error is not None


def checked_result(message: Message, op: Optional[str], expected: Optional[str]) -> object:
    """The result of the answer to `op`, or the error it carries."""
    if message.error is not None:
        raise message.error
    if expected is not None and message.result_name != expected:
        raise StashError("INTERNAL", f"stashd answered {op} with the result '{message.result_name or 'none'}', "
                                     f"expected '{expected}'")
    return message.result


def typed_result(message: Message, op: Optional[str], expected: str, kind: Type[_Result]) -> _Result:
    """checked_result, as the record class the result name stands for: a decoded result of
    another class would be a mistake of this client's tables, said as INTERNAL, not a wrong
    type handed on."""
    result = checked_result(message, op, expected)
    if not isinstance(result, kind):
        raise StashError("INTERNAL", f"the answer to {op} decoded as {type(result).__name__}, expected {kind.__name__}")
    return result


# ------------------------------------------------------------------ requests

def _headers(headers: Optional[Headers], field: str) -> List[pb.Header]:
    """Headers as a dict, or pairs, or Header records."""
    if headers is None:
        return []
    items: Iterable[object] = headers.items() if isinstance(headers, Mapping) else headers
    out = []
    for index, item in enumerate(items):
        if isinstance(item, records.Header):
            out.append(pb.Header(name=item.name, value=item.value))
        elif isinstance(item, (tuple, list)) and len(item) == 2:
            out.append(pb.Header(name=item[0], value=item[1]))
        else:
            raise StashError("INVALID_ARGUMENT", f"{field}[{index}]: {item!r} is not a header (name, value)")
    return out


def _record_args(item: object, cls: type, field: str, index: int) -> Mapping[str, Any]:
    if isinstance(item, cls) and is_dataclass(item):
        return {f.name: getattr(item, f.name) for f in fields(item)}
    if isinstance(item, Mapping):
        return item
    raise StashError("INVALID_ARGUMENT", f"{field}[{index}]: {item!r} is not a {cls.__name__} or a dict")


def _bundle_files(files: Optional[BundleFiles]) -> List[pb.BundleFile]:
    out = []
    for index, item in enumerate(files or ()):
        args = _record_args({"url": item} if isinstance(item, str) else item, records.BundleFile, "files", index)
        out.append(pb.BundleFile(url=args.get("url", ""), path=args.get("path", ""), size=args.get("size", 0),
                                 sha256=args.get("sha256", ""), expect=args.get("expect") or "",
                                 min_size=_byte_count(args.get("min_size", 0), f"files[{index}].min_size")))
    return out


def _byte_count(value: object, field: str) -> int:
    """A count of bytes for a uint64 field: refused naming the field rather than raised by protobuf."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << 63:
        raise StashError("INVALID_ARGUMENT", f"{field}: {value!r} is not a byte count (0 to {(1 << 63) - 1})")
    return value


def _text_tracks(tracks: Optional[TextTracks]) -> List[pb.TextTrack]:
    out = []
    for index, item in enumerate(tracks or ()):
        args = _record_args(item, records.TextTrack, "text_tracks", index)
        out.append(pb.TextTrack(uri=args.get("uri", ""), lang=args.get("lang", ""), title=args.get("title", ""),
                                type=args.get("type", "")))
    return out


def _hls(hls: Union[records.HlsOptions, Mapping[str, Any]]) -> pb.HlsOptions:
    args = _record_args(hls, records.HlsOptions, "hls", 0)
    message = pb.HlsOptions(quality=args.get("quality", ""), max_height=args.get("max_height", 0),
                            bandwidth=args.get("bandwidth", 0), subtitles=list(args.get("subtitles", ())),
                            audio=list(args.get("audio", ())), segment_concurrency=args.get("segment_concurrency", 0))
    _set_range(message, args.get("start"), args.get("end"), "hls")
    return message


def check_time_range(features: Iterable[str], daemon_version: str, hls: Any = None, start: Optional[float] = None,
                     end: Optional[float] = None) -> None:
    """Refuses (UNIMPLEMENTED) a time range, in an add's ``hls`` or a plan's ``start``/``end``, for
    a daemon without the feature "time-range": it ignores the fields and takes the whole stream."""
    wanted = start is not None or end is not None
    if hls is not None:
        args = _record_args(hls, records.HlsOptions, "hls", 0)
        wanted = wanted or args.get("start") is not None or args.get("end") is not None
    if wanted and "time-range" not in features:
        raise StashError("UNIMPLEMENTED",
                         f"stashd {daemon_version} does not support time ranges (feature \"time-range\"); it would take the whole stream")


def _set_range(message: Any, start: Optional[float], end: Optional[float], field: str) -> None:
    """Sets the range's fields that are given (a oneof of one each: 0 given is sent). The
    daemon checks the values and names a bad one; only what is not a number is refused here."""
    for name, value in (("start", start), ("end", end)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise StashError("INVALID_ARGUMENT", f"{field}.{name}: {value!r} is not a number of seconds")
        setattr(message, name, float(value))


def _drm(drm: Union[records.DrmParams, Mapping[str, Any]]) -> pb.DrmParams:
    args = _record_args(drm, records.DrmParams, "drm", 0)
    return pb.DrmParams(type=args.get("type", ""), license_server=args.get("license_server", ""),
                        license_headers=_headers(args.get("license_headers"), "drm.license_headers"),
                        content_id=args.get("content_id", ""), certificate_url=args.get("certificate_url", ""))


def _states(state: Union[str, Iterable[str], None]) -> List["pb.DownloadState"]:
    names = [state] if isinstance(state, str) else list(state or ())
    out: List[pb.DownloadState] = []
    for name in names:
        value = pb.DownloadState.DESCRIPTOR.values_by_name.get(name)
        if value is None:
            raise StashError("INVALID_ARGUMENT", f"state: '{name}' is not a state (one of "
                             f"{', '.join(pb.DownloadState.keys())})")
        out.append(value.number)
    return out


_ADD_OPTIONS = {"sha256", "headers", "files", "hls", "drm", "force", "app_data", "group", "append", "text_tracks", "rate_limit",
                "expect", "min_size", "priority", "replace", "network", "on_battery"}
_MAX_RATE = (1 << 63) - 1


def _rate_limit(value: object) -> int:
    """A download's rate limit: an int of bytes per second, 0 (none) to 2^63-1."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _MAX_RATE:
        raise StashError("INVALID_ARGUMENT", f"rate_limit: {value!r} is not bytes per second from 0 (none) to {_MAX_RATE}")
    return value


def check_rate_limit(features: Iterable[str], daemon_version: str, rate_limit: object) -> None:
    """Refuses (UNIMPLEMENTED) a download's rate limit for a daemon without the feature
    "rate-limit": it ignores the field and fetches at full speed."""
    if _rate_limit(rate_limit) and "rate-limit" not in features:
        raise StashError("UNIMPLEMENTED",
                         f"stashd {daemon_version} does not support a rate limit per download (feature \"rate-limit\"); it would fetch at full speed")


def check_content_rules(features: Iterable[str], daemon_version: str, body: pb.AddDownloadRequest) -> None:
    """Refuses (UNIMPLEMENTED) content rules (``expect``, ``min_size``, a file's own) for a
    daemon without the feature "content-check": it ignores them and keeps any body."""
    wanted = bool(body.expect or body.min_size) or any(f.expect or f.min_size for f in body.files)
    if wanted and "content-check" not in features:
        raise StashError("UNIMPLEMENTED",
                         f"stashd {daemon_version} does not check content (feature \"content-check\"); it would keep any body")


def priority(value: object, field: str = "priority") -> str:
    """A priority by name: "high", "normal" or "low" (or PRIORITY_HIGH ...), as the schema's name."""
    if isinstance(value, str):
        name = value.upper()
        number = pb.Priority.DESCRIPTOR.values_by_name.get(name if name.startswith("PRIORITY_") else "PRIORITY_" + name)
        if number is not None:
            return str(number.name)
    raise StashError("INVALID_ARGUMENT", f"{field}: {value!r} is not a priority; give \"high\", \"normal\" or \"low\"")


def check_priority(features: Iterable[str], daemon_version: str, wanted: bool = True) -> None:
    """Refuses (UNIMPLEMENTED) a priority or a queue move for a daemon without the feature
    "priority": it would add every download as normal, and knows neither SetDownload nor Move."""
    if wanted and "priority" not in features:
        raise StashError("UNIMPLEMENTED",
                         f"stashd {daemon_version} does not support priorities and queue moves (feature \"priority\")")


_RULES = {"network": ("any", "unmetered"), "on_battery": ("continue", "pause")}


def desktop_rule(value: object, field: str) -> str:
    """A download's own network or on-battery rule (docs/DESKTOP.md); None is "" (not given)."""
    if value is None:
        return ""
    choices = _RULES[field]
    if not isinstance(value, str) or value.lower() not in choices:
        raise StashError("INVALID_ARGUMENT", f"{field}: {value!r} is not one of {', '.join(choices)}")
    return value.lower()


def check_desktop(features: Iterable[str], daemon_version: str, wanted: bool) -> None:
    """Refuses (UNIMPLEMENTED) network and on-battery rules for a daemon without the feature
    "desktop": it would ignore them."""
    if wanted and "desktop" not in features:
        raise StashError("UNIMPLEMENTED",
                         f"stashd {daemon_version} does not follow the desktop (feature \"desktop\"); it would ignore network and on_battery")


def set_desktop_rules(id: str, network: object, on_battery: object) -> pb.Request:
    body = pb.SetDownloadRequest(id=id, network=desktop_rule(network, "network"), on_battery=desktop_rule(on_battery, "on_battery"))
    if not body.network and not body.on_battery:
        raise StashError("INVALID_ARGUMENT", "give network, on_battery or both")
    return pb.Request(set_download=body)


def check_replace(features: Iterable[str], daemon_version: str, wanted: bool) -> None:
    """Refuses (UNIMPLEMENTED) a replace for a daemon without the feature "replace": it would
    answer the old copy as it is, without fetching it again."""
    if wanted and "replace" not in features:
        raise StashError("UNIMPLEMENTED",
                         f"stashd {daemon_version} does not support replace (feature \"replace\"); it would keep the old copy without fetching it again")


def check_replace_any(features: Iterable[str], daemon_version: str, add: pb.AddDownloadRequest) -> None:
    """Refuses (UNIMPLEMENTED) a replace of a bundle, an HLS stream or a download with text
    tracks for a daemon without the feature "replace-any": one with "replace" only refuses it."""
    if add.replace and (len(add.files) or add.HasField("hls") or len(add.text_tracks)) and "replace-any" not in features:
        raise StashError("UNIMPLEMENTED",
                         f"stashd {daemon_version} replaces single files only (feature \"replace-any\" replaces bundles, HLS streams and downloads with text tracks)")


def set_priority(id: str, value: object) -> pb.Request:
    return pb.Request(set_download=pb.SetDownloadRequest(id=id, priority=priority(value)))


def check_set_download(features: Iterable[str], daemon_version: str) -> None:
    """Refuses (UNIMPLEMENTED) a change of a download's rate limit for a daemon without the
    feature "set-download": it would ignore the field."""
    if "set-download" not in features:
        raise StashError("UNIMPLEMENTED",
                         f"stashd {daemon_version} cannot change a download's rate limit (feature \"set-download\")")


def set_rate_limit(id: str, value: object) -> pb.Request:
    if value is None:
        raise StashError("INVALID_ARGUMENT", "rate_limit: None is not bytes per second; give 0 for none")
    return pb.Request(set_download=pb.SetDownloadRequest(id=id, rate_limit=_rate_limit(value)))


def check_set_uri(features: Iterable[str], daemon_version: str, file: Optional[str] = None) -> None:
    """Refuses (UNIMPLEMENTED) a change of a download's URL for a daemon without the feature
    "set-uri", or of a bundle file's without "set-file-uri": it would ignore the field."""
    if "set-uri" not in features:
        raise StashError("UNIMPLEMENTED", f"stashd {daemon_version} cannot change a download's URL (feature \"set-uri\")")
    if file is not None and "set-file-uri" not in features:
        raise StashError("UNIMPLEMENTED", f"stashd {daemon_version} cannot change a bundle file's URL (feature \"set-file-uri\")")


def set_uri(id: str, uri: object, file: object = None) -> pb.Request:
    if not isinstance(uri, str):
        raise StashError("INVALID_ARGUMENT", f"uri: {uri!r} is not a URL; give an http:// or https:// URL")
    if not uri:
        # On the wire an empty URL reads as none given.
        raise StashError("INVALID_ARGUMENT", "uri is empty; give an http:// or https:// URL")
    if file is not None and (not isinstance(file, str) or not file):
        # On the wire an empty path reads as none given: the bundle would be refused.
        raise StashError("INVALID_ARGUMENT", f"file: {file!r} is not a bundle file's path; give it as show lists it")
    return pb.Request(set_download=pb.SetDownloadRequest(id=id, uri=uri, file=file or ""))


def check_set_headers(features: Iterable[str], daemon_version: str) -> None:
    """Refuses (UNIMPLEMENTED) a change of a download's headers for a daemon without the
    feature "set-headers": it would ignore the fields."""
    if "set-headers" not in features:
        raise StashError("UNIMPLEMENTED", f"stashd {daemon_version} cannot change a download's headers (feature \"set-headers\")")


def set_headers(id: str, headers: Optional[Headers], clear: object, license: bool = False) -> pb.Request:
    field = "license_headers" if license else "headers"
    if not isinstance(clear, bool):
        raise StashError("INVALID_ARGUMENT", f"clear: {clear!r} is not True or False")
    given = _headers(headers, field)
    if not given and not clear:
        # On the wire neither a header nor a clear reads as none given.
        raise StashError("INVALID_ARGUMENT", f"{field}: none given and no clear; give a header or clear=True")
    if license:
        body = pb.SetDownloadRequest(id=id, license_headers=given, clear_license_headers=clear)
    else:
        body = pb.SetDownloadRequest(id=id, headers=given, clear_headers=clear)
    return pb.Request(set_download=body)


def set_download(features: Iterable[str], daemon_version: str, id: str, priority_value: object = None, rate_limit: object = None,
                 uri: object = None, file: Optional[str] = None, headers: Optional[Headers] = None, clear_headers: bool = False,
                 license_headers: Optional[Headers] = None, clear_license_headers: bool = False) -> pb.Request:
    """Several settings in one SetDownload, each checked as its own call checks it; the daemon
    applies them all or, when one is refused, none."""
    features = tuple(features)
    parts: List[pb.Request] = []
    if priority_value is not None:
        check_priority(features, daemon_version)
        parts.append(set_priority(id, priority_value))
    if rate_limit is not None:
        check_set_download(features, daemon_version)
        parts.append(set_rate_limit(id, rate_limit))
    if uri is not None:
        check_set_uri(features, daemon_version, file)
        parts.append(set_uri(id, uri, file))
    elif file is not None:
        raise StashError("INVALID_ARGUMENT", f"file: {file!r} is given without a uri; file names the bundle file whose URL changes")
    if headers is not None or clear_headers:
        check_set_headers(features, daemon_version)
        parts.append(set_headers(id, headers, clear_headers))
    if license_headers is not None or clear_license_headers:
        check_set_headers(features, daemon_version)
        parts.append(set_headers(id, license_headers, clear_license_headers, license=True))
    if not parts:
        raise StashError("INVALID_ARGUMENT", "no setting to change; give priority, rate_limit, uri, headers or license_headers")
    body = pb.SetDownloadRequest(id=id)
    for part in parts:
        body.MergeFrom(part.set_download)
    return pb.Request(set_download=body)


def move(id: str, top: bool, bottom: bool, before: Optional[str], after: Optional[str]) -> pb.Request:
    """Exactly one of top, bottom, before=ID, after=ID."""
    given = [name for name, value in (("top", top), ("bottom", bottom), ("before", before), ("after", after))
             if value not in (None, False)]
    if len(given) != 1:
        raise StashError("INVALID_ARGUMENT", f"move: give one of top, bottom, before=ID, after=ID ({len(given)} given)")
    place = given[0]
    other = before if place == "before" else after if place == "after" else ""
    if not isinstance(other, str):
        raise StashError("INVALID_ARGUMENT", f"move: {place}={other!r} is not an id")
    return pb.Request(move=pb.MoveRequest(id=id, place=pb.MovePlace.Value("MOVE_PLACE_" + place.upper()), other=other))


def hello(client_name: str) -> pb.Request:
    return pb.Request(hello=pb.HelloRequest(protocol_version=PROTOCOL_VERSION, client_name=client_name))


def add(url: Optional[str], id: Optional[str], title: Optional[str], options: AddOptions) -> pb.Request:
    unknown = sorted(set(options) - _ADD_OPTIONS)
    if unknown:
        raise StashError("INVALID_ARGUMENT", f"add: unknown option {', '.join(unknown)} (known: "
                         f"{', '.join(sorted(_ADD_OPTIONS))})")
    body = pb.AddDownloadRequest(
        id=id or "", uri=url or "", title=title or "", sha256=options.get("sha256") or "",
        headers=_headers(options.get("headers"), "headers"), files=_bundle_files(options.get("files")),
        force=bool(options.get("force")), app_data=bytes(options.get("app_data") or b""),
        group=options.get("group") or "", append=bool(options.get("append")),
        text_tracks=_text_tracks(options.get("text_tracks")), rate_limit=_rate_limit(options.get("rate_limit")),
        expect=options.get("expect") or "", min_size=_byte_count(options.get("min_size", 0), "min_size"),
        replace=bool(options.get("replace")), network=desktop_rule(options.get("network"), "network"),
        on_battery=desktop_rule(options.get("on_battery"), "on_battery"))
    if options.get("priority") is not None:
        body.priority = pb.Priority.Value(priority(options.get("priority")))
    hls, drm = options.get("hls"), options.get("drm")
    if hls is not None:
        body.hls.CopyFrom(_hls(hls))
    if drm is not None:
        body.drm.CopyFrom(_drm(drm))
    return pb.Request(add_download=body)


def by_id(op: str, id: object) -> pb.Request:
    """The operations that take one id (IdRequest)."""
    if not isinstance(id, str):
        raise StashError("INVALID_ARGUMENT", f"id: {id!r} is not a string")
    return pb.Request(**{op: pb.IdRequest(id=id)})


def empty(op: str) -> pb.Request:
    return pb.Request(**{op: pb.EmptyRequest()})


def group(op: str, group: object, include_failed: bool = False) -> pb.Request:
    """The operations on a group (GroupRequest)."""
    if not isinstance(group, str):
        raise StashError("INVALID_ARGUMENT", f"group: {group!r} is not a string")
    return pb.Request(**{op: pb.GroupRequest(group=group, include_failed=include_failed)})


def list_downloads(state: Union[str, Iterable[str], None], group: Optional[str], page_size: int,
                   page_token: Optional[str]) -> pb.Request:
    return pb.Request(list_downloads=pb.ListDownloadsRequest(
        states=_states(state), group=group or "", page_size=page_size, page_token=page_token or ""))


def subscribe(ids: Optional[Iterable[str]], min_progress_step: int, min_interval_ms: int,
              replay_from_seq: int, states: Union[str, Iterable[str], None] = None) -> pb.Request:
    return pb.Request(subscribe=pb.SubscribeRequest(
        ids=list(ids or ()), min_progress_step=min_progress_step, min_interval_ms=min_interval_ms,
        replay_from_seq=replay_from_seq, states=_states(states)))


def config_value(config: records.Config, key: Optional[str]) -> Union[records.Config, int, str]:
    """The Config, or the value of one key ("max-parallel"; "rate-schedule" is text)."""
    if key is None:
        return config
    attribute = key.replace("-", "_")
    if not hasattr(config, attribute):
        raise StashError("INVALID_ARGUMENT", f"config key '{key}' is not one of "
                         f"{', '.join(k.replace('_', '-') for k in config.__dataclass_fields__)}")
    value: Union[int, str] = getattr(config, attribute)
    return value


def set_config(key: Union[str, Mapping[str, object]], value: object = None) -> pb.Request:
    """``key`` set to ``value``, or every entry of a dict ``key``."""
    entries = key if isinstance(key, Mapping) else {key: value}
    return pb.Request(set_config=pb.SetConfigRequest(
        entries=[pb.ConfigEntry(key=key, value=str(value)) for key, value in entries.items()]))


def verify(deep: bool, repair: bool, dry_run: bool) -> pb.Request:
    return pb.Request(verify=pb.VerifyRequest(deep=deep, repair=repair, dry_run=dry_run))


def plan(uri: str, headers: Optional[Headers], start: Optional[float] = None, end: Optional[float] = None) -> pb.Request:
    body = pb.GetManifestInfoRequest(uri=uri, headers=_headers(headers, "headers"))
    _set_range(body, start, end, "plan")
    return pb.Request(get_manifest_info=body)


def export(id: str, dir: str, decrypt: bool) -> pb.Request:
    return pb.Request(export=pb.ExportRequest(id=id, dir=dir, decrypt=decrypt))


_EXPORT_FORMATS = {None: pb.EXPORT_FORMAT_UNSPECIFIED, "": pb.EXPORT_FORMAT_UNSPECIFIED, "mp4": pb.EXPORT_FORMAT_MP4,
                   "mkv": pb.EXPORT_FORMAT_MKV}


def export_file(id: str, file: str, format: Optional[str], force: bool, link: bool) -> pb.Request:
    if format not in _EXPORT_FORMATS:
        raise StashError("INVALID_ARGUMENT", f"format {format!r} is not mp4 or mkv (or None: from the file's extension)")
    return pb.Request(export=pb.ExportRequest(id=id, file=file, format=_EXPORT_FORMATS[format], force=force, link=link))


def subtitles(op: str, id: str, languages: Optional[Iterable[str]],
              text_tracks: Optional[TextTracks]) -> pb.Request:
    return pb.Request(**{op: pb.SubtitlesRequest(id=id, languages=list(languages or ()),
                                                 text_tracks=_text_tracks(text_tracks))})


def playback_key(id: str, key_id: Optional[str]) -> pb.Request:
    return pb.Request(get_playback_key=pb.PlaybackKeyRequest(id=id, key_id=key_id or ""))


def stop(id: str, reason: Optional[str]) -> pb.Request:
    return pb.Request(stop=pb.StopRequest(id=id, reason=reason or ""))


def forget(id: str, move_to: str) -> pb.Request:
    return pb.Request(forget=pb.ForgetRequest(id=id, move_to=move_to))


def adopt(path: str, id: str, url: Optional[str], sha256: Optional[str], link: bool) -> pb.Request:
    return pb.Request(adopt=pb.AdoptRequest(path=path, id=id, url=url or "", sha256=sha256 or "", link=link))
