/// Which bus: the system's (NetworkManager, UPower, logind) or the user's session
/// (notifications). Its address comes from the environment as libdbus reads it, so tests point
/// a daemon at private buses.
package enum BusKind: String, Sendable {
    case system
    case session

    /// The bus's address, or nil when the environment names none (a session bus without
    /// `DBUS_SESSION_BUS_ADDRESS` or `XDG_RUNTIME_DIR`).
    package func address(environment: [String: String]) -> String? {
        switch self {
        case .system:
            return environment["DBUS_SYSTEM_BUS_ADDRESS"] ?? "unix:path=/run/dbus/system_bus_socket"
        case .session:
            if let address = environment["DBUS_SESSION_BUS_ADDRESS"] { return address }
            return environment["XDG_RUNTIME_DIR"].map { "unix:path=\($0)/bus" }
        }
    }
}
