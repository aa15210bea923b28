"""The client against a daemon that sends what cannot be: a string that is not UTF-8 or holds a
NUL, a percent above 100, a count above its total, a negative size other than -1. A hostile peer
on a real Unix socket answers the Hello, then the call; each must end in INTERNAL naming the
field and the value, and a possible record must still be read."""
import os
import socket
import struct
import tempfile
import threading
from typing import Any, Dict

import pytest

from stash_client import Client, StashError, stash_pb2 as pb, wire

INT64_MIN = -(2 ** 63)


def download(**fields: Any) -> pb.Response:
    record: Dict[str, Any] = {"id": "x", "state": pb.DOWNLOADING, "total_bytes": -1, "remaining_time": -1}
    record.update(fields)
    return pb.Response(download=pb.DownloadResult(download=pb.Download(**record)))


class AnsweringPeer:
    """Answers the client's Hello, then its next request with `response` (its id set), after
    `event` when given; any DEL byte inside `nul_in` is sent as a NUL."""

    def __init__(self, response, event=None, nul_in=None):
        self.folder = tempfile.mkdtemp(prefix="stash-hostile-")
        self.path = os.path.join(self.folder, "peer.sock")
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(1)
        self.response, self.event, self.nul_in = response, event, nul_in
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def frame(self, message):
        payload = message.SerializeToString()
        if self.nul_in is not None:
            marked = self.nul_in.encode()
            payload = payload.replace(marked, marked.replace(b"\x7f", b"\0"))
        return struct.pack(">I", len(payload)) + payload

    @staticmethod
    def request(connection):
        length = struct.unpack(">I", connection.recv(4))[0]
        data = b""
        while len(data) < length:
            data += connection.recv(length - len(data))
        return pb.Request.FromString(data)

    def serve(self):
        connection, _ = self.listener.accept()
        with connection:
            hello = self.request(connection)
            connection.sendall(self.frame(pb.ServerMessage(response=pb.Response(
                id=hello.id, hello=pb.HelloResult(protocol_version=1, daemon_version="9.9.9-hostile")))))
            call = self.request(connection)
            if self.event is not None:
                connection.sendall(self.frame(pb.ServerMessage(event=self.event)))
            answer = pb.Response()
            answer.CopyFrom(self.response)
            answer.id = call.id
            connection.sendall(self.frame(pb.ServerMessage(response=answer)))
            while connection.recv(4096):
                pass

    def close(self):
        self.thread.join(5)
        self.listener.close()
        os.unlink(self.path)
        os.rmdir(self.folder)


def refused(peer, call):
    try:
        with Client(peer.path, timeout=10) as client:
            with pytest.raises(StashError) as error:
                call(client)
        return error.value
    finally:
        peer.close()


def progress_event(**fields: Any) -> pb.Event:
    values: Dict[str, Any] = {"id": "x", "total_bytes": -1, "remaining_time": -1}
    values.update(fields)
    return pb.Event(seq=1, progress=pb.Progress(**values))


def get(client):
    return client.get("x")


def has(client):
    return client.has("x")


