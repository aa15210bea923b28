"""The framing and decoding of stash_client.wire, byte for byte, and the client against a
hostile peer on a real Unix socket: lengths past the limit, garbage, numbers it does not know."""
import os
import socket
import struct
import tempfile
import threading
import time

import pytest

from stash_client import MAX_DECODED_BYTES, Client, StashError, records, stash_pb2 as pb, wire
from stash_client.budget import DecodeBudget


def server_message(**fields):
    return pb.ServerMessage(**fields).SerializeToString()


def test_the_example_frame_of_protocol_md():
    request = pb.Request(id=5, get_download=pb.IdRequest(id="a"))
    assert wire.frame(request) == bytes.fromhex("00000007 0805 62030a0161")


def test_a_length_is_checked_before_the_payload_is_waited_for():
    buffer = wire.FrameBuffer()
    buffer.feed(struct.pack(">I", wire.MAX_FRAME_LENGTH + 1))
    with pytest.raises(StashError) as refused:
        buffer.next_payload()
    assert refused.value.code == "RESOURCE_EXHAUSTED"
    assert str(wire.MAX_FRAME_LENGTH + 1) in refused.value.message and str(wire.MAX_FRAME_LENGTH) in refused.value.message
    buffer = wire.FrameBuffer()
    buffer.feed(b"\0\0\0\0")
    with pytest.raises(StashError, match="length 0") as empty:
        buffer.next_payload()
    assert empty.value.code == "INTERNAL"


def test_frames_split_and_joined_anyhow():
    one = server_message(response=pb.Response(id=1))
    two = server_message(response=pb.Response(id=2))
    stream = struct.pack(">I", len(one)) + one + struct.pack(">I", len(two)) + two
    buffer = wire.FrameBuffer()
    payloads = []
    for byte in stream:
        buffer.feed(bytes([byte]))
        payload = buffer.next_payload()
        if payload is not None:
            payloads.append(payload)
    assert payloads == [one, two]
    assert buffer.pending() == 0


def test_what_the_client_cannot_read_is_internal():
    with pytest.raises(StashError, match="not a stash.v1.ServerMessage") as garbage:
        wire.decode(b"\xff\xff\xff\xff\x0f")
    assert garbage.value.code == "INTERNAL"
    unknown_state = server_message(response=pb.Response(
        id=3, download=pb.DownloadResult(download=pb.Download(id="x", state=99))))  # type: ignore[arg-type]  # no state has 99
    with pytest.raises(StashError, match="Download.state 99"):
        wire.decode(unknown_state)
    with pytest.raises(StashError, match="neither a response nor an event"):
        wire.decode(b"\x18\x01")


def test_an_unknown_status_code_is_internal_and_keeps_the_text():
    message = wire.decode(server_message(response=pb.Response(
        id=4, status=pb.Status(code=42, message="from a later version"))))  # type: ignore[arg-type]  # no code has 42
    assert message.error is not None
    assert message.error.code == "INTERNAL"
    assert "42" in message.error.message and "from a later version" in message.error.message


def test_an_event_of_a_later_kind_is_skipped_and_unknown_fields_ignored():
    later_kind = bytes.fromhex("1206" "08f403" "f80601")  # Event{seq 500, field 111 = 1}
    message = wire.decode(later_kind)
    assert message.is_event and message.event is None
    with_extra = server_message(response=pb.Response(id=9)) + bytes.fromhex("f80601")
    assert wire.decode(with_extra).response_id == 9


def test_requests_are_refused_past_the_frame_limit():
    with pytest.raises(StashError, match=str(wire.MAX_FRAME_LENGTH)) as refused:
        wire.frame(wire.add("https://example.org/a", None, None, {"app_data": b"x" * (wire.MAX_FRAME_LENGTH + 1)}))
    assert refused.value.code == "INVALID_ARGUMENT"
    with pytest.raises(StashError, match="unknown option tittle"):
        wire.add("https://example.org/a", None, None, {"tittle": "x"})  # type: ignore[typeddict-item]
    with pytest.raises(StashError, match="'DONE' is not a state"):
        wire.list_downloads("DONE", None, 0, None)


