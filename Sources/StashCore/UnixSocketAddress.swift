#if canImport(Glibc)
import Glibc
#endif

/// The `sockaddr_un` of a socket path, for the daemon's listening socket and the client's
/// connection, which both create their sockets themselves.
public struct UnixSocketAddress {
    private var address = sockaddr_un()

    /// Fails with ENAMETOOLONG, naming `call` and the path, when the path does not fit in
    /// `sun_path` (108 bytes with its NUL).
    public init(path: String, call: String) throws {
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else {
            throw SystemCallError(call: call, path: path, errnoCode: ENAMETOOLONG)
        }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            bytes.copyBytes(from: path.utf8)
            bytes[path.utf8.count] = 0
        }
    }

    public func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        withUnsafePointer(to: address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
