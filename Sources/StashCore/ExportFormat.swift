/// The container `stash export FILE` writes: chosen by the file's extension unless given.
public enum ExportFormat: String, Equatable, Sendable, CaseIterable {
    case mp4, mkv

    /// The format an extension names (`.mp4`, `.m4v`, `.mkv`, any case); nil for another one.
    public init?(fileName: String) {
        let name = fileName.split(separator: "/").last.map(String.init) ?? fileName
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        switch name[name.index(after: dot)...].lowercased() {
        case "mp4", "m4v": self = .mp4
        case "mkv": self = .mkv
        default: return nil
        }
    }
}
