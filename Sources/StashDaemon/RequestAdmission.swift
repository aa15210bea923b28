import StashWire

/// Which of a connection's requests may start now, as a value the connection handler asks.
/// Every path is bounded, so a client that pipelines and never reads costs the daemon a few
/// megabytes whatever it sends:
///
/// - nothing starts while the connection's unsent answers are over the outbound buffer's
///   high-water mark (the channel is not writable): answers made on the event loop and those
///   made in tasks alike;
/// - at most `maxTasks` requests are answered in tasks or parked at once. A suspended task
///   holds its async frames (about 5 KiB for the dispatcher's), so admitting every GetStats of
///   a read burst at once took stashd from 37 to 583 MB in a second;
/// - at most `maxHeavy` of the tasks are heavy: answers that grow with the registry (a page of
///   up to 1,000 records, a verify report, a purge's paths, a plan), each up to a frame's
///   4 MiB and more while it is built. A heavy request that finds the slot taken is parked
///   (decoded, small) and the requests behind it go on, so a slow Verify holds up only the
///   heavy requests after it;
/// - at most `maxSubscriptions` subscriptions, each with its own backlog of events.
///
/// What may not start waits, undecoded, in the order it came, and the connection is not read
/// meanwhile: the client's socket buffer fills and its writes block.
struct RequestAdmission {
    static let maxTasks = 64
    static let maxHeavy = 1
    static let maxSubscriptions = 4

    enum Decision: Equatable {
        case start
        /// A heavy request while the heavy slot is taken: set aside until it frees.
        case park
        /// Not now: it waits, and so does everything after it.
        case wait
    }

    private(set) var tasks = 0
    private(set) var heavy = 0
    private(set) var parked = 0
    private(set) var subscriptions = 0

    /// Answers that grow with the registry or with what a server sent.
    static func isHeavy(_ op: Operation) -> Bool {
        switch op {
        case .listDownloads, .verify, .purge, .getSystemInfo, .getManifestInfo:
            return true
        default:
            return false
        }
    }

    /// What to do with `op` on a connection whose outbound buffer is `writable`. An op
    /// answered on the event loop waits like the others: one rule for every path.
    func decide(_ op: Operation, writable: Bool) -> Decision {
        guard writable, tasks + parked < Self.maxTasks else { return .wait }
        return Self.isHeavy(op) && heavy >= Self.maxHeavy ? .park : .start
    }

    /// Whether the oldest parked request may start now.
    func mayStartParked(writable: Bool) -> Bool {
        parked > 0 && writable && heavy < Self.maxHeavy
    }

    /// Whether more input may be read: only when the next request could start.
    func mayRead(writable: Bool) -> Bool {
        writable && tasks + parked < Self.maxTasks
    }

    /// Whether another subscription may open; the caller refuses it otherwise.
    var maySubscribe: Bool { subscriptions < Self.maxSubscriptions }

    mutating func taskStarted(heavy isHeavy: Bool) {
        tasks += 1
        if isHeavy { heavy += 1 }
    }

    mutating func taskFinished(heavy isHeavy: Bool) {
        tasks -= 1
        if isHeavy { heavy -= 1 }
    }

    mutating func parkedOne() { parked += 1 }

    mutating func unparkedOne() { parked -= 1 }

    /// The connection is closing: its parked requests are dropped.
    mutating func droppedParked() { parked = 0 }

    mutating func subscribed() { subscriptions += 1 }

    /// A Subscribe the engine refused holds no subscription.
    mutating func subscriptionRefused() { subscriptions -= 1 }
}