@pytest.mark.parametrize("response, event, call, part", [
    (download(progress=4_000_000_000), None, get, "Download.progress 4000000000, above 100"),
    (download(total_bytes=INT64_MIN), None, get, f"Download.total_bytes {INT64_MIN}, below -1"),
    (download(remaining_time=-2), None, get, "Download.remaining_time -2"),
    (download(files_done=7, files_total=5), None, get, "Download.files_done 7, above files_total 5"),
    (download(license=pb.LicenseStatus(license_seconds_left=-3, playback_seconds_left=-1, playback_duration=-1)),
     None, get, "LicenseStatus.license_seconds_left -3"),
    (pb.Response(list=pb.ListDownloadsResult(totals=pb.GroupTotals(files_done=3))), None,
     lambda client: client.list_page(), "GroupTotals.files_done 3, above files_total 0"),
    (pb.Response(list=pb.ListDownloadsResult(downloads=[download().download.download, download(progress=101).download.download])),
     None, lambda client: client.list_page(), "Download.progress 101"),
    (pb.Response(license=pb.LicenseStatus(license_seconds_left=-1, playback_seconds_left=-5, playback_duration=-1)),
     None, lambda client: client.license_check("x"), "LicenseStatus.playback_seconds_left -5"),
    (pb.Response(playback_key=pb.PlaybackKeyResult(playback_seconds_left=INT64_MIN)), None,
     lambda client: client.playback_key("x"), f"PlaybackKeyResult.playback_seconds_left {INT64_MIN}"),
    (pb.Response(has=pb.HasDownloadResult()), progress_event(progress=4_000_000_000), has, "Progress.progress 4000000000"),
    (pb.Response(has=pb.HasDownloadResult()), progress_event(files_done=2, files_total=1), has,
     "Progress.files_done 2, above files_total 1"),
    (pb.Response(has=pb.HasDownloadResult()), progress_event(total_bytes=-7), has, "Progress.total_bytes -7"),
])
def test_an_impossible_record_is_internal_naming_the_field_and_value(response, event, call, part):
    error = refused(AnsweringPeer(response, event), call)
    assert error.code == "INTERNAL"
    assert part in error.message


@pytest.mark.parametrize("response, event, nul_in, part", [
    (download(title="nul1\x7fevil"), None, "nul1\x7fevil",
     'ServerMessage.response.download.download.title: "nul1\\0evil" (9 bytes) holds a NUL at byte 4'),
    (download(text_tracks=[pb.TextTrack(lang="es"), pb.TextTrack(lang="e\x7fs")]), None, "e\x7fs",
     'download.download.text_tracks[1].lang: "e\\0s" (3 bytes) holds a NUL at byte 1'),
    (download(group="a\x7f"), None, "a\x7f", 'download.download.group: "a\\0" (2 bytes) holds a NUL at byte 1'),
    (pb.Response(has=pb.HasDownloadResult()), pb.Event(seq=2, removed=pb.Removed(id="gone\x7f")), "gone\x7f",
     'ServerMessage.event.removed.id: "gone\\0" (5 bytes) holds a NUL at byte 4'),
])
def test_a_string_holding_a_nul_is_internal_naming_the_field(response, event, nul_in, part):
    call = has if event is not None else get
    error = refused(AnsweringPeer(response, event, nul_in), call)
    assert error.code == "INTERNAL"
    assert part in error.message


def test_a_string_that_is_not_utf8_is_internal_naming_the_field():
    # protobuf will not build it either: the title's bytes are swapped for invalid ones after packing.
    message = pb.ServerMessage(response=pb.Response(id=1, download=download(title="caf\x7f").download))
    payload = message.SerializeToString().replace(b"caf\x7f", b"caf\xc3")
    with pytest.raises(StashError) as error:
        wire.decode(payload)
    assert error.value.code == "INTERNAL"
    assert 'ServerMessage.response.download.download.title: "caf\\xc3" (4 bytes) is not UTF-8 at byte 3' in error.value.message
    surrogate = message.SerializeToString().replace(b"caf\x7f", b"\xed\xa0\x80x")
    with pytest.raises(StashError, match=r"is not UTF-8 at byte 0"):
        wire.decode(surrogate)


def test_what_can_be_is_read():
    record = download(progress=100, files_done=3, files_total=3, title="été € 🎬 \U0010ffff",
                      license=pb.LicenseStatus(license_seconds_left=-1, playback_seconds_left=-1, playback_duration=-1))
    peer = AnsweringPeer(record)
    try:
        with Client(peer.path, timeout=10) as client:
            got = client.get("x")
    finally:
        peer.close()
    assert got.progress == 100 and got.total_bytes == -1 and got.title == "été € 🎬 \U0010ffff"
    assert got.license is not None and got.license.license_seconds_left == -1
