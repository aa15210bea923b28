import Foundation
import StashCore

/// The daemon's Unix socket, created here rather than by SwiftNIO so that its file has mode
/// 0600 from the moment it exists: a socket's mode is set before `bind` (`fchmod` on the
/// socket) and `bind` creates the file with it. With a `chmod` after `bind` the socket took
/// connections for a moment under the mode the umask left, and a test that widened the mode
/// meanwhile saw its change undone.
enum ListeningSocket {
    /// A bound socket at `path` with mode 0600, ready for SwiftNIO to listen on.
    static func bind(path: String) throws -> Int32 {
        let address = try UnixSocketAddress(path: path, call: "bind")
        let descriptor = try SystemCallError.check("socket", path) { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        do {
            try SystemCallError.check("fchmod", path) { fchmod(descriptor, 0o600) }
            try SystemCallError.check("bind", path) { address.withSocketAddress { Glibc.bind(descriptor, $0, $1) } }
        } catch {
            SystemCallError.close(descriptor)
            throw error
        }
        return descriptor
    }
}
