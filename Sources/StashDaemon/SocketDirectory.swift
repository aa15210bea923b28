import Foundation
import Logging
import StashCore

/// The directory that holds the socket. Only its owner may enter it: the socket's own mode is
/// the second fence, not the only one.
enum SocketDirectory {
    /// Creates the directory 0700 (and missing parents), or tightens an existing one we own.
    static func prepare(forSocket socketPath: String, logger: Logger) throws {
        let directory = (socketPath as NSString).deletingLastPathComponent
        guard !directory.isEmpty else { return }
        var info = stat()
        if stat(directory, &info) != 0 {
            let parent = (directory as NSString).deletingLastPathComponent
            if !parent.isEmpty && !FileManager.default.fileExists(atPath: parent) {
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            }
            try SystemCallError.check("mkdir", directory) { mkdir(directory, 0o700) }
            // mkdir applies the umask; the mode must be exactly 0700 whatever the umask was.
            try SystemCallError.check("chmod", directory) { chmod(directory, 0o700) }
            return
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw StashError(.failedPrecondition, "socket directory \(directory) exists and is not a directory")
        }
        guard info.st_uid == geteuid() else {
            throw StashError(
                .failedPrecondition,
                "socket directory \(directory) belongs to uid \(info.st_uid), not to this daemon's uid \(geteuid()); choose another --socket path")
        }
        let mode = info.st_mode & 0o7777
        // A sticky directory is shared by design (/tmp); tightening it would lock others out.
        if mode & 0o077 != 0 && mode & S_ISVTX == 0 {
            try SystemCallError.check("chmod", directory) { chmod(directory, 0o700) }
            logger.notice(
                "tightened socket directory mode",
                metadata: ["path": "\(directory)", "old-mode": "\(String(mode, radix: 8))", "new-mode": "700"])
        }
    }
}
