import CCurl
import Dispatch
import Foundation
import Logging
import StashCore

/// Everything about one transfer, owned and touched only by the fetch thread (libcurl calls
/// its callbacks on that thread too).
final class Transfer {
    enum Phase: Equatable {
        /// Its part file is being opened (and hashed) on the disk queue.
        case starting
        /// An easy handle is in the multi handle.
        case running
        /// Waiting until the monotonic time (ns) to start the next attempt.
        case waitingToRetry(until: UInt64)
        /// The network monitor said offline; asks again at the monotonic time (ns).
        case waitingForNetwork(nextCheck: UInt64)
        /// The body is complete; the disk queue fsyncs and renames the part file.
        case committing
    }

    /// Callers of cancel waiting for disk work on this transfer to end before it can stop:
    /// the disk queue owns the part file meanwhile, and a removal must not race its rename.
    var cancelWaiters: [@Sendable () -> Void] = []
    /// Stop as soon as the disk work in flight is done.
    var stopRequested = false

    let id: TransferID
    /// Its group's rate limit changes while it runs (`FetchCommand.groupRateLimit`).
    var request: FetchRequest
    /// `request.fileKey`, made once: every start compares it with every other transfer's.
    let fileKey: String
    /// Asked only when an attempt fails (is the network up for this host?): parsing every
    /// URL up front cost more than the rest of setting up a small file's transfer.
    lazy var host: String = URLComponents(string: request.url)?.host ?? ""
    private let deliver: @Sendable (FetchEvent) -> Void
    /// The fetch thread's logger, without the transfer's number: log through `log`.
    let logger: Logger

    /// Sent with every request; made once, not at each attempt.
    static let userAgent = "stash/\(StashVersion.daemon)"

    var phase = Phase.starting
    var body: TransferBody?
    /// The URL of the last response, after redirects.
    var effectiveURL: String?
    /// The URL this attempt asks: `request.url`, or where a redirect sent it.
    var currentURL: String
    /// Redirects followed in this attempt.
    var redirects = 0
    /// Whether the request body goes along: dropped by a redirect that turns a POST into a GET.
    var sendsBody = true
    var easy: CurlEasy?
    /// Attempts started and counted against `request.retry.maxAttempts`, with those of the
    /// file's earlier transfers.
    var attempts: Int
    /// The monotonic time (ns) before which the first attempt must not start
    /// (`FetchRequest.delayMs`); nil once it has started or when there is none.
    var firstAttemptAt: UInt64?
    /// Validators of the bytes in the part file; they make the next Range request safe.
    var partETag: String?
    var partLastModified: String?
    var totalBytes: Int64?

    // Per attempt.
    var requestedFrom: Int64 = 0
    /// A deferred part file (`PartFile.isDeferred`) is being opened on a disk queue, the
    /// attempt paused until it is: a cancel waits for the open, and an end of the attempt
    /// meanwhile (`endedWhileOpening`) is taken in after it.
    var fileOpening = false
    var endedWhileOpening: CURLcode?
    /// Called on the fetch thread when the bytes libcurl holds need the part file open.
    var requestOpen: ((Transfer) -> Void)?
    var response = ResponseHeaders()
    var bodyDecided = false
    /// The body is not the resource (an error page): read and dropped.
    var discardingBody = false
    /// Set by a callback that aborted the attempt on purpose; wins over curl's WRITE_ERROR.
    var abortFailure: FetchFailure?

    /// The next attempt must not reuse a pooled connection: the last one failed on a reused
    /// connection, which may be left in a bad state by the response before it.
    var freshConnection = false
    /// Set once a failure on a reused connection was retried on a new one: a second failure
    /// is the server's, not the pool's.
    var retriedOnFreshConnection = false

    /// This transfer's share of the global rate limit.
    var limiter = RateLimiter()
    /// Set while the write callback has paused the transfer to keep under `limiter`.
    var resumeAt: UInt64?
    /// The request's content check as the body arrives; nil when it has none.
    var probe: ContentProbe?

    private var lastProgressAt: UInt64 = 0

