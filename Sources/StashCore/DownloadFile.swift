/// One file of a download: where it comes from, where it goes inside the asset's folder, and
/// what is known of it. A single-file download has exactly one; a bundle has one per entry.
public struct DownloadFile: Equatable, Sendable {
    // Declared in an order that packs them (the strings, then the numbers, the flag last; the
    // two optional numbers stored as numbers, -1 for none, since an `Int64?` takes 16 bytes in
    // a struct): a bundle or an HLS package holds thousands, and a single-file download's one
    // file is a sixth of what it costs at rest.
    public var url: String
    /// Path inside the asset's folder, checked by `BundleRules.validatePath`.
    public var path: String
    /// Expected SHA-256, lowercase hex, empty when none was given.
    public var sha256: String
    /// What the file's content must be (`image`, `video`, `audio`, `text`, a MIME type; for an
    /// HLS segment `segment:<container>`), empty to take the download's.
    public var expect: String
    /// Validators of the partial file, for `If-Range` on resume; they never leave the daemon.
    package var etag: String?
    package var lastModified: String?
    /// Bytes on disk for this file, partial or complete. Not stored: the disk is the measure.
    public var downloadedBytes: Int64
    /// The fewest bytes the complete file may have; 0 to take the download's.
    public var minSize: Int64
    private var storedSize: Int64
    private var storedRangeOffset: Int64
    /// The file is at its final path, complete and verified. Not stored: a file reaches its
    /// final path only once it is complete, so its presence is the record.
    public var done: Bool
    /// Its URL was changed (SetDownload) since its server last answered: a server that does
    /// not resume it tells that the new URL's content differs, and a file without validators
    /// resumes on its size alone. Stored (`download_file.new_url`), so a restart keeps both.
    package var newURL = false

    /// Size given at add time or learned from Content-Length; nil while unknown (a negative
    /// size is no size).
    public var size: Int64? {
        get { storedSize < 0 ? nil : storedSize }
        set { storedSize = newValue ?? -1 }
    }

    /// Where the file starts in the resource at `url` when it is only a part of it (an HLS
    /// EXT-X-BYTERANGE segment); `size` is then the part's length. Nil for a whole resource.
    package var rangeOffset: Int64? {
        get { storedRangeOffset < 0 ? nil : storedRangeOffset }
        set { storedRangeOffset = newValue ?? -1 }
    }

    public init(
        url: String, path: String, size: Int64? = nil, sha256: String = "",
        etag: String? = nil, lastModified: String? = nil, rangeOffset: Int64? = nil, downloadedBytes: Int64 = 0, done: Bool = false,
        expect: String = "", minSize: Int64 = 0
    ) {
        self.expect = expect
        self.minSize = minSize
        self.storedRangeOffset = rangeOffset ?? -1
        self.url = url
        self.path = path
        self.storedSize = size ?? -1
        self.sha256 = sha256
        self.etag = etag
        self.lastModified = lastModified
        self.downloadedBytes = downloadedBytes
        self.done = done
    }

    /// The host transfers of this file count against for the per-host cap (lowercased).
    package var host: String {
        // Scans bytes: the engine asks for it for every file it starts, and parsing the URL
        // as characters cost more than the rest of starting a transfer.
        var url = self.url
        return url.withUTF8 { bytes -> String in
            let (colon, slash, question, hash, at, open, close) = (UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "@"), UInt8(ascii: "["), UInt8(ascii: "]"))
            var index = 0
            while index + 2 < bytes.count, !(bytes[index] == colon && bytes[index + 1] == slash && bytes[index + 2] == slash) {
                index += 1
            }
            guard index + 2 < bytes.count else { return "" }
            // The authority, from after "://" (and any userinfo) to the path, query or fragment.
            var start = index + 3
            var end = start
            while end < bytes.count, bytes[end] != slash, bytes[end] != question, bytes[end] != hash {
                if bytes[end] == at { start = end + 1 }
                end += 1
            }
            let terminator = start < end && bytes[start] == open ? close : colon
            if terminator == close { start += 1 }
            var stop = start
            while stop < end, bytes[stop] != terminator { stop += 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<stop]), as: UTF8.self).lowercased()
        }
    }
}

/// A file of a new bundle as a client gives it (AddDownload with files).
public struct BundleFileSpec: Equatable, Sendable {
    public var url: String
    /// Path inside the asset's folder; empty takes the file name from the URL.
    public var path: String
    /// Expected size, 0 when unknown.
    public var size: Int64
    public var sha256: String
    /// What the file's content must be: `image`, `video`, `audio`, `text` or a MIME type;
    /// empty to take the download's (`AddDownloadRequest.expect`).
    public var expect: String
    /// The fewest bytes the file may have; 0 to take the download's.
    public var minSize: Int64

    public init(url: String, path: String = "", size: Int64 = 0, sha256: String = "", expect: String = "", minSize: Int64 = 0) {
        self.expect = expect
        self.minSize = minSize
        self.url = url
        self.path = path
        self.size = size
        self.sha256 = sha256
    }
}
