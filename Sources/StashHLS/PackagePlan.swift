/// The offline package of an HLS download: what to fetch, where each piece goes in the asset
/// folder, and the playlists that make the folder playable. Built by
/// `make(masterURI:selection:media:)`; the engine does the fetching and the writing.
///
/// Layout: `master.m3u8`; `video/index.m3u8` with `seg00000.ts`, `init0.mp4`, `key0.key`;
/// `audio/<lang>/` and `subtitles/<lang>/` alike (`<lang>-2` for a second one of a language). Every byte range is its own file,
/// so the local playlists need no EXT-X-BYTERANGE and each file can be checked on its own.
package struct PackagePlan: Equatable, Sendable {
    /// Every segment and distinct init section of every chosen playlist, in playback order
    /// per playlist (video, then audio renditions, then subtitle renditions).
    package var files: [PackageFile]
    /// Where each AES-128 key belongs, one per (playlist folder, key URI).
    package var keys: [PackageKey]
    /// `master.m3u8` first, then each media playlist in the order of `files`.
    package var playlists: [PackagePlaylist]
    /// Seconds of the video playlist, the whole of it.
    package var duration: Double
    /// The time range kept, resolved against the video's duration; nil for the whole stream.
    package var window: SegmentWindow?
    /// What the time range changed, one sentence each: an end past the stream's duration
    /// clamped, a rendition with nothing in the window left out.
    package var windowNotes: [String] = []
    /// The exact sum of `files` sizes when every one is a byte range. Otherwise the variant's
    /// AVERAGE-BANDWIDTH (else BANDWIDTH) x duration / 8, which by RFC 8216 section 4.3.4.2
    /// already counts the renditions that play with it, raised to the known sizes if they add
    /// up to more. Nil when neither is known (a media playlist of whole-file segments). For a
    /// time range, of the segments in the window.
    package var estimatedBytes: Int64?
    /// True when `estimatedBytes` is the exact sum.
    package var sizeIsExact: Bool

    package init(files: [PackageFile], keys: [PackageKey], playlists: [PackagePlaylist], duration: Double,
                estimatedBytes: Int64?, sizeIsExact: Bool) {
        self.files = files
        self.keys = keys
        self.playlists = playlists
        self.duration = duration
        self.estimatedBytes = estimatedBytes
        self.sizeIsExact = sizeIsExact
    }

    /// The local master playlist's path in the asset folder.
    package static let masterPath = "master.m3u8"
}
