#!/usr/bin/env python3
"""Encrypts a clear fragmented-MP4 DASH stream, as ffmpeg's dash muxer writes it, into a
ClearKey CENC one (ISO/IEC 23001-7, scheme 'cenc': AES-128-CTR) for the tests.

ffmpeg 5.1's dash muxer asked to encrypt leaves its senc, saiz and saio empty in the
initialization segment and writes no per-sample IVs into the fragments, so nothing can decrypt
what it writes; Debian 12 has no packager that does it right (gpac, shaka-packager). This does,
for what the tests make: one track per file, AVC video (4-byte NAL lengths) or any audio.

usage: cenc-encrypt.py KEY_HEX KID_HEX INIT [SEGMENT ...]

Each file is rewritten in place:
- the initialization segment's sample entry becomes encv/enca with a sinf (frma: the original
  format, schm 'cenc' 1.0, schi/tenc: protected, 8-byte IVs, the default KID), and a ClearKey
  pssh naming the KID is added to the moov;
- in each fragment every sample is encrypted with its own IV (AES-CTR, the counter block the
  IV and 8 zero bytes, running on across a sample's protected ranges), the traf gets senc
  (the IVs and, for video, subsamples: each NAL's length and header clear, the rest in whole
  16-byte blocks), saiz and saio, and the trun's data offset and the sidx's referenced size
  grow by the bytes the moof gained.
"""
import hashlib
import struct
import sys

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"moof", b"traf", b"mvex", b"dinf", b"edts"}
CLEARKEY = bytes.fromhex("e2719d58a985b3c9781ab030af78d30e")
VIDEO = {b"avc1", b"avc3", b"hvc1", b"hev1"}
IV_SIZE = 8


def box(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind) + payload


def full_box(kind, version, flags, payload):
    return box(kind, struct.pack(">I", version << 24 | flags) + payload)


def parse(data):
    """[(type, payload)] of the boxes in data, each container's payload parsed too."""
    boxes, offset = [], 0
    while offset < len(data):
        size, kind = struct.unpack(">I4s", data[offset : offset + 8])
        if size < 8 or offset + size > len(data):
            raise ValueError(f"box {kind!r} at {offset} has size {size}, past {len(data)} bytes")
        payload = data[offset + 8 : offset + size]
        boxes.append([kind, parse(payload) if kind in CONTAINERS else payload])
        offset += size
    return boxes


def write(boxes):
    return b"".join(box(kind, write(payload) if isinstance(payload, list) else payload) for kind, payload in boxes)


def child(boxes, kind):
    return next(entry for entry in boxes if entry[0] == kind)


def protect_init(path, kid):
    with open(path, "rb") as file:
        top = parse(file.read())
    moov = child(top, b"moov")[1]
    stbl = child(child(child(child(moov, b"trak")[1], b"mdia")[1], b"minf")[1], b"stbl")[1]
    stsd = child(stbl, b"stsd")
    header, entries = stsd[1][:8], stsd[1][8:]
    size, kind = struct.unpack(">I4s", entries[:8])
    if size != len(entries):
        raise ValueError(f"{path}: one sample entry expected in stsd")
    video = kind in VIDEO
    tenc = full_box(b"tenc", 0, 0, bytes([0, 0, 1, IV_SIZE]) + kid)
    sinf = box(b"sinf", box(b"frma", kind) + full_box(b"schm", 0, 0, b"cenc" + struct.pack(">I", 0x10000)) + box(b"schi", tenc))
    stsd[1] = header + box(b"encv" if video else b"enca", entries[8:] + sinf)
    moov.append([b"pssh", struct.pack(">I", 1 << 24) + CLEARKEY + struct.pack(">I", 1) + kid + struct.pack(">I", 0)])
    with open(path, "wb") as file:
        file.write(write(top))
    return video


def sample_sizes(tfhd, trun):
    flags = struct.unpack(">I", tfhd[:4])[0] & 0xFFFFFF
    offset = 8
    for bit, width in ((0x1, 8), (0x2, 4), (0x8, 4)):
        if flags & bit:
            offset += width
    default_size = struct.unpack(">I", tfhd[offset : offset + 4])[0] if flags & 0x10 else None
    trun_flags = struct.unpack(">I", trun[:4])[0] & 0xFFFFFF
    count = struct.unpack(">I", trun[4:8])[0]
    position = 8 + (4 if trun_flags & 0x1 else 0) + (4 if trun_flags & 0x4 else 0)
    sizes = []
    for _ in range(count):
        fields = {}
        for bit in (0x100, 0x200, 0x400, 0x800):
            if trun_flags & bit:
                fields[bit] = struct.unpack(">I", trun[position : position + 4])[0]
                position += 4
        size = fields.get(0x200, default_size)
        if size is None:
            raise ValueError("a sample without a size (trex defaults are not read)")
        sizes.append(size)
    return sizes


