import Foundation

/// Total and free bytes of the file system holding a path.
enum DiskSpace {
    static func of(path: String) -> (total: Int64, free: Int64) {
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else { return (0, 0) }
        let block = Int64(stats.f_frsize)
        return (Int64(stats.f_blocks) * block, Int64(stats.f_bavail) * block)
    }
}
