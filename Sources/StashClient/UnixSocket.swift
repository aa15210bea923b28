import StashCore

#if canImport(Glibc)
import Glibc
#endif

/// Connects a Unix stream socket by hand, so the client keeps its descriptor: SwiftNIO does
/// not hand out the descriptors of its channels, and the busy poll reads readiness from it.
enum UnixSocket {
    static func connect(path: String) throws -> Int32 {
        let address = try UnixSocketAddress(path: path, call: "connect")
        let descriptor = try SystemCallError.check("socket", path) { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        do {
            try SystemCallError.check("connect", path) { address.withSocketAddress { Glibc.connect(descriptor, $0, $1) } }
        } catch {
            SystemCallError.close(descriptor)
            throw error
        }
        return descriptor
    }

    /// Whether bytes (or a hang-up) wait to be read, without blocking.
    static func isReadable(_ descriptor: Int32) -> Bool {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        // A failed poll counts as readable: the read that follows meets the error and says it.
        let ready = try? SystemCallError.check("poll", "the daemon's socket") { poll(&request, 1, 0) }
        return ready.map { $0 != 0 } ?? true
    }
}