    init(id: TransferID, request: FetchRequest, logger: Logger, events: @escaping @Sendable (FetchEvent) -> Void) {
        self.id = id
        self.request = request
        self.fileKey = request.fileKey
        self.deliver = events
        self.partETag = request.etag
        self.partLastModified = request.lastModified
        self.currentURL = request.url
        self.probe = request.contentCheck.map(ContentProbe.init)
        self.logger = logger
        // Within the policy: a count past it gives up at the next failure, and `+= 1` cannot overflow.
        self.attempts = min(max(0, request.attemptsBefore), max(0, request.retry.maxAttempts - 1))
    }

    /// Logs with the transfer's number added, only when the level is on. The number is not
    /// set on a logger of its own at init: setting metadata makes swift-log's stream handler
    /// format all of it again, at every transfer's start, for messages mostly filtered out.
    func log(_ level: Logger.Level, _ message: @autoclosure () -> Logger.Message, _ metadata: @autoclosure () -> Logger.Metadata = [:]) {
        logger.log(level: level, message(), metadata: metadata().merging(["transfer": "\(id.rawValue)"]) { old, _ in old })
    }

    var downloadedBytes: Int64 { body?.size ?? 0 }

    func emit(_ event: FetchEvent) {
        deliver(event)
    }

    /// Emits `.progress` once the attempt has run 100 ms and then at most every 100 ms: a
    /// file done sooner needs none, as `.completed` carries its size (a bundle of small files
    /// would otherwise send the engine two events more per file).
    func reportProgress() {
        let now = DispatchTime.now().uptimeNanoseconds
        if now &- lastProgressAt < 100_000_000 { return }
        lastProgressAt = now
        deliver(.progress(downloadedBytes: downloadedBytes, totalBytes: totalBytes))
    }

    /// Gives the transfer its share of the global rate limit (0 = unlimited).
    func setRateShare(_ share: Int64, now: UInt64) throws {
        limiter.reset(limit: share, now: now)
        // Paused for its old share, it would wait out that share's pause (a 16 KiB buffer at
        // 1 KB/s: 16 s) before taking a larger one; the reset window admits the bytes at once.
        if resumeAt != nil { resumeAt = now }
        try easy?.set(CURLOPT_LOW_SPEED_LIMIT, lowSpeedLimit)
    }

    /// A share below the stall threshold would make every paced transfer look stalled, so the
    /// threshold drops to half the share.
    private var lowSpeedLimit: Int {
        let configured = max(1, request.lowSpeedLimit)
        guard limiter.limit > 0 else { return configured }
        return Int(max(1, min(Int64(configured), limiter.limit / 2)))
    }

