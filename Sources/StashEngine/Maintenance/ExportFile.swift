import Foundation
import StashCore

/// The one file an export writes, whole or not at all. It is made without a name in the
/// target's folder (O_TMPFILE) and given its name (linkat) only once its data is durable, so
/// a failure, a full disk or a kill leaves nothing at the target nor beside it. Where the file
/// system has no unnamed files (EOPNOTSUPP: some FUSE ones, NFS), it is written under a
/// temporary name beside the target (`.<name>.stash-export-<random>`), renamed at the end and
/// deleted on a failure. Nothing at the target is replaced unless asked, and then in one
/// rename.
final class ExportFile {
    let descriptor: Int32
    /// The target's name in `folder`.
    let name: String
    private let folder: FolderHandle
    /// Where the data is meanwhile: nil while it has no name.
    private var temporary: String?
    private var closed = false

    /// A new file for `name` in `folder` (which stays the caller's to release); `unnamed`
    /// false skips straight to a temporary name.
    init(in folder: FolderHandle, name: String, unnamed: Bool = true) throws {
        self.folder = folder
        self.name = name
        let directory = folder.descriptor
        if unnamed, let fd = try UnnamedFile.open(in: directory, path: folder.path, flags: O_WRONLY) {
            descriptor = fd
            return
        }
        let (fd, temporary) = try Self.createTemporary(for: name, in: folder)
        descriptor = fd
        self.temporary = temporary
    }

    deinit {
        discard()
    }

    /// Makes the data durable and gives the file its name, then makes the name durable. With
    /// `replacing`, what is at the name is replaced in one step; without it, a file that
    /// appeared there meanwhile is EEXIST and nothing is replaced.
    func commit(replacing: Bool) throws {
        let path = folder.path + "/" + name
        try SystemCallError.check("fdatasync", path) { fdatasync(descriptor) }
        let directory = folder.descriptor
        if temporary == nil {
            // A name for the unnamed file: straight at the target when nothing may be
            // replaced (linkat never replaces), else a temporary one renamed over it.
            let linkName = replacing ? Self.temporaryName(for: name) : name
            try UnnamedFile.link(descriptor, in: directory, as: linkName, path: folder.path + "/" + linkName)
            if replacing { temporary = linkName }
        }
        if let temporary {
            if replacing {
                try SystemCallError.check("rename", path) { renameat(directory, temporary, directory, name) }
            } else {
                try NoReplaceMove.rename(temporary, in: folder, to: name, in: folder)
            }
            self.temporary = nil
        }
        closeDescriptor()
        try folder.sync()
    }

    /// Closes the file and deletes what was written, unless it was committed.
    func discard() {
        if let temporary {
            _ = unlinkat(folder.descriptor, temporary, 0)
            self.temporary = nil
        }
        closeDescriptor()
    }

    private func closeDescriptor() {
        guard !closed else { return }
        closed = true
        SystemCallError.close(descriptor)
    }

    /// `.<name>.stash-export-<16 hex digits>`: hidden, and named for what left it.
    static func temporaryName(for name: String) -> String {
        "." + name.prefix(200) + ".stash-export-" + String(format: "%016llx", UInt64.random(in: .min ... .max))
    }

    private static func createTemporary(for name: String, in folder: FolderHandle) throws -> (Int32, String) {
        var attempts = 0
        while true {
            let temporary = temporaryName(for: name)
            do {
                return (try folder.openEntry(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: 0o644), temporary)
            } catch let error as SystemCallError where error.errnoCode == EEXIST && attempts < 8 {
                attempts += 1
            }
        }
    }
}
