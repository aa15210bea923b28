#if canImport(Glibc)
import Glibc
#endif

/// The `sockaddr_un` of a socket path, for the daemon's listening socket and the client's
/// connection, which both create their sockets themselves, and of the service manager's
/// notification socket, which may be in the abstract namespace.
package struct UnixSocketAddress: Sendable {
    private var address = sockaddr_un()
    /// The address's length: the whole structure for a path (the kernel stops at the NUL),
    /// exactly the name for an abstract one, whose every byte counts.
    private var length = socklen_t(MemoryLayout<sockaddr_un>.size)

    /// Fails with ENAMETOOLONG, naming `call` and the path, when the path does not fit in
    /// `sun_path` (108 bytes with its NUL). With `abstract`, `path`'s first character (the '@'
    /// systemd writes for it) stands for the leading NUL of an abstract name.
    package init(path: String, abstract: Bool = false, call: String) throws {
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else {
            throw SystemCallError(call: call, path: path, errnoCode: ENAMETOOLONG)
        }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            bytes.copyBytes(from: path.utf8)
            bytes[path.utf8.count] = 0
            if abstract { bytes[0] = 0 }
        }
        if abstract {
            length = socklen_t(MemoryLayout<sa_family_t>.size + path.utf8.count)
        }
    }

    package func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        let length = self.length
        return withUnsafePointer(to: address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}
