"""How much memory one ServerMessage may take once decoded, checked before protobuf decodes it.

A frame holds at most MAX_FRAME_LENGTH bytes, but decoding multiplies them: every element of a
repeated message field becomes objects of its own, first in protobuf's runtime and again as a
record. An empty Download is 2 bytes on the wire and about 2 KiB decoded (measured with
CPython 3.11 and protobuf 4.21's C++ runtime: 200,000 of them took 390 MiB and 4 s), so one
4 MiB frame from a hostile or broken daemon could take gigabytes. The C client caps the same
thing with an allocator that stops at 64 MiB; this module estimates the cost from the bytes,
without decoding them, and refuses a message over MAX_DECODED_BYTES."""
from typing import List, Optional, Set, Tuple

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from .errors import StashError
from .records import is_repeated

MAX_DECODED_BYTES = 64 * 1024 * 1024
"""The estimated memory one decoded message may take, as the C client's limit."""

# The estimate, per element of a repeated field (and per field this client does not know, which
# the runtime keeps as an entry of its own): an object with a slot per field, measured as above.
_MESSAGE_BASE = 256
_PER_FIELD = 64
_VALUE = 64
# A packed repeated number: every byte may be an element, a list slot and an int object.
_PACKED_PER_BYTE = 32

_LENGTH_DELIMITED = 2
_TEXT = (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES)
_SMALLEST_ELEMENT = 2  # a tag byte and a length byte


def _worst_cost_per_byte(descriptor: Descriptor, seen: Optional[Set[str]] = None) -> int:
    """The most a wire byte can cost: an empty element of the widest message reachable."""
    seen = set() if seen is None else seen
    if descriptor.full_name in seen:
        return 0
    seen.add(descriptor.full_name)
    worst = (_MESSAGE_BASE + _PER_FIELD * len(descriptor.fields)) // _SMALLEST_ELEMENT
    for field in descriptor.fields:
        if field.message_type is not None:
            worst = max(worst, _worst_cost_per_byte(field.message_type, seen))
    return max(worst, _VALUE // _SMALLEST_ELEMENT, _PACKED_PER_BYTE)


def read_varint(data: bytes, position: int, end: int) -> Tuple[Optional[int], int]:
    """The varint at `position` and the position after it; None past `end` or past 10 bytes."""
    value = shift = 0
    while position < end and shift < 70:
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, position
        shift += 7
    return None, position


class DecodeBudget:
    """The check for one message type (stash.v1.ServerMessage for the clients)."""

    def __init__(self, descriptor: Descriptor, limit: int = MAX_DECODED_BYTES) -> None:
        self.descriptor = descriptor
        self.limit = limit
        # A payload this short cannot cost more than the limit, so the common small answers
        # are not walked at all.
        self.unchecked_length = limit // _worst_cost_per_byte(descriptor)

    def check(self, payload: bytes) -> None:
        """Raises StashError RESOURCE_EXHAUSTED when decoding `payload` would take more than the
        limit. Bytes that are not a well-formed message stop the walk: the parser refuses them."""
        if len(payload) <= self.unchecked_length:
            return
        cost = len(payload)
        pending: List[Tuple[Descriptor, int, int]] = [(self.descriptor, 0, len(payload))]
        while pending:
            message, position, end = pending.pop()
            by_number = message.fields_by_number
            while position < end:
                key, position = read_varint(payload, position, end)
                if key is None:
                    return
                field, wire_type = by_number.get(key >> 3), key & 7
                if wire_type == 0:
                    _, position = read_varint(payload, position, end)
                elif wire_type == 1:
                    position += 8
                elif wire_type == 5:
                    position += 4
                elif wire_type == _LENGTH_DELIMITED:
                    length, position = read_varint(payload, position, end)
                    if length is None or length > end - position:
                        return
                    start, position = position, position + length
                    if field is not None and field.message_type is not None:
                        pending.append((field.message_type, start, position))
                    elif field is not None and is_repeated(field) and field.type not in _TEXT:
                        cost += _PACKED_PER_BYTE * length
                else:
                    return  # groups are not proto3; the parser says what is wrong
                if field is None:
                    cost += _VALUE
                elif is_repeated(field):
                    cost += _VALUE if field.message_type is None else \
                        _MESSAGE_BASE + _PER_FIELD * len(field.message_type.fields)
                else:
                    continue
                if cost > self.limit:
                    raise StashError(
                        "RESOURCE_EXHAUSTED",
                        f"stashd sent a message of {len(payload)} bytes that would take more than {self.limit} "
                        f"bytes decoded (MAX_DECODED_BYTES): too many repeated values")
