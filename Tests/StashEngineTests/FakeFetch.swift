import Foundation
import StashCore
import StashFetch
import Synchronization

@testable import StashEngine

/// A fetch service that moves no bytes over a network: it keeps every transfer the engine
/// starts, and a test says what becomes of each (its headers, progress, completion, failure)
/// or leaves it stalled. A completion puts a file of that size at the final path, as the
/// real workers do, so the engine's view of the disk stays true.
final class FakeFetch: FetchService {
    struct Transfer {
        let id: TransferID
        let request: FetchRequest
        let events: @Sendable (FetchEvent) -> Void
    }

    private struct State {
        var next: UInt64 = 1
        var running: [TransferID: Transfer] = [:]
        /// Every transfer started, in order, by URL.
        var started: [String] = []
        /// Every transfer stopped by the engine, by URL.
        var stopped: [String] = []
        var rateLimit: Int64 = 0
        /// The last limit set for each rate group while its transfers ran.
        var groupRateLimits: [String: Int64] = [:]
        /// In-memory fetches (playlists, keys, licence requests), by URL, in order.
        var bodyRequests: [String] = []
        var answer: @Sendable (FetchRequest) async throws -> FetchedBody = { request in
            throw DownloadError(.network, "the fake fetch service has no answer for \(request.url)")
        }
    }

    private let state = Mutex(State())

    /// URLs of the transfers started, in order, stopped ones included.
    var started: [String] { state.withLock { $0.started } }
    var stopped: [String] { state.withLock { $0.stopped } }
    var rateLimit: Int64 { state.withLock { $0.rateLimit } }
    var groupRateLimits: [String: Int64] { state.withLock { $0.groupRateLimits } }

    /// The transfers running now, oldest first.
    var running: [Transfer] {
        state.withLock { $0.running.values.sorted { $0.id.rawValue < $1.id.rawValue } }
    }

    var runningURLs: [String] { running.map(\.request.url) }

    func start(_ request: FetchRequest, events: @escaping @Sendable (FetchEvent) -> Void) -> TransferID {
        state.withLock { state in
            let id = TransferID(rawValue: state.next)
            state.next += 1
            state.running[id] = Transfer(id: id, request: request, events: events)
            state.started.append(request.url)
            return id
        }
    }

    func cancel(_ id: TransferID, then stopped: @escaping @Sendable () -> Void) {
        let transfer = state.withLock { state -> Transfer? in
            guard let transfer = state.running.removeValue(forKey: id) else { return nil }
            state.stopped.append(transfer.request.url)
            return transfer
        }
        transfer?.events(.stopped)
        stopped()
    }

    /// URLs of the in-memory fetches, in order.
    var bodyRequests: [String] { state.withLock { $0.bodyRequests } }

    /// How in-memory fetches are answered from now on (by default: the network is unreachable).
    func answerBodies(_ answer: @escaping @Sendable (FetchRequest) async throws -> FetchedBody) {
        state.withLock { $0.answer = answer }
    }

    func fetchBody(_ request: FetchRequest, waitingForNetwork: (@Sendable () -> Void)?) async throws -> FetchedBody {
        let answer = state.withLock { state in
            state.bodyRequests.append(request.url)
            return state.answer
        }
        return try await answer(request)
    }

    func setRateLimit(_ bytesPerSecond: Int64) {
        state.withLock { $0.rateLimit = bytesPerSecond }
    }

    func setGroupRateLimit(_ group: String, _ bytesPerSecond: Int64) {
        state.withLock { $0.groupRateLimits[group] = bytesPerSecond }
    }

    func syncFolders(_ folders: [String], in folder: String) async throws {}

    /// The fake's events come one at a time, when a test says so: there are no passes to tell.
    func observePasses(_ passes: FetchPasses) {}

    func shutdown() async {
        let all = state.withLock { state in
            defer { state.running = [:] }
            return Array(state.running.values)
        }
        for transfer in all { transfer.events(.stopped) }
    }

    // MARK: - What a test makes of a transfer

    /// The running transfer of `url`.
    func transfer(_ url: String) -> Transfer? {
        running.first { $0.request.url == url }
    }

    /// Response headers: the body starts at `resumedFrom` of `total` bytes.
    func respond(_ url: String, total: Int64?, resumedFrom: Int64 = 0) {
        transfer(url)?.events(.started(FetchResponseInfo(
            httpStatus: resumedFrom > 0 ? 206 : 200, resumedFrom: resumedFrom, totalBytes: total, etag: nil, lastModified: nil)))
    }

    func progress(_ url: String, bytes: Int64) {
        transfer(url)?.events(.progress(downloadedBytes: bytes, totalBytes: nil))
    }

    func send(_ url: String, _ event: FetchEvent) {
        let transfer = transfer(url)
        if event.isFinal { _ = state.withLock { $0.running.removeValue(forKey: transfer?.id ?? TransferID(rawValue: 0)) } }
        transfer?.events(event)
    }

    /// The file lands at its final path with `bytes` bytes, and the transfer says so.
    func complete(_ url: String, bytes: Int64) throws {
        guard let transfer = transfer(url) else { return }
        let path = transfer.request.finalPath
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: path, contents: Data(count: Int(bytes))) else {
            throw DownloadError(.storage, "the fake could not write \(path)")
        }
        send(url, .completed(bytes: bytes, sha256: ""))
    }

    func fail(_ url: String, _ message: String = "HTTP 500 from the fake") {
        send(url, .failed(DownloadError(.http, message)))
    }
}