    /// Builds the easy handle of the next attempt: Range/If-Range when the part file can be
    /// resumed, otherwise the part file is emptied first.
    func prepareAttempt() throws -> CurlEasy {
        guard let file = body else { throw DownloadError(.internal, "transfer \(id) has no open part file") }
        let ifRange = BodyPlan.ifRange(etag: partETag, lastModified: partLastModified)
        // Without validators only the recorded size can tell the content (BodyPlan compares it).
        let bySize = ifRange == nil && request.resumeOnSize && request.range == nil && (request.expectedSize ?? 0) > file.size
        // A range already whole (killed before the rename) is fetched again rather than
        // asked for with an empty range; segments are small.
        if file.size > 0, (ifRange == nil && !bySize) || file.size >= (request.range?.length ?? .max) || probe?.canResume(size: file.size) == false {
            try file.truncate()
        }
        requestedFrom = file.size
        probe?.restart(at: requestedFrom)
        lastProgressAt = DispatchTime.now().uptimeNanoseconds
        response = ResponseHeaders()
        bodyDecided = false
        discardingBody = false
        abortFailure = nil
        resumeAt = nil

        let easy = try CurlEasy()
        try easy.set(CURLOPT_URL, currentURL)
        try easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        // Redirects are followed by the fetch loop (RedirectRule), which keeps custom headers
        // on their origin.
        try easy.set(CURLOPT_FOLLOWLOCATION, 0)
        try easy.set(CURLOPT_NOSIGNAL, 1)
        try easy.set(CURLOPT_TCP_KEEPALIVE, 1)
        try easy.set(CURLOPT_USERAGENT, Self.userAgent)
        try easy.set(CURLOPT_BUFFERSIZE, 256 * 1024)
        try easy.set(CURLOPT_CONNECTTIMEOUT, 15)
        try easy.set(CURLOPT_LOW_SPEED_LIMIT, lowSpeedLimit)
        try easy.set(CURLOPT_LOW_SPEED_TIME, max(1, request.lowSpeedTime))
        try easy.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        if freshConnection {
            try easy.set(CURLOPT_FRESH_CONNECT, 1)
            freshConnection = false
        }
        // Asked only when there are headers to carry: the rule parses both URLs (the host through
        // IDNA), 2 % of the fetch thread's CPU for transfers that have none.
        var lines = !request.headers.isEmpty && RedirectRule.carriesHeaders(from: request.url, to: currentURL)
            ? request.headers.map { "\($0.name): \($0.value)" } : []
        if let range = request.range {
            guard let bounds = range.bounds(skipping: requestedFrom) else {
                throw DownloadError(.validation, "byte range of \(range.length) bytes at offset \(range.offset) is not inside a file of at most \(Int64.max) bytes (\(request.url))")
            }
            try easy.set(CURLOPT_RANGE, "\(bounds.first)-\(bounds.last)")
            if requestedFrom > 0, let ifRange { lines.append("If-Range: \(ifRange)") }
        } else if requestedFrom > 0, let ifRange {
            try easy.set(CURLOPT_RANGE, "\(requestedFrom)-")
            lines.append("If-Range: \(ifRange)")
        } else if requestedFrom > 0, bySize {
            try easy.set(CURLOPT_RANGE, "\(requestedFrom)-")
        }
        if let post = request.postBody, sendsBody {
            // COPYPOSTFIELDS copies the bytes, so the easy handle owns what it sends.
            try easy.set(CURLOPT_POSTFIELDSIZE, post.count)
            try post.withUnsafeBytes { try easy.set(CURLOPT_COPYPOSTFIELDS, pointer: UnsafeMutableRawPointer(mutating: $0.baseAddress)) }
            if !lines.contains(where: { $0.lowercased().hasPrefix("content-type:") }) {
                lines.append("Content-Type: application/json")
            }
        }
        try easy.setHeaders(lines)
        let me = Unmanaged.passUnretained(self).toOpaque()
        try easy.setWriteCallback(transferWriteCallback, userData: me)
        try easy.setHeaderCallback(transferHeaderCallback, userData: me)
        return easy
    }

    /// Runs once per attempt, when the first body byte arrives or the attempt ends without a
    /// body: decides whether the body is the resource and where it goes.
    func decideBody() {
        guard !bodyDecided else { return }
        bodyDecided = true
        let status = (try? easy?.info(long: CURLINFO_RESPONSE_CODE)) ?? response.status
        guard (200...299).contains(status), let file = body else {
            discardingBody = true
            return
        }
        let plan: BodyPlan
        if let range = request.range {
            plan = BodyPlan.decideRange(
                range, status: status, requestedFrom: requestedFrom, contentRange: response.contentRange,
                responseETag: response.etag, partETag: partETag)
        } else {
            plan = BodyPlan.decide(
                status: status, requestedFrom: requestedFrom, contentRange: response.contentRange,
                contentLength: response.contentLength, knownTotal: totalBytes ?? request.expectedSize,
                responseETag: response.etag, partETag: partETag)
        }
        do {
            switch plan {
            case .append:
                // BodyPlan appends only to a 206 that names the resource's size.
                totalBytes = request.range?.length ?? response.contentRange?.size
            case .writeFromZero:
                if file.size > 0 { try file.truncate() }
                totalBytes = request.range?.length ?? (status == 206 ? response.contentRange?.size : response.contentLength)
                probe?.restart(at: 0)
            case .rangeIgnored:
                discardingBody = true
                abortFailure = FetchFailure(
                    error: DownloadError(.http, "\(request.url) answered HTTP \(status) without the byte range \(request.range?.bounds(skipping: 0).map { "\($0.first)-\($0.last)" } ?? "") that was asked for; the server must support Range requests for this stream", httpStatus: status),
                    retryable: false, connectionClass: false)
                return
            case .refetchFromZero(let why):
                try file.truncate()
                partETag = nil
                partLastModified = nil
                totalBytes = nil
                discardingBody = true
                log(.info, "resume refused; starting again from byte 0", ["why": "\(why)"])
                abortFailure = FetchFailure(
                    error: DownloadError(.network, "\(why) (\(request.url)); starting again from byte 0"),
                    retryable: true, connectionClass: false)
                return
            }
        } catch {
            discardingBody = true
            abortFailure = .thrown(error)
            return
        }
        if let refusal = probe?.refusal(announced: totalBytes) {
            refuseContent(refusal)
            return
        }
        // A 206 may omit validators; then the ones that matched If-Range still describe the file.
        if plan != .append || response.etag != nil || response.lastModified != nil {
            partETag = response.etag
            partLastModified = response.lastModified
        }
        let resumedFrom = plan == .append ? requestedFrom : 0
        log(.debug, "response accepted", ["status": "\(status)", "resumedFrom": "\(resumedFrom)"])
        deliver(.started(FetchResponseInfo(
            httpStatus: status, resumedFrom: resumedFrom, totalBytes: totalBytes,
            etag: response.etag, lastModified: response.lastModified, contentType: response.contentType)))
    }

