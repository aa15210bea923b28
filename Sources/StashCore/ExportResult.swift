/// What `stash export` wrote: a self-contained copy of an HLS download that a player opens
/// offline (`dir`), or one file (`file`).
public struct ExportResult: Equatable, Sendable {
    /// Absolute path of the folder holding `master.m3u8`; empty for an export to one file.
    public var dir: String
    public var files: Int
    public var bytes: Int64
    /// Segments were written decrypted and no key was written.
    public var decrypted: Bool
    /// Absolute path of the file written; empty for an export to a folder.
    public var file: String
    /// The container of `file`; nil for a folder, and for a single-file download, which is
    /// copied (or linked) as it is.
    public var format: ExportFormat?
    /// The tracks written to `file`, in the file's order; empty for a copy.
    public var tracks: [ExportTrack]
    /// `file` is a hard link to the download's own file (`link`), not a copy.
    public var linked: Bool

    public init(
        dir: String = "", files: Int, bytes: Int64, decrypted: Bool, file: String = "", format: ExportFormat? = nil,
        tracks: [ExportTrack] = [], linked: Bool = false
    ) {
        self.dir = dir
        self.files = files
        self.bytes = bytes
        self.decrypted = decrypted
        self.file = file
        self.format = format
        self.tracks = tracks
        self.linked = linked
    }
}