def length_delimited(field, payload):
    """`payload` as field `field` of a message, by hand: protobuf's own encoder would not write
    the hostile shapes below without first building millions of objects."""
    key, length, prefix = (field << 3) | 2, len(payload), bytearray()
    prefix.append(key)
    while length >= 0x80:
        prefix.append((length & 0x7F) | 0x80)
        length >>= 7
    prefix.append(length)
    return bytes(prefix) + payload


def list_of_empty_downloads(count):
    """A ServerMessage answering ListDownloads with `count` Downloads of 2 bytes each."""
    return length_delimited(1, length_delimited(12, b"\x0a\x00" * count))


def test_a_message_that_would_take_too_much_memory_decoded_is_refused_before_decoding():
    # 4 MiB of empty Downloads: 2 million records, which took 620 MiB in protobuf alone.
    hostile = list_of_empty_downloads(2 * 1024 * 1024 - 8)
    assert len(hostile) <= wire.MAX_FRAME_LENGTH
    with pytest.raises(StashError) as refused:
        wire.decode(hostile)
    assert refused.value.code == "RESOURCE_EXHAUSTED"
    assert str(len(hostile)) in refused.value.message and str(MAX_DECODED_BYTES) in refused.value.message
    # Fields this client does not know are kept by the runtime one by one too.
    unknown = length_delimited(1, length_delimited(12, b"\xf8\x06\x01" * (1024 * 1024)))
    with pytest.raises(StashError, match="MAX_DECODED_BYTES"):
        wire.decode(unknown)


def test_the_budget_counts_each_repeated_element():
    # 256 + 64 per field of Download (29 fields): 2,112 bytes an element, plus the payload.
    budget = DecodeBudget(pb.ServerMessage.DESCRIPTOR, limit=10_000)
    budget.check(list_of_empty_downloads(4))
    with pytest.raises(StashError, match="more than 10000 bytes decoded"):
        budget.check(list_of_empty_downloads(5))
    # Bytes that are not a message stop the walk; the parser refuses them with its own words.
    budget.check(b"\xff" * 100)
    with pytest.raises(StashError, match="not a stash.v1.ServerMessage"):
        wire.decode(b"\x0a\xff\xff\xff\x0f" + b"\x00" * 100_000)


def test_packed_numbers_count_by_the_byte():
    # No server message has one yet; ListDownloadsRequest.states is a packed repeated enum.
    budget = DecodeBudget(pb.ListDownloadsRequest.DESCRIPTOR, limit=10_000)
    budget.check(pb.ListDownloadsRequest(states=[pb.QUEUED] * 200).SerializeToString())
    with pytest.raises(StashError, match="MAX_DECODED_BYTES"):
        budget.check(pb.ListDownloadsRequest(states=[pb.QUEUED] * 400).SerializeToString())


def test_the_largest_bundle_the_daemon_holds_still_decodes():
    files = [pb.BundleFile(url=f"https://cdn.example.org/one-piece/ch12/p{index:05}.jpg", path=f"p{index:05}.jpg",
                           size=123456, sha256="ab" * 32, downloaded_bytes=123456, done=True)
             for index in range(10_000)]
    answer = server_message(response=pb.Response(id=1, download=pb.DownloadResult(
        download=pb.Download(id="chapter", state=pb.COMPLETED, bundle=True, files=files))))
    assert len(answer) > wire._BUDGET.unchecked_length, "the walk is exercised"
    decoded = wire.decode(answer)
    assert isinstance(decoded.result, records.Download)
    assert len(decoded.result.files) == 10_000
    assert decoded.result.files[-1].path == "p09999.jpg"


def framed(payload):
    return wire.PREFIX.pack(len(payload)) + payload


class HostilePeer:
    """A thread on a real Unix socket that answers the client's Hello with `answer`, then closes."""

    def __init__(self, answer):
        self.folder = tempfile.mkdtemp(prefix="stash-hostile-")
        self.path = os.path.join(self.folder, "peer.sock")
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(1)
        self.answer = answer
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        connection, _ = self.listener.accept()
        with connection:
            length = struct.unpack(">I", connection.recv(4))[0]
            connection.recv(length)
            connection.sendall(self.answer)
            connection.shutdown(socket.SHUT_WR)
            while connection.recv(4096):
                pass

    def close(self):
        self.thread.join(5)
        self.listener.close()
        os.unlink(self.path)
        os.rmdir(self.folder)


