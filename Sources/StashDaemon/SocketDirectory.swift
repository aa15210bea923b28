import Foundation
import Logging
import StashCore

/// The directory that holds the socket. One stash makes is 0700: the socket's own mode is the
/// second fence, not the only one. One that exists is the user's (`--socket ~/x.sock`) and its
/// mode is never changed: it is used if no one else can replace the socket in it.
enum SocketDirectory {
    /// Creates the directory 0700 (and missing parents), or checks an existing one.
    static func prepare(forSocket socketPath: String, logger: Logger) throws {
        let directory = (socketPath as NSString).deletingLastPathComponent
        guard !directory.isEmpty else { return }
        guard let info = try SystemCallError.status(directory) else {
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
        // Others who may write in it could remove the socket and put their own in its place; a
        // sticky directory (/tmp) forbids that.
        if mode & 0o022 != 0 && mode & S_ISVTX == 0 {
            throw StashError(
                .failedPrecondition,
                "socket directory \(directory) is mode \(String(mode, radix: 8)): others may write in it and replace the socket; "
                    + "stash does not change a directory it did not create: make it 0700 (chmod 700 \(directory)) or choose another --socket path")
        }
        if mode & 0o077 != 0 {
            logger.notice("socket directory is not private; the socket itself is 0600", metadata: ["path": "\(directory)", "mode": "\(String(mode, radix: 8))"])
        }
    }
}
