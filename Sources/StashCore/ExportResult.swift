/// What `stash export` wrote: a self-contained copy of an HLS download that a player opens offline.
public struct ExportResult: Equatable, Sendable {
    /// Absolute path of the folder holding `master.m3u8`.
    public var dir: String
    public var files: Int
    public var bytes: Int64
    /// Segments were written decrypted and no key was written.
    public var decrypted: Bool

    public init(dir: String, files: Int, bytes: Int64, decrypted: Bool) {
        self.dir = dir
        self.files = files
        self.bytes = bytes
        self.decrypted = decrypted
    }
}