    /// Body bytes from libcurl; returning fewer than given aborts the attempt.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Int {
        decideBody()
        if abortFailure != nil { return 0 }
        if discardingBody { return bytes.count }
        if let file = body as? PartFile, file.needsOpen(toAppend: bytes.count) {
            // Before anything counts these bytes: libcurl hands them over again after the
            // unpause that follows the open.
            fileOpening = true
            requestOpen?(self)
            return ccurl_writefunc_pause()
        }
        let now = DispatchTime.now().uptimeNanoseconds
        let wait = limiter.admit(bytes.count, now: now)
        if wait > 0 {
            // libcurl keeps these bytes and hands them over again after the unpause.
            resumeAt = now + wait
            return ccurl_writefunc_pause()
        }
        if let totalBytes, let size = body?.size, Int64(bytes.count) > totalBytes - size {
            // More than the response announced: neither these bytes nor the connection can be
            // trusted (libcurl closes the connection of an aborted transfer).
            abortFailure = FetchFailure(
                error: DownloadError(.network, "\(request.url) sent more than the \(totalBytes) bytes it announced; starting again from byte 0"),
                retryable: true, connectionClass: false)
            partETag = nil
            partLastModified = nil
            return 0
        }
        if let refusal = probe?.take(bytes, contentType: response.contentType, announced: totalBytes) {
            refuseContent(refusal)
            return 0
        }
        do {
            try body?.append(bytes)
        } catch {
            abortFailure = .thrown(error)
            return 0
        }
        reportProgress()
        return bytes.count
    }
}

extension Transfer {
    /// Ends the attempt on a body that is not the content asked for, keeping nothing of it:
    /// asking again would bring the same body.
    func refuseContent(_ refusal: String) {
        discardingBody = true
        abortFailure = FetchFailure(error: DownloadError(.validation, refusal), retryable: false, connectionClass: false)
        (body as? PartFile)?.remove()
    }

    /// Why the complete body in `file` cannot be kept: a digest that differs from the one
    /// expected, a body too short, or first bytes (of a body shorter than the window) that
    /// are not the content asked for. Nil when it can.
    func refusalAtEnd(of file: PartFile, digest: String) -> DownloadError? {
        let expected = request.expectedSHA256
        if !expected.isEmpty, expected.lowercased() != digest {
            return DownloadError(.validation, "sha256 mismatch: expected \(expected), got \(digest) (\(request.url))")
        }
        return probe?.finish(size: file.size, contentType: response.contentType).map { DownloadError(.validation, $0) }
    }
}

/// libcurl write callback; `userdata` is the unretained Transfer, kept alive by the loop's table.
private func transferWriteCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userData: UnsafeMutableRawPointer?) -> Int {
    guard let userData else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(userData).takeUnretainedValue()
    return transfer.receive(UnsafeRawBufferPointer(start: data, count: size * count))
}

private func transferHeaderCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userData: UnsafeMutableRawPointer?) -> Int {
    guard let userData, let data else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(userData).takeUnretainedValue()
    let bytes = UnsafeRawBufferPointer(start: data, count: size * count)
    transfer.response.consume(bytes: bytes)
    return size * count
}
