/// A system service stash reads one property of, and how its value reads as a condition.
package struct DesktopService: Sendable {
    /// The name it owns on the bus, e.g. `org.freedesktop.NetworkManager`.
    package let name: String
    /// Its name for people (logs, `stash info`).
    package let title: String
    package let path: String
    package let interface: String
    package let property: String
    /// The property's D-Bus type.
    package let signature: String

    /// NetworkManager's `Metered` (NMMetered: 0 unknown, 1 yes, 2 no, 3 guess-yes, 4 guess-no).
    package static let networkManager = DesktopService(
        name: "org.freedesktop.NetworkManager", title: "NetworkManager", path: "/org/freedesktop/NetworkManager",
        interface: "org.freedesktop.NetworkManager", property: "Metered", signature: "u")
    package static let upower = DesktopService(
        name: "org.freedesktop.UPower", title: "UPower", path: "/org/freedesktop/UPower",
        interface: "org.freedesktop.UPower", property: "OnBattery", signature: "b")

    /// Whether `value` means the condition holds (metered, on battery); nil for a value of
    /// another type than the interface's.
    package func holds(_ value: BusValue) -> Bool? {
        switch (signature, value) {
        case ("u", .uint32(let metered)): return metered == 1 || metered == 3
        case ("b", .bool(let on)): return on
        default: return nil
        }
    }

    /// The match rule for its property changes, from its owner only.
    var changesRule: String {
        "type='signal',sender='\(name)',path='\(path)',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',arg0='\(interface)'"
    }

    /// The match rule for its name gaining or losing an owner.
    var ownerRule: String {
        "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(name)'"
    }
}
