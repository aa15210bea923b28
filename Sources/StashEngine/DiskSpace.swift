import Foundation
import StashCore

/// Total and free bytes of the file system holding a path.
enum DiskSpace {
    /// Throws when the file system cannot be asked (the folder is gone, say): a failure read
    /// as 0 bytes free would hold every download back for space the disk may well have.
    static func of(path: String) throws -> (total: Int64, free: Int64) {
        var stats = statvfs()
        _ = try SystemCallError.check("statvfs", path) { statvfs(path, &stats) }
        let block = Int64(clamping: stats.f_frsize)
        return (Int64(clamping: stats.f_blocks).multipliedSaturating(by: block),
                Int64(clamping: stats.f_bavail).multipliedSaturating(by: block))
    }
}
