import Foundation
import Logging
import StashCore

/// stashd's log lines when stderr is the systemd journal: each line starts with its priority
/// as sd-daemon(3) defines the prefixes (`<6>` for info), so `journalctl -p warning` finds
/// the warnings, and carries no timestamp, which the journal adds itself. Otherwise the line is
/// the one swift-log's `StreamLogHandler` writes.
package struct JournalLogHandler: LogHandler {
    package var logLevel: Logger.Level = .info
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?
    private let label: String

    package init(label: String) {
        self.label = label
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// syslog's priorities, which the journal keeps: swift-log's trace has none of its own.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    package func log(event: LogEvent) {
        var all = metadataProvider?.get() ?? [:]
        all.merge(metadata) { $1 }
        if let explicit = event.metadata { all.merge(explicit) { $1 } }
        if let error = event.error { all["error.message"] = "\(error)" }
        let pretty = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let line = "<\(Self.priority(event.level))>\(event.level) \(label):\(pretty) [\(event.source)] \(event.message)\n"
        // One write per line, so lines from several threads never interleave inside one.
        _ = try? line.utf8CString.withUnsafeBufferPointer { text in
            try SystemCallError.check("write", "stderr") { write(STDERR_FILENO, text.baseAddress, text.count - 1) }
        }
    }

    /// Whether stderr is the journal's stream: `JOURNAL_STREAM` (`device:inode`, set by
    /// systemd for a service whose output goes to the journal) names the file stderr is. A
    /// child that inherited the variable but writes elsewhere (a terminal, a file) keeps
    /// the plain format.
    package static func stderrIsJournal(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard (try? SystemCallError.check("fstat", "stderr") { fstat(STDERR_FILENO, &info) }) != nil else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }
}
