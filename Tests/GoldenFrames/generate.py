"""Writes each golden frame's bytes from its JSON description, with protobuf's own Python
encoder (not one of the clients'), so the clients are checked against an independent one.

    generate.py            writes NAME.bin (and NAME.known.bin) for every NAME.json
    generate.py --check    fails when a written file differs from what the JSON gives

README.md says what the files hold and how each client uses them.
"""
import glob
import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "clients", "python"))

from google.protobuf import json_format  # noqa: E402

from stash_client import stash_pb2 as pb  # noqa: E402

# ServerMessage's fields: where the unknown bytes of a description go.
_SERVER_FIELDS = {"response": 1, "event": 2}


def _varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def payload(description, with_unknown=True):
    """The payload the description gives: its value in proto3 JSON, plus its unknown bytes
    (fields of a later version) at the end of the message they belong to."""
    message = getattr(pb, description["message"])()
    json_format.ParseDict(description["value"], message)
    unknown = bytes.fromhex(description.get("unknown_hex", "")) if with_unknown else b""
    where = description.get("unknown_in")
    if not unknown:
        return message.SerializeToString()
    if where is None:
        return message.SerializeToString() + unknown
    inner = getattr(message, where).SerializeToString() + unknown
    field = _SERVER_FIELDS[where]
    return _varint(field << 3 | 2) + _varint(len(inner)) + inner


def frame(data):
    return struct.pack(">I", len(data)) + data


def outputs(path):
    """The files a description gives: NAME.bin, and NAME.known.bin for a frame with unknown
    bytes that a decoder encodes again (without them)."""
    with open(path, encoding="utf-8") as f:
        description = json.load(f)
    stem = path[:-len(".json")]
    files = {stem + ".bin": frame(payload(description))}
    if "unknown_hex" in description and description.get("reencode", True):
        files[stem + ".known.bin"] = frame(payload(description, with_unknown=False))
    return files


def descriptions():
    return sorted(glob.glob(os.path.join(HERE, "*.json")))


def check():
    """The names of the written files that differ from their descriptions."""
    stale = []
    for path in descriptions():
        for name, data in outputs(path).items():
            if not os.path.exists(name) or open(name, "rb").read() != data:
                stale.append(os.path.basename(name))
    return stale


def main():
    if sys.argv[1:] == ["--check"]:
        stale = check()
        if stale:
            print(f"golden frames stale: {', '.join(stale)}; run Tests/GoldenFrames/generate.py and commit", file=sys.stderr)
            return 1
        print(f"golden frames current ({len(descriptions())})")
        return 0
    for path in descriptions():
        for name, data in outputs(path).items():
            with open(name, "wb") as f:
                f.write(data)
    print(f"wrote {len(descriptions())} golden frames")
    return 0


if __name__ == "__main__":
    sys.exit(main())
