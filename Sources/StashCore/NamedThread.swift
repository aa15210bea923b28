import CLinux
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Starts a thread of its own under a name that `top -H`, `perf` and /proc show. Foundation's
/// `Thread.name`, set before `start()`, never reached the kernel here: every such thread of
/// stashd showed as "stashd". The kernel keeps at most 15 bytes of a name.
package enum NamedThread {
    package static let maxNameBytes = 15

    package static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let kernelName = String(decoding: name.utf8.prefix(maxNameBytes), as: UTF8.self)
        let thread = Thread {
            // Best effort: a thread without its name works the same.
            _ = pthread_setname_np(pthread_self(), kernelName)
            body()
        }
        thread.start()
    }
}
