import StashCore

#if canImport(Glibc)
import Glibc
#endif

/// Connects a Unix stream socket by hand, so the client keeps its descriptor: SwiftNIO does
/// not hand out the descriptors of its channels, and the busy poll reads readiness from it.
enum UnixSocket {
    static func connect(path: String) throws -> Int32 {
        var address = sockaddr_un()
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else {
            throw SystemCallError(call: "connect", path: path, errnoCode: ENAMETOOLONG)
        }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            bytes.copyBytes(from: path.utf8)
            bytes[path.utf8.count] = 0
        }
        let descriptor = try SystemCallError.check("socket", path) { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        do {
            try SystemCallError.check("connect", path) {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
                }
            }
        } catch {
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// Whether bytes (or a hang-up) wait to be read, without blocking.
    static func isReadable(_ descriptor: Int32) -> Bool {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&request, 1, 0) != 0
    }
}
