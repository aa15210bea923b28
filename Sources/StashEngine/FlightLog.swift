import Foundation
import Logging
import StashCore

/// The file behind `CrashGuard`: `<data-dir>/stashd.flight`, a line per download whose
/// transfers start or stop. Written with plain write(2), without fsync: it must outlive the
/// process dying (a trap, kill -9), which the page cache does; after a power loss a lost line
/// costs at most one more crash before the guard trips. Used only on the engine's actor.
final class FlightLog {
    let path: String
    private let logger: Logger
    private var descriptor: Int32 = -1
    private var pendingEnds = ""
    /// The most of an old log read back: it is our own file, but a bound costs nothing.
    private static let readLimit = 16 << 20

    init(dataDir: String, logger: Logger) {
        self.path = dataDir + "/stashd.flight"
        self.logger = logger
    }

    deinit {
        if descriptor >= 0 { SystemCallError.close(descriptor) }
    }

    /// What the last run left, or nil when it exited cleanly (no log).
    func previous() -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: Self.readLimit)) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// Starts this run's log with `header` (synced: it holds the crash counts carried over).
    /// Without a log the guard cannot see the next crash; stashd runs on and says so.
    func begin(header: String) {
        do {
            descriptor = try SystemCallError.check("open", path) {
                open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
            }
            write(header)
            try SystemCallError.check("fsync", path) { fsync(descriptor) }
        } catch {
            logger.warning("cannot keep the flight log; a download that crashes stashd may be restarted again", metadata: ["error": "\(error)"])
        }
    }

    /// Written at once, with the end lines before it: the line must be in the file before
    /// the transfer it names can crash the process.
    func started(_ id: String) {
        write(pendingEnds + "start \(id)\n")
        pendingEnds = ""
    }

    /// Kept until the next start line or `flush`, whichever comes first: a download that
    /// ends usually lets the next one start in the same turn of the engine, and the two lines
    /// then cost one write(2).
    func ended(_ id: String) { pendingEnds += "end \(id)\n" }

    /// Writes the end lines not yet written; the engine calls it after each decision's effects.
    func flush() {
        guard !pendingEnds.isEmpty else { return }
        write(pendingEnds)
        pendingEnds = ""
    }

    /// After a clean stop: nothing was transferring when stashd exited.
    func removeAfterCleanStop() {
        pendingEnds = ""
        if descriptor >= 0 {
            SystemCallError.close(descriptor)
            descriptor = -1
        }
        do {
            try SystemCallError.removeFile(path)
        } catch {
            // Left behind, it makes the next start count this stop as unclean.
            logger.warning("cannot remove the flight log after a clean stop", metadata: ["error": "\(error)"])
        }
    }

    private func write(_ line: String) {
        guard descriptor >= 0 else { return }
        var line = line
        let written = line.withUTF8 { bytes in
            (try? SystemCallError.check("write", path) { Glibc.write(descriptor, bytes.baseAddress, bytes.count) }) ?? -1
        }
        if written < 0 {
            // A full disk: the guard goes blind rather than stopping transfers.
            logger.warning("cannot write the flight log", metadata: ["path": "\(path)"])
        }
    }
}
