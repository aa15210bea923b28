/// How far an export to one file (`stash export ID FILE`) has got: the bytes of the download's
/// files it has read of all it will read. Sent on the event stream about the download, at each
/// whole percent and at the end.
public struct ExportProgress: Equatable, Sendable {
    public var id: String
    /// The target as the request named it.
    public var file: String
    public var bytesDone: Int64
    public var bytesTotal: Int64
    /// Integer percent of `bytesTotal`, 0–100.
    public var progressPercent: Int

    public init(id: String, file: String, bytesDone: Int64, bytesTotal: Int64, progressPercent: Int) {
        self.id = id
        self.file = file
        self.bytesDone = bytesDone
        self.bytesTotal = bytesTotal
        self.progressPercent = progressPercent
    }
}
