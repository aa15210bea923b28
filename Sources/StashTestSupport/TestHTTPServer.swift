import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A real HTTP/1.1 server on 127.0.0.1 with an ephemeral port, whose answers tests script per
/// path (ranges, validators, failures, resets, stalls, throttling, redirects) and whose
/// requests they can inspect afterwards.
package final class TestHTTPServer: Sendable {
    private let group: MultiThreadedEventLoopGroup

    private struct State {
        var channel: Channel?
        var port = 0
        var routes: [String: TestRoute] = [:]
        var recorded: [RecordedRequest] = []
        var inFlight = 0
        var peak = 0
        var inFlightByHost: [String: Int] = [:]
        var peakByHost: [String: Int] = [:]
        var stallWaiters: [NIOLoopBound<() -> Void>] = []
        /// How many times `releaseStalls` ran: a response planned before a release does not
        /// stall after it, even if it reaches its stall only then.
        var releases = 0
        /// `serveDirectory` mounts, for files that appear after it was called.
        var directories: [(prefix: String, path: String)] = []
    }

    private let state = Mutex(State())

    /// The port it listens on, 127.0.0.1.
    package var port: Int { state.withLock { $0.port } }

    private init() {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    }

    /// Binds 127.0.0.1 on an ephemeral port and starts serving.
    package static func start() throws -> TestHTTPServer {
        let server = TestHTTPServer()
        let bootstrap = ServerBootstrap(group: server.group)
            .serverChannelOption(ChannelOptions.backlog, value: 512)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(TestHTTPHandler(server: server))
                }
            }
        do {
            let channel = try bootstrap.bind(host: "127.0.0.1", port: 0).wait()
            server.state.withLock { state in
                state.channel = channel
                state.port = channel.localAddress?.port ?? 0
            }
        } catch {
            try? server.group.syncShutdownGracefully()
            throw error
        }
        return server
    }

    deinit {
        stop()
    }

    /// Closes the listener and every connection.
    package func stop() {
        let channel = state.withLock { state in
            defer { state.channel = nil }
            return state.channel
        }
        guard let channel else { return }
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }

    /// `http://127.0.0.1:<port><path>`
    package func url(_ path: String) -> String {
        "http://127.0.0.1:\(port)\(path)"
    }

    /// Serves `body` at `path`, replacing any earlier route there.
    package func serve(path: String, body: [UInt8], etag: String? = nil, lastModified: String? = nil) {
        serve(path: path, route: TestRoute(body: .bytes(body), etag: etag, lastModified: lastModified))
    }

    /// Serves `size` deterministic pattern bytes (see `TestBody.pattern`) at `path`.
    package func serve(path: String, size: Int, seed: UInt64 = 1, etag: String? = nil, lastModified: String? = nil) {
        serve(path: path, route: TestRoute(body: .pattern(size: size, seed: seed), etag: etag, lastModified: lastModified))
    }

    package func serve(path: String, route: TestRoute) {
        state.withLock { $0.routes[path] = route }
    }

    /// Serves every file under `directory` (recursively) at `prefix/relative/path`, with a
    /// Content-Type from its extension (`contentType(forPath:)`) and its bytes read from disk
    /// as they are sent. Each file gets an ordinary route, so `update`, `route` and
    /// `requests(for:)` work on its path. A file's size is taken when its route is made: now
    /// for the files already there, at its first request for a file added later. Serve the
    /// directory again after rewriting a file to pick up its new size.
    package func serveDirectory(_ directory: String, at prefix: String) {
        let prefix = Self.normalisedPrefix(prefix)
        let found = Self.routesForFiles(under: directory, at: prefix)
        state.withLock { state in
            state.directories.removeAll { $0.prefix == prefix }
            state.directories.append((prefix, directory))
            for (path, route) in found { state.routes[path] = route }
        }
    }

    /// A route for a file under a served directory that has no route yet. Called under the lock.
    private static func directoryRoute(_ path: String, in state: inout State) -> TestRoute? {
        for mount in state.directories {
            guard let route = fileRoute(requestPath: path, prefix: mount.prefix, directory: mount.path) else { continue }
            state.routes[path] = route
            return route
        }
        return nil
    }

    /// Changes the behaviour of an existing route; requests already being answered keep theirs.
    package func update(path: String, _ change: (inout TestRoute) -> Void) {
        state.withLock { state in
            guard var route = state.routes[path] ?? Self.directoryRoute(path, in: &state) else {
                preconditionFailure("no route at '\(path)'; call serve first")
            }
            change(&route)
            state.routes[path] = route
        }
    }

    package func route(_ path: String) -> TestRoute? {
        state.withLock { $0.routes[path] }
    }

    /// Every request received so far, in arrival order.
    package var requests: [RecordedRequest] { state.withLock { $0.recorded } }

    package func requests(for path: String) -> [RecordedRequest] {
        requests.filter { $0.path == path }
    }

    /// Requests whose response is still being sent, and the most there ever were at once.
    package var inFlightRequests: Int { state.withLock { $0.inFlight } }
    package var peakInFlightRequests: Int { state.withLock { $0.peak } }

    /// Starts counting peaks afresh (for a test with several phases).
    package func resetPeaks() {
        state.withLock { state in
            state.peak = state.inFlight
            state.peakByHost = state.inFlightByHost
        }
    }

    /// The most requests at once whose Host header was `host` (e.g. "127.0.0.1:PORT").
    package func peakInFlightRequests(host: String) -> Int { state.withLock { $0.peakByHost[host] ?? 0 } }

    /// The Host header value of `url(_:)` URLs, and of the same server reached as `localhost`.
    package var hostHeader: String { "127.0.0.1:\(port)" }
    package var localhostHeader: String { "localhost:\(port)" }

    /// A URL of this server through the name `localhost`: to the daemon, another host.
    package func localhostURL(_ path: String) -> String {
        "http://localhost:\(port)\(path)"
    }

    /// Lets every response stalled "until released" continue, and those planned before now
    /// that have not reached their stall yet go past it: a test that releases a stall need not
    /// know whether the server got there first.
    package func releaseStalls() {
        let waiters = state.withLock { state in
            defer { state.stallWaiters.removeAll() }
            state.releases += 1
            return state.stallWaiters
        }
        for resume in waiters { resume.eventLoop.execute { resume.value() } }
    }

    /// How many responses are stalled "until released" now.
    package var stalledCount: Int {
        state.withLock { $0.stallWaiters.count }
    }

    /// Called on `loop`, where `resume` then runs, for a response planned after `release`
    /// releases; false, and `resume` not kept, when a release came since: go on.
    func addStallWaiter(on loop: EventLoop, plannedAt release: Int, _ resume: @escaping () -> Void) -> Bool {
        let bound = NIOLoopBound(resume, eventLoop: loop)
        return state.withLock { state in
            guard state.releases == release else { return false }
            state.stallWaiters.append(bound)
            return true
        }
    }

    func responseEnded(host: String) {
        state.withLock { state in
            state.inFlight -= 1
            state.inFlightByHost[host, default: 1] -= 1
        }
    }

    /// Records the request and decides the answer from the route as it is now.
    func plan(for head: HTTPRequestHead) -> TestResponsePlan {
        state.withLock { state in
            let path = String(head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            state.recorded.append(RecordedRequest(
                method: head.method.rawValue, path: path, uri: head.uri,
                headers: head.headers.map { RecordedRequest.HTTPHeaderPair(name: $0.name, value: $0.value) }))
            state.inFlight += 1
            state.peak = max(state.peak, state.inFlight)
            let host = head.headers["Host"].first ?? ""
            state.inFlightByHost[host, default: 0] += 1
            state.peakByHost[host] = max(state.peakByHost[host] ?? 0, state.inFlightByHost[host]!)
            let isHead = head.method == .HEAD
            guard var route = state.routes[path] ?? Self.directoryRoute(path, in: &state) else {
                return .simple(status: 404, reason: "Not Found", text: "no route at \(path)\n", isHead: isHead)
            }
            defer { state.routes[path] = route }
            if let status = route.alwaysStatus {
                return .simple(status: status, reason: Self.reason(status), text: "status \(status)\n", isHead: isHead)
            }
            if route.failTimes > 0 {
                route.failTimes -= 1
                let extra = route.retryAfterSeconds.map { [("Retry-After", "\($0)")] } ?? []
                return .simple(status: route.failStatus, reason: Self.reason(route.failStatus), text: "scripted failure\n", headers: extra, isHead: isHead)
            }
            if let target = route.redirectTo {
                // Not url(_:), which takes the lock held here.
                let location = target.contains("://") ? target : "http://127.0.0.1:\(state.port)\(target)"
                return .simple(status: 302, reason: "Found", text: "see \(location)\n", headers: [("Location", location)], isHead: isHead)
            }
            return servePlan(route: &route, head: head, isHead: isHead, releases: state.releases)
        }
    }

    private func servePlan(route: inout TestRoute, head: HTTPRequestHead, isHead: Bool, releases: Int) -> TestResponsePlan {
        let size = route.body.count
        var validators: [(String, String)] = [("Accept-Ranges", "bytes")]
        if let etag = route.etag { validators.append(("ETag", etag)) }
        if let lastModified = route.lastModified { validators.append(("Last-Modified", lastModified)) }

        // The 416 text says what it is itself; bodies of the route say it with this.
        let bodyType = route.contentType.map { [("Content-Type", $0)] } ?? []

        var answer = RangeRequest.ignored
        if route.honourRange, let range = head.headers.first(name: "Range") {
            // If-Range that names another version means "send me the whole new thing".
            if let ifRange = head.headers.first(name: "If-Range") {
                if ifRange == route.etag || ifRange == route.lastModified { answer = RangeRequest(header: range, size: size) }
            } else {
                answer = RangeRequest(header: range, size: size)
            }
        }
        var plan: TestResponsePlan
        switch answer {
        case .unsatisfiable:
            return .simple(
                status: 416, reason: "Range Not Satisfiable", text: "",
                headers: validators + [("Content-Range", "bytes */\(size)")], isHead: isHead)
        case .bytes(var range):
            var rangeHeaders = [
                ("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(size)"),
                ("Content-Length", "\(range.count)"),
            ]
            if route.partialAnswerTimes > 0, let partial = route.partialAnswer {
                route.partialAnswerTimes -= 1
                switch partial {
                case .omitContentRange:
                    rangeHeaders.removeFirst()
                case .shortRange(let bytes):
                    range = range.lowerBound..<min(range.upperBound, range.lowerBound + max(1, bytes))
                    rangeHeaders = [
                        ("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(size)"),
                        ("Content-Length", "\(range.count)"),
                    ]
                case .headers(let contentRange, let contentLength):
                    rangeHeaders = [("Content-Range", contentRange), ("Content-Length", contentLength)]
                }
            }
            plan = TestResponsePlan(
                status: 206, reason: "Partial Content", headers: validators + bodyType + rangeHeaders,
                body: route.body, range: range, sendBody: !isHead)
        case .ignored:
            plan = TestResponsePlan(
                status: 200, reason: "OK", headers: validators + bodyType + [("Content-Length", "\(size)")],
                body: route.body, range: 0..<size, sendBody: !isHead)
        }
        guard !isHead else { return plan }
        if route.resetTimes > 0, let after = route.resetAfterBytes {
            route.resetTimes -= 1
            plan.resetAfter = after
        }
        if route.stallTimes > 0, let after = route.stallAfterBytes {
            route.stallTimes -= 1
            plan.stallAfter = after
            plan.releasesBefore = releases
            plan.stallSeconds = route.stallSeconds
        }
        plan.bytesPerSecond = route.bytesPerSecond
        if route.overlongTimes > 0, route.overlongBytes > 0 {
            route.overlongTimes -= 1
            plan.overlong = route.overlongBytes
        }
        return plan
    }

    static func reason(_ status: Int) -> String {
        HTTPResponseStatus(statusCode: status).reasonPhrase
    }
}
