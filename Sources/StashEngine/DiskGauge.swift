import StashCore

/// What the engine's decisions read of the disk: the free space where the assets go, and the
/// size of a file (the bytes a part file holds, whether a complete file is whole). Reading
/// changes nothing, so, like the clock, it is injected rather than ordered as an effect; a
/// test gives answers of its own.
package struct DiskGauge: Sendable {
    /// Free bytes for an unprivileged user; throws when the file system cannot be asked.
    let freeBytes: @Sendable () throws -> Int64
    /// The whole file system's bytes, nil when it cannot be asked: a download larger than
    /// that could never fit.
    let totalBytes: @Sendable () -> Int64?
    /// nil when the file is missing or cannot be looked at.
    let fileSize: @Sendable (_ path: String) -> Int64?
    /// The size of each of `paths` (relative to `folder`) that is a regular file, nil for one
    /// that is missing or is something else (`FileSizeProbe.sizes`).
    let regularFileSizes: @Sendable (_ paths: [String], _ folder: String) -> [Int64?]

    init(
        freeBytes: @escaping @Sendable () throws -> Int64, fileSize: @escaping @Sendable (_ path: String) -> Int64?,
        regularFileSizes: @escaping @Sendable (_ paths: [String], _ folder: String) -> [Int64?] = { FileSizeProbe.sizes(of: $0, under: $1) },
        totalBytes: @escaping @Sendable () -> Int64? = { nil }
    ) {
        self.freeBytes = freeBytes
        self.totalBytes = totalBytes
        self.fileSize = fileSize
        self.regularFileSizes = regularFileSizes
    }

    static func system(assetsDir: String) -> DiskGauge {
        DiskGauge(
            freeBytes: { try DiskSpace.of(path: assetsDir).free },
            fileSize: { path in
                guard let info = try? SystemCallError.status(path) else { return nil }
                return Int64(info.st_size)
            },
            totalBytes: { try? DiskSpace.of(path: assetsDir).total })
    }
}
