import Foundation
import StashCore

/// The listening socket a service manager handed over (systemd's socket activation, or
/// `systemd-socket-activate`), read as sd_listen_fds(3) reads it (`ListenVariables`). stashd
/// serves exactly one socket, a Unix stream socket bound to a path, and holds it to the rules
/// of a socket it binds itself: owned by this uid, and no one else may connect to it.
package enum SocketActivation {
    /// What the environment says.
    package enum Found: Equatable, Sendable {
        /// No `LISTEN_PID`: stashd binds `--socket` itself.
        case none
        /// `LISTEN_PID` names another process (the variables leaked from a parent): ignored,
        /// as sd_listen_fds ignores them.
        case otherProcess(pid: Int32)
        /// `LISTEN_PID` is this process but `LISTEN_FDS` (nil: unset) passes no descriptor:
        /// sd_listen_fds answers 0, and stashd binds `--socket` as if not activated.
        case nothingPassed(listenFDS: String?)
        /// The socket to serve: its descriptor and the path it is bound to.
        case socket(descriptor: Int32, path: String)
    }

    /// Reads and checks the passed socket, then removes `LISTEN_PID`, `LISTEN_FDS` and
    /// `LISTEN_FDNAMES` from the process's environment, so nothing stashd starts inherits
    /// them. Throws FAILED_PRECONDITION naming the variable or the socket, its value and
    /// what stashd accepts; it never guesses at a descriptor the variables do not describe.
    package static func take(environment: [String: String] = ProcessInfo.processInfo.environment, pid: Int32 = getpid()) throws -> Found {
        guard environment["LISTEN_PID"] != nil else { return .none }
        defer {
            // Fails only for a name with '=' in it, which these have not.
            for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { _ = try? SystemCallError.check("unsetenv", name) { unsetenv(name) } }
        }
        switch try ListenVariables.read(listenPID: environment["LISTEN_PID"], listenFDS: environment["LISTEN_FDS"], processID: pid) {
        case .none:
            return .none
        case .otherProcess(let other):
            return .otherProcess(pid: other)
        case .nothingPassed(let listenFDS):
            return .nothingPassed(listenFDS: listenFDS)
        case .descriptors(let count):
            guard count == 1 else {
                throw StashError(
                    .failedPrecondition,
                    "LISTEN_FDS is \(count): stashd serves exactly 1 socket; give its socket unit one ListenStream= "
                        + "(descriptors \(ListenVariables.firstDescriptor)…\(ListenVariables.lastDescriptor(count: count)) passed)")
            }
            let descriptor = ListenVariables.firstDescriptor
            return .socket(descriptor: descriptor, path: try check(descriptor))
        }
    }

    /// The path a passed descriptor listens on, after checking that it is a listening Unix
    /// stream socket bound to a file this uid owns and no one else may connect to.
    static func check(_ descriptor: Int32) throws -> String {
        let name = "passed descriptor \(descriptor)"
        do {
            let flags = try SystemCallError.check("fcntl(F_GETFD)", name) { fcntl(descriptor, F_GETFD) }
            // sd_listen_fds does the same: a program stashd might run must not inherit it.
            try SystemCallError.check("fcntl(F_SETFD)", name) { fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) }
            var info = stat()
            try SystemCallError.check("fstat", name) { fstat(descriptor, &info) }
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                throw StashError(.failedPrecondition, "LISTEN_FDS passed descriptor \(descriptor), which is not a socket")
            }
            let domain = try option(SO_DOMAIN, of: descriptor, name)
            let type = try option(SO_TYPE, of: descriptor, name)
            let listening = try option(SO_ACCEPTCONN, of: descriptor, name)
            guard domain == AF_UNIX, type == Int32(SOCK_STREAM.rawValue), listening == 1 else {
                throw StashError(
                    .failedPrecondition,
                    "passed descriptor \(descriptor) is a socket of domain \(domain), type \(type), listening \(listening == 1): "
                        + "stashd serves only a listening Unix stream socket (ListenStream= with a path)")
            }
            let path = try boundPath(of: descriptor, name)
            try checkFile(path)
            return path
        } catch let error as SystemCallError {
            throw StashError(.failedPrecondition, "cannot use the socket passed by the service manager: \(error)")
        }
    }

    private static func option(_ option: Int32, of descriptor: Int32, _ name: String) throws -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        try SystemCallError.check("getsockopt", name) { getsockopt(descriptor, SOL_SOCKET, option, &value, &length) }
        return value
    }

    private static func boundPath(of descriptor: Int32, _ name: String) throws -> String {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        try SystemCallError.check("getsockname", name) {
            withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
        }
        let pathOffset = MemoryLayout<sa_family_t>.size
        let pathLength = max(0, min(Int(length) - pathOffset, MemoryLayout.size(ofValue: address.sun_path)))
        let bytes = withUnsafeBytes(of: address.sun_path) { Array($0.prefix(pathLength)) }
        // An abstract socket (first byte NUL) or an unnamed one has no file whose mode keeps
        // other users out.
        guard let first = bytes.first, first != 0 else {
            throw StashError(
                .failedPrecondition,
                "passed descriptor \(descriptor) is an abstract or unnamed Unix socket, which has no file mode to keep other users out: "
                    + "stashd serves only a socket bound to a path")
        }
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// The file must keep other users out as the socket stashd binds does; the peer check at
    /// accept is the second fence, not the only one. connect(2) on a Unix socket needs write
    /// permission on its file, so only the group's and others' write bits matter: 0644
    /// (systemd-socket-activate's socket under the usual umask) admits only the owner.
    private static func checkFile(_ path: String) throws {
        guard let info = try SystemCallError.status(path, followingSymlink: false) else {
            throw StashError(.failedPrecondition, "the passed socket's file \(path) does not exist")
        }
        guard info.st_uid == geteuid() else {
            throw StashError(
                .failedPrecondition, "the passed socket's file \(path) belongs to uid \(info.st_uid), not to this daemon's uid \(geteuid())")
        }
        let mode = info.st_mode & 0o7777
        guard mode & 0o022 == 0 else {
            throw StashError(
                .failedPrecondition,
                "the passed socket's file \(path) is mode \(String(mode, radix: 8)): its group or others may write to it, and so connect; "
                    + "stashd serves a socket only its owner may write to (SocketMode=0600)")
        }
    }
}
