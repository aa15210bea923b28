#if DEBUG
import StashCore
@testable import StashEngine

extension FuzzTarget {
    /// The bytes as a client's path. Resolving looks at the file system (realpath, lstat) but
    /// never changes it; the data dir need not exist.
    static func paths(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        _ = try? BundleRules.validatePath(text, label: "files[0]")
        let rule = DataDirGuard(dataDir: "/tmp/stash-fuzz-data")
        for followingLast in [false, true] {
            guard let path = try? rule.resolve(text, field: "path", followingLast: followingLast) else { continue }
            _ = path.shown
            _ = rule.overlap(path)
            _ = try? rule.refuse(path.appending("x"), field: "move_to", allowContaining: true)
        }
    }
}
#endif
