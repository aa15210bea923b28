/// The protected tracks of a CENC initialization segment, and the segment made clear: each
/// `encv`/`enca` sample entry gets back its original format (`frma`), its `sinf` and the
/// moov's `pssh` boxes become `free` boxes of the same size, so no offset or size around them
/// changes (ISO/IEC 23001-7 section 8, ISO/IEC 14496-12 section 8.12).
package enum CENCInit {
    /// Whether `segment` has a `moov` box among its first boxes (an initialization segment
    /// starts with ftyp and moov; a media segment with styp, sidx, moof).
    package static func isInitialization(_ segment: [UInt8]) -> Bool {
        var position = 0
        for _ in 0..<4 {
            guard position <= segment.count - 8 else { return false }
            var reader = BoxReader(bytes: segment, position: position)
            guard let size = reader.u32(), size >= 8 else { return false }
            if segment[position + 4..<position + 8].elementsEqual("moov".utf8) { return true }
            position += Int(size)
        }
        return false
    }

    /// - Throws: `CENCError` naming the box and the value: `.malformed` for a size, count or
    ///   field that does not fit, `.unsupported` for a scheme other than 'cenc'.
    package static func clear(_ segment: [UInt8]) throws -> (bytes: [UInt8], tracks: [ProtectedTrack]) {
        var bytes = segment
        var tracks: [ProtectedTrack] = []
        for moov in try MP4Box.children(of: bytes, in: 0..<bytes.count, container: "the initialization segment") where moov.type == "moov" {
            for box in try moov.children(of: bytes) {
                if box.type == "pssh" { box.rename(&bytes, to: "free") }
                guard box.type == "trak" else { continue }
                if let track = try clearTrack(box, &bytes) { tracks.append(track) }
            }
        }
        return (bytes, tracks)
    }

    private static func clearTrack(_ trak: MP4Box, _ bytes: inout [UInt8]) throws -> ProtectedTrack? {
        let boxes = try trak.children(of: bytes)
        guard let tkhd = boxes.first(where: { $0.type == "tkhd" }) else { throw CENCError(.malformed, "a trak at offset \(trak.start) has no tkhd") }
        var reader = tkhd.reader(bytes)
        let version = reader.u8() ?? 0
        reader.position = version == 1 ? 20 : 12
        guard let trackID = reader.u32() else { throw CENCError(.malformed, "the tkhd at offset \(tkhd.start) is \(tkhd.end - tkhd.payload) bytes, too short for a track_ID") }
        guard let stsd = try descend(boxes, ["mdia", "minf", "stbl", "stsd"], bytes) else { return nil }
        var found: ProtectedTrack?
        // stsd: version and flags, entry_count, then the entries.
        for entry in try stsd.children(of: bytes, skip: 8) where entry.type == "encv" || entry.type == "enca" {
            var fixed = entry.type == "encv" ? 78 : 28
            if entry.type == "enca" {
                // An audio entry of version 1 or 2 (QuickTime's) has 16 or 36 more bytes.
                var header = entry.reader(bytes)
                header.position = 8
                switch header.u16() {
                case 1: fixed += 16
                case 2: fixed += 36
                default: break
                }
            }
            let children = try entry.children(of: bytes, skip: fixed)
            guard let sinf = children.first(where: { $0.type == "sinf" }) else {
                throw CENCError(.malformed, "the sample entry '\(entry.type)' of track \(trackID) has no sinf")
            }
            let track = try protection(sinf, trackID: trackID, entry: entry, bytes: &bytes)
            sinf.rename(&bytes, to: "free")
            found = found ?? track
        }
        return found
    }

    private static func protection(_ sinf: MP4Box, trackID: UInt32, entry: MP4Box, bytes: inout [UInt8]) throws -> ProtectedTrack {
        let parts = try sinf.children(of: bytes)
        var frmaReader = parts.first(where: { $0.type == "frma" })?.reader(bytes)
        guard let format = frmaReader?.take(4) else { throw CENCError(.malformed, "the sinf of track \(trackID) has no frma naming the original format") }
        guard format.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
            throw CENCError(.malformed, "the frma of track \(trackID) names no format of four letters")
        }
        var schm = parts.first(where: { $0.type == "schm" })?.reader(bytes)
        schm?.position = 4
        guard let schemeBytes = schm?.take(4) else { throw CENCError(.malformed, "the sinf of track \(trackID) has no schm") }
        let scheme = String(decoding: schemeBytes.map { $0 < 0x20 || $0 > 0x7e ? UInt8(ascii: "?") : $0 }, as: UTF8.self)
        guard scheme == "cenc" else {
            throw CENCError(.unsupported, "track \(trackID) is encrypted with the scheme '\(scheme)'; stash decrypts 'cenc' (AES-CTR) only")
        }
        guard let tenc = try descend(parts, ["schi", "tenc"], bytes) else { throw CENCError(.malformed, "the sinf of track \(trackID) has no schi/tenc") }
        var reader = tenc.reader(bytes)
        reader.position = 6
        guard let isProtected = reader.u8(), let ivSize = reader.u8(), let keyID = reader.take(16) else {
            throw CENCError(.malformed, "the tenc of track \(trackID) is \(tenc.end - tenc.payload) bytes, fewer than 24")
        }
        guard isProtected == 1, ivSize == 8 || ivSize == 16 else {
            throw CENCError(.malformed, "the tenc of track \(trackID) says isProtected \(isProtected) and IV size \(ivSize); 'cenc' needs 1 and 8 or 16")
        }
        for index in 0..<4 { bytes[entry.start + 4 + index] = format[index] }
        return ProtectedTrack(trackID: trackID, scheme: scheme, keyID: keyID, ivSize: Int(ivSize))
    }

    /// The box at `path` below `boxes`, or nil when a step is missing.
    static func descend(_ boxes: [MP4Box], _ path: [String], _ bytes: [UInt8]) throws -> MP4Box? {
        var level = boxes
        var found: MP4Box?
        for (index, type) in path.enumerated() {
            guard let box = level.first(where: { $0.type == type }) else { return nil }
            found = box
            if index < path.count - 1 { level = try box.children(of: bytes) }
        }
        return found
    }
}
