/// Where a transfer's body goes: a part file on disk (`PartFile`) or memory (`MemoryBody`,
/// for playlists and keys, which are parsed or sealed rather than kept as they came).
protocol TransferBody: AnyObject {
    /// Bytes received and kept so far.
    var size: Int64 { get }
    /// Drops every byte kept, so the next attempt starts from zero.
    func truncate() throws
    func append(_ bytes: UnsafeRawBufferPointer) throws
    func closeFile()
}
