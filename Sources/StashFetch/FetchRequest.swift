import StashCore

/// One transfer: where the bytes come from, where they go, and how hard to try.
package struct FetchRequest: Sendable {
    package var url: String
    package var headers: [HTTPHeader]
    /// Absolute path of the folder the file belongs in (an asset's folder). Nothing is ever
    /// written outside it, and no symlink inside it is followed.
    package var folder: String
    /// Path of the file inside `folder`: relative, no `..`, already checked by the caller.
    /// The bytes go to `<relativePath>.part` and are renamed once complete, fsynced and verified.
    package var relativePath: String
    /// Lowercase hex SHA-256 the complete file must have; "" skips the check.
    package var expectedSHA256: String
    /// Validators of the bytes already in `partPath`; without one of them a part file cannot
    /// be resumed safely and is restarted from zero.
    package var etag: String?
    package var lastModified: String?
    package var retry: RetryPolicy
    /// A transfer slower than `lowSpeedLimit` bytes/s for `lowSpeedTime` seconds is stalled and retried.
    package var lowSpeedLimit: Int
    package var lowSpeedTime: Int
    package var durability: FileDurability

    /// Names the file the transfer writes: two transfers with the same key must not overlap.
    var fileKey: String { folder + "/" + relativePath }
    /// Fetch only this part of the resource; the file holds just these bytes.
    package var range: FetchRange?
    /// The resource's size as recorded earlier, when known: a resume whose 206 names another
    /// size is another resource and starts again from zero.
    package var expectedSize: Int64?
    /// A part file without validators is resumed (a `Range` without `If-Range`) when the 206
    /// names `expectedSize`, instead of starting again: for a file whose URL changed, where
    /// the size is the one thing left to tell the same content by.
    package var resumeOnSize = false
    /// Keep the body in memory, up to this many bytes, instead of writing a file: the
    /// transfer ends with `.received` and `folder`/`relativePath` are not used.
    package var memoryLimit: Int?
    /// POST this body instead of a GET (a licence request); only with `memoryLimit`. Sent
    /// with `Content-Type: application/json` unless `headers` name another.
    package var postBody: [UInt8]?
    /// Transfers with the same non-empty group (a download's id) share `groupRateLimit`
    /// bytes per second (0 = none), within the global limit (`RateShares`).
    package var rateGroup = ""
    package var groupRateLimit: Int64 = 0
    /// What the body must be and how small it may be; a body that fails is refused as soon as
    /// its first bytes (or its announced size) tell, and nothing of it is kept.
    package var contentCheck: ContentCheck?
    /// A failed attempt that would be retried ends the transfer with `.retryLater` instead of
    /// waiting inside it: the caller waits out the backoff holding no transfer slot, and
    /// another download may use the slot meanwhile.
    package var retriesOutside = false
    /// Attempts earlier transfers of the same file made (retried outside): they count
    /// against `retry.maxAttempts` as this transfer's own do.
    package var attemptsBefore = 0
    /// The first attempt waits this long: what is left of the backoff of the attempt an
    /// earlier transfer of the file ended with.
    package var delayMs = 0

    package init(
        url: String, headers: [HTTPHeader] = [], folder: String, relativePath: String,
        expectedSHA256: String = "", etag: String? = nil, lastModified: String? = nil,
        retry: RetryPolicy = RetryPolicy(DaemonConfig()),
        lowSpeedLimit: Int = DaemonConfig().lowSpeedLimit, lowSpeedTime: Int = DaemonConfig().lowSpeedTime,
        durability: FileDurability = .alone, range: FetchRange? = nil, expectedSize: Int64? = nil, memoryLimit: Int? = nil,
        contentCheck: ContentCheck? = nil
    ) {
        self.contentCheck = contentCheck
        self.url = url
        self.headers = headers
        self.folder = folder
        self.relativePath = relativePath
        self.expectedSHA256 = expectedSHA256
        self.etag = etag
        self.lastModified = lastModified
        self.retry = retry
        self.lowSpeedLimit = lowSpeedLimit
        self.lowSpeedTime = lowSpeedTime
        self.durability = durability
        self.range = range
        self.expectedSize = expectedSize
        self.memoryLimit = memoryLimit
    }

    /// A request for a small resource kept in memory (a playlist, a key, a licence).
    package static func inMemory(
        url: String, headers: [HTTPHeader] = [], limit: Int, retry: RetryPolicy = RetryPolicy(DaemonConfig()),
        lowSpeedLimit: Int = DaemonConfig().lowSpeedLimit, lowSpeedTime: Int = DaemonConfig().lowSpeedTime,
        postBody: [UInt8]? = nil
    ) -> FetchRequest {
        var request = FetchRequest(url: url, headers: headers, folder: "", relativePath: "", retry: retry,
                                   lowSpeedLimit: lowSpeedLimit, lowSpeedTime: lowSpeedTime, memoryLimit: limit)
        request.postBody = postBody
        return request
    }

    /// Absolute path the bytes are written to while the transfer runs.
    package var partPath: String { finalPath + ".part" }
    /// Absolute path of the complete file.
    package var finalPath: String { folder + "/" + relativePath }
}
