/// The format a body's first bytes show: JPEG, PNG, GIF, WebP, AVIF/HEIF, MP4 (ISO-BMFF),
/// MPEG-TS, WebM/Matroska, MP3, ADTS AAC, FLAC, Ogg, WAV, or UTF-8 text. A pure reading of
/// bytes: the Content-Type a server sends may lie, the bytes do not.
package struct ContentSignature: Equatable, Sendable {
    /// The format's MIME type, named in messages.
    package var mime: String
    /// The kinds it satisfies.
    package var kinds: Set<ContentKind>
    /// Other MIME types it answers to (`audio/mp4` for an MP4 file).
    package var aliases: Set<String> = []

    /// Bytes looked at: enough for every signature here (three TS packets start within 377
    /// bytes; an ftyp box lists its brands within the first hundred) and for a fair guess
    /// that a body is text.
    package static let window = 512

    /// The format of a body starting with `prefix`; `complete` says `prefix` is the whole
    /// body (else it is the first `window` bytes of a longer one, and a UTF-8 sequence cut at
    /// its end is not an error). Nil when the bytes match nothing known.
    package static func identify(_ prefix: [UInt8], complete: Bool) -> ContentSignature? {
        if let binary = binary(prefix) { return binary }
        return text(prefix, complete: complete)
    }

    package func answers(to type: String) -> Bool { type == mime || aliases.contains(type) }

    /// The MIME types of the binary formats told here: a body sent as one of them whose bytes
    /// are not that format is not what its Content-Type says.
    package static let knownTypes: Set<String> = [
        "image/jpeg", "image/jpg", "image/pjpeg", "image/png", "image/gif", "image/webp", "image/avif", "image/heic", "image/heif",
        "video/mp4", "audio/mp4", "application/mp4", "audio/x-m4a", "audio/m4a", "video/iso.segment", "video/mp2t",
        "video/webm", "audio/webm", "video/x-matroska", "audio/x-matroska", "audio/ogg", "video/ogg", "application/ogg",
        "audio/flac", "audio/x-flac", "audio/mpeg", "audio/mp3", "audio/aac", "audio/aacp", "audio/x-aac",
        "audio/wav", "audio/x-wav", "audio/wave",
    ]

    private static func binary(_ b: [UInt8]) -> ContentSignature? {
        if startsWith(b, [0xFF, 0xD8, 0xFF]) { return ContentSignature(mime: "image/jpeg", kinds: [.image], aliases: ["image/jpg", "image/pjpeg"]) }
        if startsWith(b, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return ContentSignature(mime: "image/png", kinds: [.image]) }
        if startsWith(b, "GIF87a") || startsWith(b, "GIF89a") { return ContentSignature(mime: "image/gif", kinds: [.image]) }
        if startsWith(b, "RIFF"), b.count >= 12 {
            let form = String(decoding: b[8..<12], as: UTF8.self)
            if form == "WEBP" { return ContentSignature(mime: "image/webp", kinds: [.image]) }
            if form == "WAVE" { return ContentSignature(mime: "audio/wav", kinds: [.audio], aliases: ["audio/x-wav", "audio/wave"]) }
        }
        if let iso = isoMedia(b) { return iso }
        if isMPEGTS(b) { return ContentSignature(mime: "video/mp2t", kinds: [.video, .audio]) }
        if startsWith(b, [0x1A, 0x45, 0xDF, 0xA3]) {
            // The EBML header names its DocType within its first few dozen bytes.
            let header = Array(b.prefix(64))
            let webm = header.indices.contains { startsWith(Array(header[$0...]), "webm") }
            return webm ? ContentSignature(mime: "video/webm", kinds: [.video, .audio], aliases: ["audio/webm"])
                : ContentSignature(mime: "video/x-matroska", kinds: [.video, .audio], aliases: ["audio/x-matroska"])
        }
        if startsWith(b, "OggS") { return ContentSignature(mime: "audio/ogg", kinds: [.audio, .video], aliases: ["video/ogg", "application/ogg"]) }
        if startsWith(b, "fLaC") { return ContentSignature(mime: "audio/flac", kinds: [.audio], aliases: ["audio/x-flac"]) }
        if startsWith(b, "ID3") { return ContentSignature(mime: "audio/mpeg", kinds: [.audio], aliases: ["audio/mp3", "audio/aac"]) }
        if let frame = audioFrame(b) { return frame }
        return nil
    }

    /// An ISO-BMFF file: a box of a known type first; an `ftyp` box's brands tell AVIF and
    /// HEIF images and M4A audio from video.
    private static func isoMedia(_ b: [UInt8]) -> ContentSignature? {
        guard let type = isoBoxType(b) else { return nil }
        let video = ContentSignature(mime: "video/mp4", kinds: [.video, .audio], aliases: ["audio/mp4", "application/mp4", "video/quicktime", "video/iso.segment"])
        guard type == "ftyp", b.count >= 12 else { return video }
        let size = Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3])
        let end = min(b.count, max(12, size))
        // The major brand at 8, the minor version at 12, compatible brands from 16.
        let offsets = [8] + Array(stride(from: 16, to: end - 3, by: 4))
        let brands = Set(offsets.map { String(decoding: b[$0..<$0 + 4], as: UTF8.self) })
        if !brands.isDisjoint(with: ["avif", "avis"]) { return ContentSignature(mime: "image/avif", kinds: [.image]) }
        if !brands.isDisjoint(with: ["heic", "heix", "mif1", "msf1"]) { return ContentSignature(mime: "image/heic", kinds: [.image], aliases: ["image/heif"]) }
        let major = String(decoding: b[8..<12], as: UTF8.self)
        if ["M4A ", "M4B ", "M4P "].contains(major) { return ContentSignature(mime: "audio/mp4", kinds: [.audio], aliases: ["audio/x-m4a", "audio/m4a"]) }
        return video
    }

    /// The type of the box an ISO-BMFF body starts with, when it is one that starts a file,
    /// a fragment or an init section, with a size of at least its own header (1 means a 64-bit
    /// size follows).
    package static func isoBoxType(_ b: [UInt8]) -> String? {
        guard b.count >= 8 else { return nil }
        let size = UInt32(b[0]) << 24 | UInt32(b[1]) << 16 | UInt32(b[2]) << 8 | UInt32(b[3])
        let type = String(decoding: b[4..<8], as: UTF8.self)
        guard size == 1 || size >= 8, ["ftyp", "styp", "moov", "moof", "sidx", "emsg", "prft", "free", "skip", "mdat"].contains(type) else { return nil }
        return type
    }

    /// MPEG-TS: a sync byte 0x47 at the start of each 188-byte packet present, of which there
    /// must be at least one whole.
    package static func isMPEGTS(_ b: [UInt8]) -> Bool {
        guard b.count >= 188 else { return false }
        return [0, 188, 376].allSatisfy { $0 >= b.count || b[$0] == 0x47 }
    }

    /// An MPEG audio frame header (MP3) or an ADTS header (AAC), whose sync is the same 12 bits.
    package static func audioFrame(_ b: [UInt8]) -> ContentSignature? {
        guard b.count >= 4, b[0] == 0xFF, b[1] & 0xE0 == 0xE0 else { return nil }
        let layer = (b[1] >> 1) & 0x3
        if layer == 0 {
            // ADTS: MPEG version bits 1x (the sync's 12th bit set), a sampling index below 13.
            guard b[1] & 0x10 != 0, (b[2] >> 2) & 0xF < 13 else { return nil }
            return ContentSignature(mime: "audio/aac", kinds: [.audio], aliases: ["audio/aacp", "audio/x-aac"])
        }
        // MPEG audio: version not reserved (01), bitrate index not 1111, sample rate not 11.
        guard (b[1] >> 3) & 0x3 != 1, b[2] >> 4 != 0xF, (b[2] >> 2) & 0x3 != 3 else { return nil }
        return ContentSignature(mime: "audio/mpeg", kinds: [.audio], aliases: ["audio/mp3"])
    }

    /// A WebVTT file: "WEBVTT" after an optional byte order mark, then the end or a space,
    /// tab or line break (the W3C WebVTT spec, section 4.1).
    package static func isWebVTT(_ b: [UInt8]) -> Bool {
        let body = startsWith(b, [0xEF, 0xBB, 0xBF]) ? Array(b.dropFirst(3)) : b
        guard startsWith(body, "WEBVTT") else { return false }
        return body.count == 6 || [0x20, 0x09, 0x0A, 0x0D].contains(body[6])
    }

    /// UTF-8 text without control characters but tab, line breaks, form feed and escape;
    /// an empty body is (empty) text. HTML, XML and WebVTT are told from plain text.
    private static func text(_ b: [UInt8], complete: Bool) -> ContentSignature? {
        guard b.allSatisfy({ ($0 >= 0x20 && $0 != 0x7F) || [0x09, 0x0A, 0x0C, 0x0D, 0x1B].contains($0) }) else { return nil }
        var scalars = b
        if !complete {
            // A multi-byte sequence cut by the window: drop its lead and continuation bytes.
            var cut = 0
            while cut < min(3, scalars.count), scalars[scalars.count - 1 - cut] & 0xC0 == 0x80 { cut += 1 }
            if cut < scalars.count, scalars[scalars.count - 1 - cut] >= 0xC0 { scalars.removeLast(cut + 1) }
        }
        guard String(validating: scalars, as: UTF8.self) != nil else { return nil }
        if isWebVTT(b) { return ContentSignature(mime: "text/vtt", kinds: [.text]) }
        let start = Array(String(decoding: b.prefix(64), as: UTF8.self).drop { $0 == "\u{FEFF}" || $0.isWhitespace }.lowercased().utf8)
        if startsWith(start, "<!doctype html") || startsWith(start, "<html") {
            return ContentSignature(mime: "text/html", kinds: [.text], aliases: ["application/xhtml+xml"])
        }
        if startsWith(start, "<?xml") { return ContentSignature(mime: "text/xml", kinds: [.text], aliases: ["application/xml"]) }
        return ContentSignature(mime: "text/plain", kinds: [.text])
    }

    /// Whether the bytes are text whose subtype the bytes cannot tell (any text/* answers).
    package var isPlainText: Bool { mime == "text/plain" }

    package static func startsWith(_ bytes: [UInt8], _ prefix: [UInt8]) -> Bool {
        bytes.count >= prefix.count && zip(bytes, prefix).allSatisfy { $0 == $1 }
    }

    package static func startsWith(_ bytes: [UInt8], _ prefix: String) -> Bool {
        startsWith(bytes, Array(prefix.utf8))
    }
}
