import Foundation

/// Default locations shared by the daemon and its clients, so both agree without flags.
public enum StashPaths {
    /// `$XDG_RUNTIME_DIR/stash/stashd.sock`, or `/tmp/stash-$UID/stashd.sock` without a runtime dir.
    public static func defaultSocketPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return runtime + "/stash/stashd.sock"
        }
        return "/tmp/stash-\(getuid())/stashd.sock"
    }

    /// `$XDG_DATA_HOME/stash`, or `~/.local/share/stash`.
    package static func defaultDataDir(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty {
            return data + "/stash"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/stash"
    }
}
