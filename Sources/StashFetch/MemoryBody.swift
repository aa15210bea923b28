import StashCore

/// A body kept in memory up to `limit` bytes. A response that would go past the limit fails
/// the transfer at once (not retried): a hostile server must not make the daemon hold more.
final class MemoryBody: TransferBody {
    let limit: Int
    let url: String
    private(set) var bytes: [UInt8] = []

    init(limit: Int, url: String) {
        self.limit = limit
        self.url = url
    }

    var size: Int64 { Int64(bytes.count) }

    func truncate() throws {
        bytes.removeAll(keepingCapacity: true)
    }

    func append(_ chunk: UnsafeRawBufferPointer) throws {
        guard chunk.count <= limit - bytes.count else {
            throw DownloadError(.validation, "the response from \(url) is larger than \(limit) bytes, the limit for it")
        }
        bytes.append(contentsOf: chunk)
    }

    func closeFile() {}
}
