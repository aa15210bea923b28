import StashCore

/// Which files of the active downloads transfer, under three caps: transfers per download,
/// transfers in all, and transfers per host. A value with no I/O: each input is a mutating
/// function, and `fill()` says which transfers to start and which downloads have nothing left
/// to transfer; the engine carries that out. The invariants (never above a cap, highest
/// priority and oldest download first, every waiting file started once slots free) are tested with random
/// inputs in `TransferSlotsTests`.
struct TransferSlots {
    struct Caps: Equatable {
        var filesPerDownload: Int
        var maxConnections: Int
        var maxConnectionsPerHost: Int
    }

    enum Action: Equatable {
        /// Start the transfer of this file; its slot is taken.
        case start(id: String, index: Int)
        /// Nothing of this download waits or transfers (the engine decides whether it is done).
        case idle(id: String)
    }

    private struct Active {
        var seq: Int
        var priority: DownloadPriority
        var fileSlots: Int
        /// Files waiting for a slot, in order; those before `head` have started.
        var waiting: [(index: Int, host: String)]
        var head = 0
        /// The host of each transferring file, by file index.
        var running: [Int: String] = [:]
    }

    var caps: Caps
    private var downloads: [String: Active] = [:]
    /// Active download ids, highest priority first, then oldest (lowest seq) first.
    private var order: [String] = []
    private(set) var connections = 0
    private var hostConnections: [String: Int] = [:]

    init(caps: Caps) {
        self.caps = caps
    }

    /// A download got its slot: `files` (index and host) wait for transfers, at most
    /// `fileSlots` at once (nil: the `filesPerDownload` cap). A download already active starts
    /// over with these files; its running transfers keep their slots until they end.
    mutating func activate(
        _ id: String, seq: Int, priority: DownloadPriority = .normal, files: [(index: Int, host: String)], fileSlots: Int? = nil
    ) {
        if let existing = downloads[id] {
            downloads[id] = Active(seq: existing.seq, priority: existing.priority, fileSlots: fileSlots ?? 0, waiting: files, running: existing.running)
            return
        }
        downloads[id] = Active(seq: seq, priority: priority, fileSlots: fileSlots ?? 0, waiting: files)
        place(id)
    }

    /// An active download's priority changed: its files come before or after others' by it.
    mutating func setPriority(_ id: String, _ priority: DownloadPriority) {
        guard downloads[id] != nil, downloads[id]?.priority != priority else { return }
        downloads[id]?.priority = priority
        order.removeAll { $0 == id }
        place(id)
    }

    private mutating func place(_ id: String) {
        guard let new = downloads[id] else { return }
        let position =
            order.firstIndex { other in
                guard let old = downloads[other] else { return false }
                return old.priority < new.priority || (old.priority == new.priority && old.seq > new.seq)
            } ?? order.endIndex
        order.insert(id, at: position)
    }

    /// The download stops (paused, failed, removed, requeued): nothing of it waits any more,
    /// and the slots of its running transfers are free. Returns those files' indexes, whose
    /// transfers the caller stops.
    @discardableResult
    mutating func deactivate(_ id: String) -> [Int] {
        guard let download = downloads.removeValue(forKey: id) else { return [] }
        order.removeAll { $0 == id }
        for host in download.running.values { release(host) }
        return Array(download.running.keys)
    }

    /// A transfer ended (completed, failed or stopped): its slot is free.
    mutating func ended(_ id: String, index: Int) {
        guard let host = downloads[id]?.running.removeValue(forKey: index) else { return }
        release(host)
    }

    /// A file of an active download whose transfer ended to be retried waits for a slot
    /// again, after the files already waiting.
    mutating func waitAgain(_ id: String, index: Int, host: String) {
        downloads[id]?.waiting.append((index, host))
    }

    /// Whether a file of the download waits for a transfer slot.
    func hasWaiting(_ id: String) -> Bool {
        downloads[id].map { $0.head < $0.waiting.count } ?? false
    }

    func isActive(_ id: String) -> Bool { downloads[id] != nil }

    func runningCount(_ id: String) -> Int { downloads[id]?.running.count ?? 0 }

    func connections(to host: String) -> Int { hostConnections[host] ?? 0 }

    /// Starts transfers while the caps allow, highest priority and then oldest download
    /// first; in a download, the first waiting file whose host has room (files behind a full
    /// host wait, others pass them).
    mutating func fill() -> [Action] {
        var actions: [Action] = []
        for id in order {
            guard let index = downloads.index(forKey: id) else { continue }
            // Looked at in place first: most active downloads have every file started, and
            // copying each out and back at every scheduling cost more than the rest of it.
            let started = downloads.values[index].head >= downloads.values[index].waiting.count
            if !started, connections < caps.maxConnections { start(at: index, id: id, into: &actions) }
            if downloads.values[index].running.isEmpty, downloads.values[index].head >= downloads.values[index].waiting.count {
                actions.append(.idle(id: id))
            }
        }
        return actions
    }

    /// Starts the waiting files of the download at `index` that the caps allow.
    private mutating func start(at index: [String: Active].Index, id: String, into actions: inout [Action]) {
        var download = downloads.values[index]
        let fileSlots = download.fileSlots > 0 ? download.fileSlots : caps.filesPerDownload
        while download.running.count < fileSlots, connections < caps.maxConnections, download.head < download.waiting.count {
            guard let slot = (download.head..<download.waiting.count).first(where: {
                connections(to: download.waiting[$0].host) < caps.maxConnectionsPerHost
            }) else { break }
            download.waiting.swapAt(slot, download.head)
            let file = download.waiting[download.head]
            download.head += 1
            download.running[file.index] = file.host
            connections += 1
            hostConnections[file.host, default: 0] += 1
            actions.append(.start(id: id, index: file.index))
        }
        downloads.values[index] = download
    }

    private mutating func release(_ host: String) {
        connections -= 1
        let left = (hostConnections[host] ?? 1) - 1
        hostConnections[host] = left > 0 ? left : nil
    }
}

extension TransferSlots.Caps {
    init(_ config: DaemonConfig) {
        self.init(
            filesPerDownload: config.filesPerDownload, maxConnections: config.maxConnections,
            maxConnectionsPerHost: config.maxConnectionsPerHost)
    }
}
