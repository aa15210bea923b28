import Foundation
import Logging
import StashCore
import StashKeys
import Synchronization

/// Licence releases the servers have not acknowledged, and the task sending them: the first
/// service of the licence manager to have its own state rather than the engine's. A release is
/// kept (committed through the engine's `CommitQueue`, so it takes its place among the
/// engine's other writes) until its server answers, across restarts; one that fails is tried
/// again after 1 s, doubling to 60 s, on the engine's clock. The engine reaches it through
/// `keep`, `send`, `isSending` and `close` only.
final class LicenseOutbox: Sendable {
    static let firstRetry: TimeInterval = 1
    static let maxRetry: TimeInterval = 60

    private struct State {
        var releases: [LicenseRelease] = []
        var sending: Task<Void, Never>?
        var closed = false
    }

    private let state = Mutex(State())
    private let commits: CommitQueue
    private let clock: WallClock
    private let logger: Logger

    init(commits: CommitQueue, clock: WallClock, logger: Logger) {
        self.commits = commits
        self.clock = clock
        self.logger = logger
    }

    /// The releases the registry held at start.
    func load(_ releases: [LicenseRelease]) {
        state.withLock { $0.releases = releases }
    }

    /// Keeps `release` until a server answers it. Its commit is queued now, in order before
    /// whatever the caller commits next (a cancel's removal must not be durable without it).
    func keep(_ release: LicenseRelease) {
        commits.submit(.release(release), event: nil)
        state.withLock { $0.releases.append(release) }
    }

    /// Whether a task is sending releases (stashd should not exit while one is).
    var isSending: Bool { state.withLock { $0.sending != nil } }

    /// The releases kept, for a test.
    var kept: [LicenseRelease] { state.withLock { $0.releases } }

    /// Sends every release kept, oldest first, through `client`; one that fails is tried again
    /// later. Nothing when a send is under way (it takes the new ones too) or after `close`.
    func send(through client: LicenseClient) {
        state.withLock { state in
            guard state.sending == nil, !state.closed, !state.releases.isEmpty else { return }
            state.sending = Task.detached { [self] in await sendAll(through: client) }
        }
    }

    /// No more sends: stashd stops. What is kept stays in the registry for the next start.
    func close() {
        let sending = state.withLock { state in
            state.closed = true
            return state.sending
        }
        sending?.cancel()
    }

    private func sendAll(through client: LicenseClient) async {
        var delay = Self.firstRetry
        while let release = next() {
            do {
                try await client.release(kids: release.kids.compactMap(Base64URL.decode), drm: release.drm)
                done(release, acknowledged: true)
                delay = Self.firstRetry
            } catch LicenseFailure.refused(let message, _) {
                // An answer all the same: the server knows of the release and will not take it.
                done(release, acknowledged: false, note: message)
            } catch {
                failed(release, error: error)
                await clock.sleep(delay)
                delay = min(delay * 2, Self.maxRetry)
            }
        }
    }

    /// The next release to send, or nil (and the send ended) when none is left.
    private func next() -> LicenseRelease? {
        state.withLock { state in
            guard !state.closed, let first = state.releases.first else {
                state.sending = nil
                return nil
            }
            // Rotate, so one release the server chokes on does not hold back the others.
            state.releases.removeFirst()
            state.releases.append(first)
            return first
        }
    }

    private func done(_ release: LicenseRelease, acknowledged: Bool, note: String = "") {
        state.withLock { $0.releases.removeAll { $0.id == release.id } }
        commits.submit(.releaseDone(release.id), event: nil)
        if acknowledged {
            logger.info("licence release acknowledged", metadata: ["id": "\(release.downloadID)", "attempts": "\(release.attempts + 1)"])
        } else {
            logger.warning("licence release refused by the server; dropped", metadata: ["id": "\(release.downloadID)", "reason": "\(note)"])
        }
    }

    private func failed(_ release: LicenseRelease, error: Error) {
        let counted = state.withLock { state -> LicenseRelease? in
            guard let index = state.releases.firstIndex(where: { $0.id == release.id }) else { return nil }
            state.releases[index].attempts += 1
            return state.releases[index]
        }
        guard let counted else { return }
        commits.submit(.release(counted), event: nil)
        let message = (error as? LicenseFailure)?.message ?? "\(error)"
        logger.info("licence release not acknowledged yet; kept in the outbox", metadata: [
            "id": "\(release.downloadID)", "attempts": "\(counted.attempts)", "reason": "\(message)",
        ])
    }
}
