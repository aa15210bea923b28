import Foundation
import Logging
import StashCore

/// The data dir holds the registry (with `--header` values and licence headers, which can be
/// tokens) and the sealed keys: only its owner may enter it, and the registry's files are
/// 0600, whatever modes they had before.
enum DataDirectory {
    /// SQLite's files: it creates the -wal and -shm files with the database file's mode.
    static let registryFiles = ["stash.sqlite", "stash.sqlite-wal", "stash.sqlite-shm"]

    static func prepare(_ dataDir: String, logger: Logger) throws {
        if let info = try SystemCallError.status(dataDir) {
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw StashError(.failedPrecondition, "data dir \(dataDir) exists and is not a directory")
            }
            guard info.st_uid == geteuid() else {
                throw StashError(
                    .failedPrecondition,
                    "data dir \(dataDir) belongs to uid \(info.st_uid), not to this daemon's uid \(geteuid()); choose another --data-dir")
            }
        } else {
            do {
                try FileManager.default.createDirectory(atPath: dataDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw StashError(.failedPrecondition, "cannot create data dir \(dataDir): \(error.localizedDescription)")
            }
        }
        try tighten(dataDir, to: 0o700, logger: logger)
        let registry = dataDir + "/" + registryFiles[0]
        // Made here, 0600, so SQLite's journals are born 0600 too.
        do {
            SystemCallError.close(try SystemCallError.check("open", registry) { open(registry, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600) })
        } catch let error as SystemCallError where error.errnoCode == EEXIST {
            // There already: `tighten` below makes it 0600.
        }
        for name in registryFiles {
            try tighten(dataDir + "/" + name, to: 0o600, logger: logger)
        }
    }

    /// Sets `mode` on a path stash owns, when it differs; a missing file is left missing.
    private static func tighten(_ path: String, to mode: mode_t, logger: Logger) throws {
        guard let info = try SystemCallError.status(path, followingSymlink: false) else { return }
        let current = info.st_mode & 0o7777
        guard current != mode else { return }
        do {
            try SystemCallError.check("chmod", path) { chmod(path, mode) }
        } catch {
            throw StashError(.failedPrecondition, "cannot make \(path) mode \(String(mode, radix: 8)): \(error)")
        }
        logger.notice("tightened mode", metadata: ["path": "\(path)", "old-mode": "\(String(current, radix: 8))", "new-mode": "\(String(mode, radix: 8))"])
    }
}
