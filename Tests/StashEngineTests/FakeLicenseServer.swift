import Foundation
import StashCore
import StashFetch
import StashKeys
import Synchronization

@testable import StashEngine

/// A licence server answering through the fake fetch service's in-memory fetches: it grants,
/// refuses (HTTP 403) or cannot be reached, as the test sets, and notes each request's action
/// and when it came on the harness's clock.
final class FakeLicenseServer: Sendable {
    static let url = "http://licence.test/acquire"
    /// The content key of every key id it grants.
    static let key: [UInt8] = Array(repeating: 0x5a, count: 16)

    enum Mode: Sendable {
        case grant(expiresIn: Int?, playbackDuration: Int?)
        case refuse
        case unreachable
    }

    struct Request: Equatable, Sendable {
        var action: String
        /// Seconds since the harness's clock started.
        var at: TimeInterval
    }

    private struct State {
        var mode = Mode.unreachable
        var requests: [Request] = []
        /// Requests of these actions wait, once they are counted, until their gate opens.
        var gates: [String: Gate] = [:]
    }

    /// Holds the requests of one action: `arrived` returns once one has come, `open` lets
    /// every held one (and every later one) be answered.
    final class Gate: Sendable {
        private struct State {
            var arrived = false
            var open = false
            var waitingForArrival: [CheckedContinuation<Void, Never>] = []
            var held: [CheckedContinuation<Void, Never>] = []
        }

        private let state = Mutex(State())

        func arrived() async {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Bool in
                    if state.arrived { return true }
                    state.waitingForArrival.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }

        func open() {
            let held = state.withLock { state in
                state.open = true
                defer { state.held = [] }
                return state.held
            }
            for request in held { request.resume() }
        }

        fileprivate func pass() async {
            await withCheckedContinuation { continuation in
                let (now, arrivals) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    state.arrived = true
                    defer { state.waitingForArrival = [] }
                    if !state.open { state.held.append(continuation) }
                    return (state.open, state.waitingForArrival)
                }
                for arrival in arrivals { arrival.resume() }
                if now { continuation.resume() }
            }
        }
    }

    private let state = Mutex(State())

    /// Answers the harness's licence requests from now on; anything else `otherwise` answers
    /// (by default: it cannot be reached).
    init(_ harness: EngineHarness, otherwise: @escaping @Sendable (FetchRequest) throws -> FetchedBody = { request in
        throw DownloadError(.network, "\(request.url) cannot be reached")
    }) {
        let clock = harness.clock
        let start = clock.now
        harness.fetch.answerBodies { [self] request in
            guard request.url == Self.url else { return try otherwise(request) }
            return try await answer(request, at: clock.now.timeIntervalSince(start))
        }
    }

    /// From now on, requests of `action` wait at the gate returned until it opens.
    func hold(_ action: String) -> Gate {
        let gate = Gate()
        state.withLock { $0.gates[action] = gate }
        return gate
    }

    func set(_ mode: Mode) {
        state.withLock { $0.mode = mode }
    }

    var requests: [Request] { state.withLock { $0.requests } }

    func requests(_ action: String) -> [TimeInterval] {
        requests.filter { $0.action == action }.map(\.at)
    }

    private func answer(_ request: FetchRequest, at moment: TimeInterval) async throws -> FetchedBody {
        let object = try JSONSerialization.jsonObject(with: Data(request.postBody ?? [])) as? [String: Any] ?? [:]
        let action = object["action"] as? String ?? "?"
        let kids = object["kids"] as? [String] ?? []
        let gate = state.withLock { state in
            state.requests.append(Request(action: action, at: moment))
            return state.gates[action]
        }
        await gate?.pass()
        switch state.withLock({ $0.mode }) {
        case .unreachable:
            throw DownloadError(.network, "licence.test cannot be reached")
        case .refuse:
            throw DownloadError(.http, "HTTP 403 from licence.test", httpStatus: 403)
        case .grant(let expiresIn, let playbackDuration):
            var answer: [String: Any] = ["keys": kids.map { ["kty": "oct", "kid": $0, "k": Base64URL.encode(Self.key)] }]
            if let expiresIn { answer["expires_in"] = expiresIn }
            if let playbackDuration { answer["playback_duration"] = playbackDuration }
            let bytes = Array(try JSONSerialization.data(withJSONObject: action == "release" ? [:] : answer))
            return FetchedBody(bytes: bytes, effectiveURL: request.url, contentType: "application/json")
        }
    }
}
