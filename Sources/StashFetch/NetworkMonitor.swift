import Foundation

/// Answers "can this host be reached at all right now?" so a transfer that lost its network
/// waits instead of burning its retry attempts.
package struct NetworkMonitor: Sendable {
    private let check: @Sendable (String) -> Bool

    /// `isOnline` receives the host of the transfer's URL.
    package init(isOnline: @escaping @Sendable (String) -> Bool) {
        self.check = isOnline
    }

    package func isOnline(host: String) -> Bool {
        check(host)
    }

    /// Online when the host is loopback (no interface is needed to reach it) or when a
    /// non-loopback interface is up and has an IPv4 or IPv6 address.
    package static let system = NetworkMonitor { host in
        isLoopback(host: host) || hasRoutableInterface()
    }

    static func isLoopback(host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        return bare == "localhost" || bare.hasSuffix(".localhost") || bare == "::1" || bare.hasPrefix("127.")
    }

    private static func hasRoutableInterface() -> Bool {
        var list: UnsafeMutablePointer<ifaddrs>?
        // A failing getifaddrs tells us nothing, so it counts as online: waiting forever on a
        // broken probe would be worse than one more failed attempt.
        guard getifaddrs(&list) == 0, let first = list else { return true }
        defer { freeifaddrs(list) }
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            let flags = Int32(bitPattern: entry.pointee.ifa_flags)
            if flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0, let address = entry.pointee.ifa_addr {
                let family = Int32(address.pointee.sa_family)
                if family == AF_INET || family == AF_INET6 { return true }
            }
            cursor = entry.pointee.ifa_next
        }
        return false
    }
}
