import Foundation
import StashCore

/// How to start stashd, for the message of a client that cannot reach it: through its socket
/// unit where the systemd user units are installed and the client tried the socket that unit
/// listens on, else by running `stashd` (with `--socket` when the client tried another path).
enum DaemonStartHint {
    /// The folders systemd's user manager reads units from that an install puts them in
    /// (systemd.unit(5), "User Unit Search Path").
    static func unitFolders(environment: [String: String]) -> [String] {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.local/share"
        let dataDirs = (environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share")
            .split(separator: ":").map { String($0) + "/systemd/user" }
        return [config + "/systemd/user", "/etc/systemd/user", data + "/systemd/user"] + dataDirs
            + ["/usr/local/lib/systemd/user", "/usr/lib/systemd/user"]
    }

    /// "start it with `systemctl --user start stashd.socket`", or with `stashd`.
    static func text(socketPath: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let isDefault = socketPath == StashPaths.defaultSocketPath(environment: environment)
        if isDefault, unitFolders(environment: environment).contains(where: { FileManager.default.fileExists(atPath: $0 + "/stashd.socket") }) {
            return "start it with `systemctl --user start stashd.socket`"
        }
        return isDefault ? "start it with `stashd`" : "start it with `stashd --socket \(socketPath)`"
    }
}
