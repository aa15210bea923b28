import Foundation
import Logging
import StashCore

/// Notes where a forget across file systems is copying to, so a copy cut short (stashd killed,
/// the machine down) does not stay in the user's folder: the copy is made under
/// `.stash-forget-<id>.part` in the target folder, this file in the data dir names it while
/// the copy runs, and the next start deletes what it names (`cleanUp`, from `Engine.start`).
/// The final name never holds a part: it appears only by the rename at the end. Forgets move
/// one at a time (`ForgetService`), so the journal names one copy at most.
struct ForgetJournal: Sendable {
    let dataDir: String

    static let fileName = "forget.journal"
    static let prefix = ".stash-forget-"
    static let suffix = ".part"

    var path: String { dataDir + "/" + Self.fileName }

    /// The temporary name of the copy of download `id`.
    static func temporaryName(id: String) -> String { prefix + id + suffix }

    /// Notes `folder/name` (durably) before a copy to it starts.
    func note(folder: String, name: String) throws {
        // The data dir itself may be a symlink (to another disk, say): it is stash's own.
        let data = try FolderHandle.open(dataDir, followingSymlink: true)
        defer { data.release() }
        try DurableFile.write(Array((folder + "/" + name).utf8), in: data, relativePath: Self.fileName)
    }

    /// The copy has its final name, or was taken back.
    func clear() {
        try? SystemCallError.removeFile(path)
    }

    /// Deletes the copy the journal names, if any: a folder with everything in it or a file,
    /// reached from its folder without following a symlink. A name that is not a forget's
    /// temporary name is left alone.
    func cleanUp(logger: Logger) {
        guard let data = FileManager.default.contents(atPath: path) else { return }
        defer { clear() }
        let noted = String(decoding: data, as: UTF8.self)
        guard let slash = noted.lastIndex(of: "/") else { return }
        let folder = slash == noted.startIndex ? "/" : String(noted[..<slash])
        let name = String(noted[noted.index(after: slash)...])
        guard name.hasPrefix(Self.prefix), name.hasSuffix(Self.suffix), name.count > Self.prefix.count + Self.suffix.count,
              !name.contains("/") else {
            logger.warning("the forget journal names no copy of a forget; ignored", metadata: ["noted": "\(noted.prefix(300))"])
            return
        }
        do {
            let handle = try FolderHandle.open(folder, followingSymlink: true)
            defer { handle.release() }
            guard try handle.statusIfPresent(name) != nil else { return }
            var removed: (files: Int, bytes: Int64) = (0, 0)
            handle.removeEntry(name, counting: &removed)
            logger.notice("deleted the copy of a forget cut short", metadata: ["path": "\(noted)", "files": "\(removed.files)", "bytes": "\(removed.bytes)"])
        } catch {
            logger.warning("cannot delete the copy of a forget cut short", metadata: ["path": "\(noted)", "error": "\(error)"])
        }
    }
}