def subsamples(sample):
    """(clear, protected) pairs: each NAL's 4-byte length and header clear, whole blocks protected."""
    pairs, offset = [], 0
    while offset < len(sample):
        length = struct.unpack(">I", sample[offset : offset + 4])[0]
        protected = max(0, (length - 1) // 16 * 16)
        pairs.append((4 + length - protected, protected))
        offset += 4 + length
    if offset != len(sample):
        raise ValueError("a video sample is not a run of 4-byte-length NAL units")
    return pairs


def protect_fragment(path, key, video, counter):
    with open(path, "rb") as file:
        data = bytearray(file.read())
    top = parse(bytes(data))
    offsets, offset = [], 0
    for kind, payload in top:
        offsets.append(offset)
        offset += 8 + len(write(payload) if isinstance(payload, list) else payload)
    moof_index = next(i for i, entry in enumerate(top) if entry[0] == b"moof")
    moof_start = offsets[moof_index]
    moof = top[moof_index][1]
    traf = child(moof, b"traf")[1]
    tfhd, trun = child(traf, b"tfhd")[1], child(traf, b"trun")
    if not struct.unpack(">I", tfhd[:4])[0] & 0x020000:
        raise ValueError(f"{path}: tfhd without default-base-is-moof")
    sizes = sample_sizes(tfhd, trun[1])
    data_offset = struct.unpack(">i", trun[1][8:12])[0]
    position = moof_start + data_offset
    ivs, ranges = [], []
    for size in sizes:
        iv = struct.pack(">Q", counter)
        counter += 1
        sample = bytes(data[position : position + size])
        pairs = subsamples(sample) if video else [(0, size)]
        stream = Cipher(algorithms.AES(key), modes.CTR(iv + bytes(8))).encryptor()
        cursor = position
        for clear, protected in pairs:
            cursor += clear
            data[cursor : cursor + protected] = stream.update(bytes(data[cursor : cursor + protected]))
            cursor += protected
        ivs.append(iv)
        ranges.append(pairs)
        position += size
    entries = b""
    for iv, pairs in zip(ivs, ranges):
        entries += iv
        if video:
            entries += struct.pack(">H", len(pairs)) + b"".join(struct.pack(">HI", c, p) for c, p in pairs)
    senc = full_box(b"senc", 0, 0x2 if video else 0, struct.pack(">I", len(sizes)) + entries)
    if video:
        info = [IV_SIZE + 2 + 6 * len(pairs) for pairs in ranges]
        saiz = full_box(b"saiz", 0, 0, struct.pack(">BI", 0, len(sizes)) + bytes(info))
    else:
        saiz = full_box(b"saiz", 0, 0, struct.pack(">BI", IV_SIZE, len(sizes)))
    old_moof = len(write(moof)) + 8
    added = len(senc) + len(saiz) + 20  # saio: 8 + 4 + 4 + 4
    # The senc goes last in the traf, so the moof grows by `added` and the IVs start 16 bytes
    # into the senc: where the senc starts is the old moof's end less nothing after the traf.
    traf_index = next(i for i, entry in enumerate(moof) if entry[0] == b"traf")
    after_traf = sum(8 + len(p if not isinstance(p, list) else write(p)) for _, p in moof[traf_index + 1 :])
    saio_offset = old_moof - after_traf + len(saiz) + 20 + 16
    saio = full_box(b"saio", 0, 0, struct.pack(">II", 1, saio_offset))
    traf.extend([[b"saiz", saiz[8:]], [b"saio", saio[8:]], [b"senc", senc[8:]]])
    trun[1] = trun[1][:8] + struct.pack(">i", data_offset + added) + trun[1][12:]
    new_moof = len(write(moof)) + 8
    assert new_moof == old_moof + added
    for index, (kind, payload) in enumerate(top):
        if kind == b"sidx":
            version = payload[0]
            count_at = 4 + 8 + (8 if version == 0 else 16) + 2
            if struct.unpack(">H", payload[count_at : count_at + 2])[0] != 1:
                raise ValueError(f"{path}: a sidx of several references")
            reference = struct.unpack(">I", payload[count_at + 2 : count_at + 6])[0]
            top[index][1] = payload[: count_at + 2] + struct.pack(">I", reference + added) + payload[count_at + 6 :]
    # The mdat's samples were encrypted in `data`; write the boxes back with it.
    mdat_index = next(i for i, entry in enumerate(top) if entry[0] == b"mdat")
    top[mdat_index][1] = bytes(data[offsets[mdat_index] + 8 : offsets[mdat_index] + 8 + len(top[mdat_index][1])])
    with open(path, "wb") as file:
        file.write(write(top))
    return counter


def main(arguments):
    if len(arguments) < 3:
        sys.exit(__doc__)
    key, kid = bytes.fromhex(arguments[0]), bytes.fromhex(arguments[1])
    if len(key) != 16 or len(kid) != 16:
        sys.exit("KEY_HEX and KID_HEX are 16 bytes each")
    video = protect_init(arguments[2], kid)
    # IVs never repeat under one key: each stream starts its counter at its own high bits.
    counter = int.from_bytes(hashlib.sha256(arguments[2].encode()).digest()[:4], "big") << 32
    for segment in arguments[3:]:
        counter = protect_fragment(segment, key, video, counter)


if __name__ == "__main__":
    main(sys.argv[1:])
