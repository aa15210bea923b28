import StashCore

/// What the engine's decisions read of the disk: the free space where the assets go, and the
/// size of a file (the bytes a part file holds). Reading changes nothing, so, like the clock,
/// it is injected rather than ordered as an effect; a test gives answers of its own.
struct DiskGauge: Sendable {
    /// Free bytes for an unprivileged user; throws when the file system cannot be asked.
    let freeBytes: @Sendable () throws -> Int64
    /// nil when the file is missing or cannot be looked at.
    let fileSize: @Sendable (_ path: String) -> Int64?

    static func system(assetsDir: String) -> DiskGauge {
        DiskGauge(freeBytes: { try DiskSpace.of(path: assetsDir).free }) { path in
            guard let info = try? SystemCallError.status(path) else { return nil }
            return Int64(info.st_size)
        }
    }
}
