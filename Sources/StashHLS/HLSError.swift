/// Why a playlist was refused. The message names the line, the value and the limit, so the
/// person who published the stream can find what to fix; `line` is nil when the problem is
/// the whole input (its size, its encoding).
package struct HLSError: Error, Equatable, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable, CaseIterable {
        /// The input is larger than `maxPlaylistBytes`.
        case tooLarge
        /// The input is not UTF-8, as RFC 8216 section 4.1 requires.
        case notUTF8
        /// The first line is not `#EXTM3U`.
        case missingHeader
        /// A required tag or URI line is absent from a package playlist on disk (a file after
        /// EXTINF); a fetched playlist without one is read as players read it, with a warning.
        case missingTag
        /// The playlist mixes master-playlist and media-playlist tags.
        case mixedPlaylist
        /// More than `maxSegments` segments.
        case tooManySegments
        /// A URI that does not parse or is not http(s) once resolved against the base URL, or an
        /// skd:// key id that is empty or above `SKDURI.maxOpaqueKeyIDBytes`.
        case invalidURI
        /// A duration that is negative, not a number, or above `maxDurationSeconds`.
        case invalidDuration
        /// An EXT-X-KEY IV that is not `0x` followed by 32 hex digits (or an skd:// URI's IV that
        /// is not 32 hex digits), or an IV that would be a negative sequence number.
        case invalidIV
        /// An EXT-X-BYTERANGE or MAP BYTERANGE that is malformed or has no offset to continue from.
        case invalidByteRange
        /// A malformed attribute list, a missing required attribute or an out-of-range value.
        case invalidAttribute
        /// Nothing offered matches what was asked: no variant within the height limit, a
        /// language no rendition has, a master playlist without variants.
        case noMatch
        /// A stream stash cannot keep offline: live (no EXT-X-ENDLIST), SAMPLE-AES, or a
        /// KEYFORMAT other than "identity".
        case unsupported
        /// The package needs a media playlist that was not fetched.
        case missingPlaylist
        /// A media playlist without a single segment: there is nothing to download.
        case noSegments
        /// A path in a local package playlist that could leave the package folder ("..", an
        /// absolute path, a URL).
        case unsafePath
        /// A download's time range is not a part of the stream: a start at or past its end, an
        /// end not after the start, a value that is not a time (`SegmentWindow`).
        case outOfRange
    }

    /// The largest playlist accepted; checked before any parsing so a hostile server cannot
    /// make the daemon hold or scan more than this.
    package static let maxPlaylistBytes = 16 * 1024 * 1024
    /// The most segments one media playlist may list (a 2-second-segment stream of 55 hours).
    package static let maxSegments = 100_000
    /// No segment or target duration may exceed a day; larger values are errors or attacks.
    package static let maxDurationSeconds: Double = 24 * 60 * 60

    package var code: Code
    package var message: String
    /// The 1-based line the problem is on.
    package var line: Int?

    package init(_ code: Code, line: Int?, _ message: String) {
        self.code = code
        self.line = line
        self.message = line.map { "line \($0): \(message)" } ?? message
    }

    package var description: String { "\(code.rawValue): \(message)" }
}
