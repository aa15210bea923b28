import StashCore

/// The offline package of a DASH download: what to fetch, where each piece goes in the asset
/// folder, and the local MPD that names only what was chosen, with local paths. Built by
/// `make(mpd:tracks:indexes:start:end:)`; the engine does the fetching and the writing.
///
/// Layout: `manifest.mpd`; `video/init.mp4` and `video/seg00000.m4s` ... (each with the extension
/// of its URL); `audio/<lang>/` and `subtitles/<lang>/` alike (`<lang>-2` for a second set of one
/// language); each under `period<N>/` when the MPD has several periods. Every byte range is its
/// own file.
package struct DASHPackage: Equatable, Sendable {
    package struct File: Equatable, Sendable {
        package var url: String
        /// Relative to the asset folder.
        package var path: String
        package var range: MediaRange?
        /// What its first bytes must be, from the representation's MIME type (nil when stash
        /// knows no signature for it): checked as HLS segments are.
        package var container: SegmentContainer?
    }

    package static let manifestPath = "manifest.mpd"

    /// The local MPD (as `LocalMPD` writes it, one ContentProtection element a line) without
    /// its ContentProtection elements: the MPD of a decrypted copy.
    package static func clearManifest(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.trimmingPrefix(while: { $0 == " " }).hasPrefix("<ContentProtection ") }
            .joined(separator: "\n")
    }

    package var files: [File]
    /// The local MPD's text.
    package var manifest: String
    /// Seconds kept: the presentation's, or the time range's.
    package var duration: Double
    /// The exact sum of the files' sizes when every one is a byte range, else each track's
    /// bandwidth x its kept duration / 8 (the known sizes where there are some).
    package var estimatedBytes: Int64?
    package var sizeIsExact: Bool
    /// "1280x720, 1.5 Mb/s": what the download's record says was chosen.
    package var quality: String
    package var hasSubtitles: Bool
    /// The time range kept, resolved against the presentation; nil for all of it.
    package var window: (start: Double, end: Double)?

    package static func == (lhs: DASHPackage, rhs: DASHPackage) -> Bool {
        lhs.files == rhs.files && lhs.manifest == rhs.manifest && lhs.duration == rhs.duration
            && lhs.estimatedBytes == rhs.estimatedBytes && lhs.sizeIsExact == rhs.sizeIsExact && lhs.quality == rhs.quality
            && lhs.hasSubtitles == rhs.hasSubtitles && lhs.window?.start == rhs.window?.start && lhs.window?.end == rhs.window?.end
    }

    /// The key a SegmentBase representation's `sidx` bytes are handed to `make` under.
    package static func indexKey(url: String, range: MediaRange) -> String { "\(url)#\(range.offset)+\(range.length)" }
}

extension Representation {
    /// The byte range to fetch before the package can be made: a SegmentBase's index.
    package var indexRequest: (url: String, range: MediaRange)? {
        guard case .base(let base) = addressing, let range = base.indexRange else { return nil }
        return (base.url, range)
    }

    /// "1280x720, 1.5 Mb/s".
    package var summary: String {
        let rate = "\((Double(bandwidth) / 100_000).rounded() / 10) Mb/s"
        guard let width, let height else { return rate }
        return "\(width)x\(height), \(rate)"
    }
}