class DribblingPeer(HostilePeer):
    """Answers the Hello with a frame that never ends, one byte every 0.1 s."""

    def serve(self):
        connection, _ = self.listener.accept()
        with connection:
            length = struct.unpack(">I", connection.recv(4))[0]
            connection.recv(length)
            try:
                connection.sendall(b"\0\0\0\x40")
                while True:
                    connection.sendall(b"\x0a")
                    time.sleep(0.1)
            except OSError:
                pass


def test_the_timeout_bounds_the_whole_call_not_each_read():
    peer = DribblingPeer(b"")
    try:
        started = time.monotonic()
        with pytest.raises(StashError) as refused:
            Client(peer.path, timeout=1)
        assert refused.value.code == "UNAVAILABLE"
        assert "within 1 s" in refused.value.message
        # Each read got a byte well within the second; only the call's deadline ends it.
        assert time.monotonic() - started < 5
    finally:
        peer.close()


@pytest.mark.parametrize("answer, code, part", [
    (b"\xff\xff\xff\xff", "RESOURCE_EXHAUSTED", "4294967295"),
    (b"\0\0\0\x0a\x0a\x02", "UNAVAILABLE", "middle of a frame"),
    (b"", "UNAVAILABLE", "closed the connection"),
    (framed(list_of_empty_downloads(2 * 1024 * 1024 - 8)), "RESOURCE_EXHAUSTED", "MAX_DECODED_BYTES"),
    (framed(server_message(response=pb.Response(status=pb.Status(
        code=pb.PERMISSION_DENIED, message="uid 1234 is not the daemon's")))), "PERMISSION_DENIED", "uid 1234"),
])
def test_a_hostile_peer_ends_in_a_status_naming_the_value(answer, code, part):
    peer = HostilePeer(answer)
    try:
        with pytest.raises(StashError) as refused:
            Client(peer.path)
        assert refused.value.code == code
        assert part in refused.value.message
    finally:
        peer.close()


def test_a_time_range_is_sent_with_its_presence_and_read_back_as_none_when_absent():
    added = wire.add("https://example.org/m.m3u8", None, None, {"hls": records.HlsOptions(start=0, end=120.5)})
    assert added.add_download.hls.HasField("start") and added.add_download.hls.start == 0
    assert added.add_download.hls.end == 120.5
    whole = wire.add("https://example.org/m.m3u8", None, None, {"hls": {"quality": "low"}})
    assert not whole.add_download.hls.HasField("start") and not whole.add_download.hls.HasField("end")
    assert wire.plan("https://example.org/m.m3u8", None, start=60.25).get_manifest_info.start == 60.25
    with pytest.raises(StashError) as refused:
        wire.add("https://example.org/m.m3u8", None, None, {"hls": {"start": "60"}})
    assert refused.value.code == "INVALID_ARGUMENT" and "hls.start: '60'" in refused.value.message
    record = records.convert(pb.HlsOptions(quality="low", end=30), records.HlsOptions, "HlsOptions")
    assert record == records.HlsOptions(quality="low", end=30)
    assert record.start is None, "absent, not 0"


def test_a_range_is_refused_for_a_daemon_without_the_feature():
    features = ("downloads", "hls")
    for call in (lambda: wire.check_time_range(features, "0.9.0", records.HlsOptions(start=60)),
                 lambda: wire.check_time_range(features, "0.9.0", {"end": 1}),
                 lambda: wire.check_time_range(features, "0.9.0", start=0)):
        with pytest.raises(StashError) as refused:
            call()
        assert refused.value.code == "UNIMPLEMENTED" and "stashd 0.9.0" in refused.value.message
    wire.check_time_range(features, "0.9.0", records.HlsOptions(quality="low"))
    wire.check_time_range(features + ("time-range",), "0.10.0", records.HlsOptions(start=60), start=1)

