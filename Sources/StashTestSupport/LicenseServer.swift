import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A real HTTP/1.1 licence server on 127.0.0.1 for tests: it hands out the keys it was given
/// for `POST /license` (JSON, kids in base64url) and a service certificate at `GET /cert`,
/// can be told to refuse, delay or garble its answers, and records every licence request.
/// Every setting may be changed while it runs; the next request sees the change.
///
/// `stop()` then `restart()` takes it down and brings it back on the same port with the same
/// keys, settings and recorded requests, for tests of a server that goes away for a while.
package final class LicenseServer: Sendable {
    /// What the settable properties read and write, under the lock.
    private struct Settings {
        var expiresIn: Int?
        var playbackDuration: Int?
        var requiredHeader: (name: String, value: String)?
        var wrongHeaderStatus = 403
        var refuseStatus: Int?
        var delaySeconds: Double = 0
        var malformedJSON = false
    }

    private struct State {
        var port = 0
        var group: MultiThreadedEventLoopGroup?
        var channel: Channel?
        var settings = Settings()
        var keys: [[UInt8]: [UInt8]] = [:]
        var revoked: Set<[UInt8]> = []
        var certificate: [UInt8]?
        var recorded: [LicenseServerRequest] = []
    }

    private let state = Mutex(State())

    /// The port it serves on, 127.0.0.1; the same after `restart`.
    package var port: Int { state.withLock { $0.port } }

    private init() {}

    /// Binds 127.0.0.1 on `port` (0: an ephemeral one) and starts serving.
    package static func start(port: Int = 0) throws -> LicenseServer {
        let server = LicenseServer()
        try server.bind(port: port)
        return server
    }

    deinit {
        // Not the blocking shutdown (which closes every channel too): the last reference
        // may go on an event loop thread.
        state.withLock { $0.group }?.shutdownGracefully { _ in }
    }

    /// Closes the listener and every connection; the port is free when this returns.
    package func stop() {
        let (channel, group) = state.withLock { state in
            defer {
                state.channel = nil
                state.group = nil
            }
            return (state.channel, state.group)
        }
        try? channel?.close().wait()
        try? group?.syncShutdownGracefully()
    }

    /// Serves again on the same port, with the keys, settings and recorded requests it had
    /// (stopping first if it is running).
    package func restart() throws {
        stop()
        try bind(port: port)
    }

    /// `http://127.0.0.1:<port>/license`
    package var licenseURL: String { "http://127.0.0.1:\(port)/license" }

    /// `http://127.0.0.1:<port>/cert`
    package var certificateURL: String { "http://127.0.0.1:\(port)/cert" }

    /// Serves `key` for `kid`, replacing an earlier key for it. Any length is taken, so a test
    /// can hand out a key that is not 16 bytes.
    package func addKey(kid: [UInt8], key: [UInt8]) {
        state.withLock { $0.keys[kid] = key }
    }

    /// From now on acquire and renew naming `kid` are refused with 403.
    package func revoke(kid: [UInt8]) {
        _ = state.withLock { $0.revoked.insert(kid) }
    }

    /// Serves `bytes` at `GET /cert`; nil makes it answer 404.
    package func serveCertificate(_ bytes: [UInt8]?) {
        state.withLock { $0.certificate = bytes }
    }

    /// `expires_in` of acquire and renew answers, in seconds; left out when nil.
    package var expiresIn: Int? {
        get { read(\.expiresIn) }
        set { write(\.expiresIn, newValue) }
    }

    /// `playback_duration` of acquire and renew answers, in seconds; left out when nil.
    package var playbackDuration: Int? {
        get { read(\.playbackDuration) }
        set { write(\.playbackDuration, newValue) }
    }

    /// A header every licence request must carry (name in any case, value exactly), as an
    /// app's authorisation would be; requests without it get 403.
    package var requiredHeader: (name: String, value: String)? {
        get { read(\.requiredHeader) }
        set { write(\.requiredHeader, newValue) }
    }

    /// The status a request without `requiredHeader` gets: 403, or 401 as a server answers an
    /// expired token.
    package var wrongHeaderStatus: Int {
        get { read(\.wrongHeaderStatus) }
        set { write(\.wrongHeaderStatus, newValue) }
    }

    /// When set, every licence request is answered with this status and `{"error":"refused"}`.
    package var refuseStatus: Int? {
        get { read(\.refuseStatus) }
        set { write(\.refuseStatus, newValue) }
    }

    /// Seconds every licence answer waits before it is sent (other requests keep being read).
    package var delaySeconds: Double {
        get { read(\.delaySeconds) }
        set { write(\.delaySeconds, newValue) }
    }

    /// When true, acquire and renew are answered 200 with a body that is not JSON.
    package var malformedJSON: Bool {
        get { read(\.malformedJSON) }
        set { write(\.malformedJSON, newValue) }
    }

    /// Every licence request received so far, in arrival order, refused ones included.
    package var requests: [LicenseServerRequest] { state.withLock { $0.recorded } }

    /// The recorded requests with this action: "" gives those whose body was not well-formed.
    package func requests(action: String) -> [LicenseServerRequest] {
        requests.filter { $0.action == action }
    }

    /// Records a licence request and decides its answer from the settings as they are now.
    func answer(method: HTTPMethod, path: String, headers: HTTPHeaders, body: [UInt8]) -> LicenseServerAnswer {
        state.withLock { state in
            switch (method, path) {
            case (.GET, "/cert"):
                guard let certificate = state.certificate else { return .error(404, "no certificate") }
                return LicenseServerAnswer(status: 200, contentType: "application/octet-stream", body: certificate)
            case (.POST, "/license"):
                let pairs = headers.map { RecordedRequest.HTTPHeaderPair(name: $0.name, value: $0.value) }
                let (request, problem) = LicenseServerRequest.parse(body: body, headers: pairs)
                state.recorded.append(request)
                var answer = Self.licenseAnswer(request, problem: problem, headers: headers, state: state)
                answer.delay = state.settings.delaySeconds
                return answer
            case (_, "/license"), (_, "/cert"):
                return .error(405, "method \(method.rawValue) not allowed on \(path)")
            default:
                return .error(404, "no route at \(path)")
            }
        }
    }

    /// The answer to a licence request, from the state as the lock holds it.
    private static func licenseAnswer(
        _ request: LicenseServerRequest, problem: String?, headers: HTTPHeaders, state: State
    ) -> LicenseServerAnswer {
        let settings = state.settings
        if let status = settings.refuseStatus { return .error(status, "refused") }
        if let required = settings.requiredHeader, !headers[required.name].contains(required.value) {
            return .error(settings.wrongHeaderStatus, "missing or wrong \(required.name) header")
        }
        let contentType = headers.first(name: "Content-Type") ?? ""
        guard contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == "application/json" else {
            return .error(400, "Content-Type is '\(contentType)', not application/json")
        }
        if let problem { return .error(400, problem) }
        let kids = request.kids.map(Base64URL.encode)
        if request.action == "release" { return .json(200, ["released": kids]) }
        if settings.malformedJSON {
            return LicenseServerAnswer(status: 200, contentType: "application/json", body: Array("{\"keys\": [ not json".utf8))
        }
        var answered: [[String: String]] = []
        for (kid, text) in zip(request.kids, kids) {
            if state.revoked.contains(kid) { return .error(403, "key \(text) revoked") }
            guard let key = state.keys[kid] else { return .error(404, "unknown key id \(text)") }
            answered.append(["kty": "oct", "kid": text, "k": Base64URL.encode(key)])
        }
        var object: [String: Any] = ["keys": answered, "type": "persistent-license"]
        if let expiresIn = settings.expiresIn { object["expires_in"] = expiresIn }
        if let playbackDuration = settings.playbackDuration { object["playback_duration"] = playbackDuration }
        return .json(200, object)
    }

    private func read<Value: Sendable>(_ setting: KeyPath<Settings, Value>) -> Value {
        state.withLock { $0.settings[keyPath: setting] }
    }

    private func write<Value: Sendable>(_ setting: WritableKeyPath<Settings, Value>, _ value: Value) {
        state.withLock { $0.settings[keyPath: setting] = value }
    }

    private func bind(port: Int) throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        // Weak here and in the handler, so a server a test forgets to stop is still freed
        // (its deinit closes it) even while a client keeps a connection open.
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { [weak self] channel in
                guard let self else { return channel.close() }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(LicenseServerHandler(server: self))
                }
            }
        do {
            let channel = try bootstrap.bind(host: "127.0.0.1", port: port).wait()
            state.withLock { state in
                state.group = group
                state.channel = channel
                state.port = channel.localAddress?.port ?? 0
            }
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
    }
}
