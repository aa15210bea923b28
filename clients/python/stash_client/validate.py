"""What the daemon sends, held to PROTOCOL.md's rules before a caller sees it: every string is
UTF-8 without NUL (section 3), and no record holds numbers that cannot be (section 8, "Values a
client refuses"). A message that breaks either is StashError INTERNAL naming the field and the
value: a daemon that sends one cannot be trusted with the rest of the message.

protobuf's runtime refuses a string that is not UTF-8 without saying which field, and keeps a
NUL inside one. So the encoded payload is walked with the message's descriptors, which say of
each field number whether it is a string, a message or anything else; the walk runs only when
it can find something: the payload holds a 0 byte, or the runtime refused it."""
from typing import Dict, Iterator, List, Optional, Tuple

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from . import stash_pb2 as pb
from .budget import read_varint as _varint
from .errors import StashError
from .records import is_repeated

STRING_RULE = "a string must be UTF-8 without NUL"
_SHOWN_BYTES = 64
# The schema nests a few levels; the bound is for a later schema with a recursive message.
_MAX_DEPTH = 32


def _fields(data: bytes, start: int, end: int) -> Iterator[Tuple[int, Optional[Tuple[int, int]]]]:
    """(number, (value start, value end) of a length-delimited field, else None) for each
    well-formed field; the walk ends at anything else."""
    position = start
    while position < end:
        key, position = _varint(data, position, end)
        if key is None or key >> 3 == 0:
            return
        wire_type = key & 7
        if wire_type == 0:
            value, position = _varint(data, position, end)
            if value is None:
                return
            yield key >> 3, None
        elif wire_type in (1, 5):
            position += 8 if wire_type == 1 else 4
            if position > end:
                return
            yield key >> 3, None
        elif wire_type == 2:
            length, position = _varint(data, position, end)
            if length is None or length > end - position:
                return
            yield key >> 3, (position, position + length)
            position += length
        else:
            return


def shown(value: bytes) -> str:
    """The value quoted and printable, with its length: ``"nul1\\0evil" (9 bytes)``."""
    text = []
    for byte in value[:_SHOWN_BYTES]:
        if byte == 0:
            text.append("\\0")
        elif byte in b'"\\':
            text.append("\\" + chr(byte))
        elif 0x20 <= byte < 0x7F:
            text.append(chr(byte))
        else:
            text.append(f"\\x{byte:02x}")
    more = "..." if len(value) > _SHOWN_BYTES else ""
    return f'"{"".join(text)}{more}" ({len(value)} bytes)'


def string_problem(value: bytes) -> Optional[str]:
    """The first NUL or byte that does not start well-formed UTF-8 (RFC 3629, as Python's
    strict codec reads it), whichever comes first; None when there is neither."""
    nul = value.find(b"\0")
    try:
        value.decode("utf-8")
        invalid = -1
    except UnicodeDecodeError as error:
        invalid = error.start
    if nul >= 0 and (invalid < 0 or nul < invalid):
        return f"{shown(value)} holds a NUL at byte {nul}"
    if invalid >= 0:
        return f"{shown(value)} is not UTF-8 at byte {invalid}"
    return None


def _walk(data: bytes, start: int, end: int, descriptor: Descriptor, depth: int) -> Optional[Tuple[List[str], str]]:
    if depth >= _MAX_DEPTH:
        return [], f"messages nested deeper than {_MAX_DEPTH}"
    counts: Dict[int, int] = {}
    for number, value in _fields(data, start, end):
        field = descriptor.fields_by_number.get(number)
        if value is None or field is None:
            continue
        name = field.name
        if is_repeated(field):
            index = counts.get(number, 0)
            counts[number] = index + 1
            name = f"{name}[{index}]"
        if field.type == FieldDescriptor.TYPE_STRING:
            problem = string_problem(data[value[0]:value[1]])
            if problem is not None:
                return [name], problem
        elif field.message_type is not None:
            found = _walk(data, value[0], value[1], field.message_type, depth + 1)
            if found is not None:
                return [name] + found[0], found[1]
    return None


def check_strings(payload: bytes, descriptor: Descriptor = pb.ServerMessage.DESCRIPTOR) -> None:
    """Raises StashError INTERNAL naming the first string field that is not UTF-8 or holds a
    NUL, as a path from the message's name: ``ServerMessage.response.download.download.title``."""
    found = _walk(payload, 0, len(payload), descriptor, 0)
    if found is not None:
        path = ".".join([descriptor.name] + found[0])
        raise StashError("INTERNAL", f"stashd sent {path}: {found[1]}; {STRING_RULE}")


# ------------------------------------------------------------------ numbers

def _refuse(field: str, value: int, rule: str) -> None:
    raise StashError("INTERNAL", f"stashd sent {field} {value}, {rule}")


def _at_least_minus_one(value: int, field: str) -> None:
    """The fields PROTOCOL.md gives -1 for "unknown" (or "never", "none")."""
    if value < -1:
        _refuse(field, value, "below -1 (its only negative value, unknown)")


def _percent(value: int, field: str) -> None:
    if value > 100:
        _refuse(field, value, "above 100 (a percent)")


def _counts(done: int, total: int, field: str) -> None:
    if done > total:
        _refuse(field, done, f"above files_total {total}")


def _download(record: "pb.Download") -> None:
    _percent(record.progress, "Download.progress")
    _at_least_minus_one(record.total_bytes, "Download.total_bytes")
    _at_least_minus_one(record.remaining_time, "Download.remaining_time")
    _counts(record.files_done, record.files_total, "Download.files_done")
    if record.HasField("license"):
        _license(record.license)


def _license(status: "pb.LicenseStatus") -> None:
    _at_least_minus_one(status.license_seconds_left, "LicenseStatus.license_seconds_left")
    _at_least_minus_one(status.playback_seconds_left, "LicenseStatus.playback_seconds_left")
    _at_least_minus_one(status.playback_duration, "LicenseStatus.playback_duration")


def check_event(event: "pb.Event") -> None:
    """Raises StashError INTERNAL for an event whose numbers cannot be."""
    kind = event.WhichOneof("kind")
    if kind == "state_changed":
        _download(event.state_changed.download)
    elif kind == "settings_changed":
        _download(event.settings_changed.download)
    elif kind == "progress":
        p = event.progress
        _percent(p.progress, "Progress.progress")
        _at_least_minus_one(p.total_bytes, "Progress.total_bytes")
        _at_least_minus_one(p.remaining_time, "Progress.remaining_time")
        _counts(p.files_done, p.files_total, "Progress.files_done")
    elif kind == "export_progress":
        e = event.export_progress
        _percent(e.progress, "ExportProgress.progress")
        if e.bytes_done > e.bytes_total:
            _refuse("ExportProgress.bytes_done", e.bytes_done, f"above bytes_total {e.bytes_total}")
    elif kind == "license" and event.license.HasField("status"):
        _license(event.license.status)


def check_result(response: "pb.Response") -> None:
    """Raises StashError INTERNAL for an OK response whose result's numbers cannot be."""
    kind = response.WhichOneof("result")
    if kind == "download":
        _download(response.download.download)
    elif kind == "list":
        for record in response.list.downloads:
            _download(record)
        _counts(response.list.totals.files_done, response.list.totals.files_total, "GroupTotals.files_done")
    elif kind == "license":
        _license(response.license)
    elif kind == "playback_key":
        _at_least_minus_one(response.playback_key.playback_seconds_left, "PlaybackKeyResult.playback_seconds_left")
