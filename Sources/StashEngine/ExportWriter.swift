import Foundation
import StashCore

/// Writes the files of an export below its folder's descriptor: folders made and opened one
/// component at a time without following a symlink, files created new (O_EXCL, O_NOFOLLOW),
/// so nothing lands outside the folder and nothing there is overwritten. The folders it
/// opened stay open for the next files until `release`.
final class ExportWriter {
    private let root: FolderHandle
    private var folders: [String: FolderHandle] = [:]

    /// `root` stays the caller's to release.
    init(root: FolderHandle) {
        self.root = root
    }

    func write(_ data: [UInt8], to relative: String, mode: mode_t) throws {
        let path = root.path + "/" + relative
        do {
            guard let slash = relative.lastIndex(of: "/") else {
                try Self.write(data, named: relative, in: root, mode: mode)
                return
            }
            let parent = String(relative[..<slash])
            let folder: FolderHandle
            if let open = folders[parent] {
                folder = open
            } else {
                folder = try root.descend(parent.split(separator: "/", omittingEmptySubsequences: false), creating: true)
                folders[parent] = folder
            }
            try Self.write(data, named: String(relative[relative.index(after: slash)...]), in: folder, mode: mode)
        } catch {
            throw StashError(.internal, "cannot write \(path): \(error)")
        }
    }

    func release() {
        for folder in folders.values { folder.release() }
        folders = [:]
    }

    private static func write(_ data: [UInt8], named name: String, in folder: FolderHandle, mode: mode_t) throws {
        let fd = try folder.openEntry(name, O_WRONLY | O_CREAT | O_EXCL, mode: mode)
        defer { SystemCallError.close(fd) }
        try DurableFile.writeAll(data, to: fd, path: folder.path + "/" + name)
    }
}
