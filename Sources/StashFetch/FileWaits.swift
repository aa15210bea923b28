/// Transfers whose file an earlier transfer still holds (being opened, or synced and renamed
/// after a cancel came too late to stop it), by file: each is opened once that one has
/// finished, so two transfers never write or rename the same part file. Owned by the fetch
/// loop; a transfer into memory has no file and never waits here.
struct FileWaits {
    private var queues: [String: [Transfer]] = [:]

    /// Queues `transfer` behind the transfer that holds its file.
    mutating func add(_ transfer: Transfer) {
        queues[transfer.fileKey, default: []].append(transfer)
    }

    /// Whether `transfer` waits for its file.
    func contains(_ transfer: Transfer) -> Bool {
        transfer.request.memoryLimit == nil && queues[transfer.fileKey]?.contains { $0 === transfer } == true
    }

    /// Whether any transfer waits for the file `key`.
    func anyWaits(for key: String) -> Bool {
        queues[key]?.isEmpty == false
    }

    /// Takes `transfer` out of its file's queue; false when it was not waiting.
    mutating func remove(_ transfer: Transfer) -> Bool {
        guard contains(transfer) else { return false }
        let key = transfer.fileKey
        queues[key]?.removeAll { $0 === transfer }
        if queues[key]?.isEmpty == true { queues[key] = nil }
        return true
    }

    /// The first transfer waiting for the file `key`, taken off its queue.
    mutating func next(for key: String) -> Transfer? {
        guard var queue = queues[key], !queue.isEmpty else { return nil }
        let first = queue.removeFirst()
        queues[key] = queue.isEmpty ? nil : queue
        return first
    }
}
