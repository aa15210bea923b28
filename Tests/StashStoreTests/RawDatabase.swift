import GRDB

/// The registry's file opened as another program (`sqlite3`, a backup) would, to write what
/// no daemon writes. It waits for a lock rather than failing: a `Registry` a test let go of
/// closes on its committer's thread, and its last connection checkpoints the log under an
/// exclusive lock, so a connection opened right after could otherwise find the file locked.
func rawDatabase(_ path: String, foreignKeys: Bool = true) throws -> DatabaseQueue {
    var configuration = Configuration()
    configuration.busyMode = .timeout(5)
    configuration.foreignKeysEnabled = foreignKeys
    return try DatabaseQueue(path: path, configuration: configuration)
}
