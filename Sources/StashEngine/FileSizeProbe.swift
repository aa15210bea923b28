import Dispatch
import Foundation
import StashCore
import Synchronization

/// Sizes of many files at once. At start the daemon stats every file of every download; on a
/// cold cache (after a boot) each stat waits for the disk to read a folder block or an inode,
/// so they are spread over threads to keep several reads in flight rather than one.
enum FileSizeProbe {
    /// Threads at once: enough to keep a virtual disk's queue busy, few enough to stay cheap.
    /// Threads of their own, not `DispatchQueue.concurrentPerform`, which runs as many
    /// iterations at once as there are cores (2 here) however long each waits: over 100,000
    /// completed downloads with the inodes dropped, as after a boot, the start's stats took
    /// 3.8 s that way (bench/HISTORY.md, 2026-11-27 10:10 session).
    static let width = 16
    /// Paths a thread takes at a time: the threads finish together however the slow reads fall.
    static let batch = 64

    /// The size of each path, relative to `folder` (following no symlink at the last
    /// component), nil when it is missing or not a regular file, or when `folder` cannot be
    /// opened. Relative paths make each lookup start at the folder rather than at `/`.
    static func sizes(of paths: [String], under folder: String) -> [Int64?] {
        guard let base = try? SystemCallError.check("open", folder, { open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }) else {
            return paths.map { _ in nil }
        }
        defer { SystemCallError.close(base) }
        var sizes = [Int64](repeating: -1, count: paths.count)
        let threads = min(width, (paths.count + batch - 1) / batch)
        sizes.withUnsafeMutableBufferPointer { out in
            let work = Work(paths: paths, base: base, out: out)
            // A download's few files (a disk check) are looked at here, without a thread.
            guard threads > 1 else { return work.run() }
            let done = DispatchGroup()
            for _ in 0..<threads {
                done.enter()
                NamedThread.start("stash-stat") {
                    work.run()
                    done.leave()
                }
            }
            done.wait()
        }
        return sizes.map { $0 < 0 ? nil : $0 }
    }

    /// The paths and where their sizes go, shared by the threads: each takes the next `batch`
    /// by the counter and writes only the sizes of those, so no two write the same element.
    private final class Work: @unchecked Sendable {
        let paths: [String]
        let base: Int32
        let out: UnsafeMutableBufferPointer<Int64>
        let next = Atomic<Int>(0)

        init(paths: [String], base: Int32, out: UnsafeMutableBufferPointer<Int64>) {
            self.paths = paths
            self.base = base
            self.out = out
        }

        func run() {
            var info = stat()
            while true {
                let first = next.wrappingAdd(FileSizeProbe.batch, ordering: .relaxed).oldValue
                guard first < paths.count else { return }
                for index in first..<min(paths.count, first + FileSizeProbe.batch) {
                    // Any failure (missing, not allowed) is nil, as documented above.
                    let found = (try? SystemCallError.check("fstatat", paths[index]) { fstatat(base, paths[index], &info, AT_SYMLINK_NOFOLLOW) }) != nil
                    if found, (info.st_mode & S_IFMT) == S_IFREG {
                        out[index] = Int64(info.st_size)
                    }
                }
            }
        }
    }
}
