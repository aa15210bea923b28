import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The directories `DaemonProcess.makeTemporaryDirectory` made in this process, removed when
/// it exits. Removed at exit rather than when their test or `DaemonProcess` ends: a test often
/// starts a second daemon on the first one's data dir, and Swift may release the first
/// `DaemonProcess` right after its last use. Without this, each `make test` left about 1,100
/// data dirs and sockets' folders in /tmp (23 GB after a few days of runs).
enum TemporaryDirectories {
    private static let made = Mutex<[String]>([])
    private static let removalAtExit: Void = {
        atexit { TemporaryDirectories.removeAll() }
    }()

    static func add(_ path: String) {
        _ = removalAtExit
        made.withLock { $0.append(path) }
    }

    static func keep(_ path: String) {
        made.withLock { $0.removeAll { $0 == path } }
    }

    private static func removeAll() {
        let paths = made.withLock { made in
            defer { made.removeAll() }
            return made
        }
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
    }
}
