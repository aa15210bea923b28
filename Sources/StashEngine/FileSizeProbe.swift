import Dispatch
import Foundation
import StashCore

/// Sizes of many files at once. At start the daemon stats every file of every download; on a
/// cold cache each stat waits for the disk, so they are spread over threads to keep several
/// reads in flight rather than one.
enum FileSizeProbe {
    /// Threads at once: enough to keep a virtual disk's queue busy, few enough to stay cheap.
    static let width = 16

    /// The size of each path, relative to `folder` (following no symlink at the last
    /// component), nil when it is missing or not a regular file, or when `folder` cannot be
    /// opened. Relative paths make each lookup start at the folder rather than at `/`.
    static func sizes(of paths: [String], under folder: String) -> [Int64?] {
        var sizes = [Int64](repeating: -1, count: paths.count)
        guard let base = try? SystemCallError.check("open", folder, { open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }) else {
            return sizes.map { _ in nil }
        }
        defer { SystemCallError.close(base) }
        let chunk = max(256, (paths.count + width - 1) / width)
        let chunks = (paths.count + chunk - 1) / chunk
        sizes.withUnsafeMutableBufferPointer { out in
            let out = UncheckedSendableBuffer(out)
            DispatchQueue.concurrentPerform(iterations: chunks) { part in
                var info = stat()
                for index in (part * chunk)..<min(paths.count, (part + 1) * chunk) {
                    // Any failure (missing, not allowed) is nil, as documented above.
                    let found = (try? SystemCallError.check("fstatat", paths[index]) { fstatat(base, paths[index], &info, AT_SYMLINK_NOFOLLOW) }) != nil
                    if found, (info.st_mode & S_IFMT) == S_IFREG {
                        out.buffer[index] = Int64(info.st_size)
                    }
                }
            }
        }
        return sizes.map { $0 < 0 ? nil : $0 }
    }
}

/// Each worker writes only its own slice of the buffer, so sharing it is safe.
private struct UncheckedSendableBuffer: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<Int64>
    init(_ buffer: UnsafeMutableBufferPointer<Int64>) { self.buffer = buffer }
}
