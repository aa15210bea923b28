import Foundation
import Logging
import StashCore

/// stashd's log lines, one `write` each to stderr, so lines from several threads never
/// interleave inside one. When stderr is the systemd journal (`.journal`), each line starts with
/// its priority as sd-daemon(3) defines the prefixes (`<6>` for info), so `journalctl -p
/// warning` finds the warnings, and carries no timestamp, which the journal adds itself.
/// Otherwise (`.plain`) the line is the one swift-log's `StreamLogHandler` writes, timestamp
/// first. Ours rather than that one: at the default level each download writes three lines
/// (added, started, completed), and `StreamLogHandler` read the time zone anew for each (a
/// `stat` of /etc/localtime, under `localtime`) and formatted its time; `LogTimestamp` does
/// that once a second.
package struct DaemonLogHandler: LogHandler {
    package enum Style: Sendable {
        case journal
        case plain
    }

    package var logLevel: Logger.Level = .info
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let style: Style
    /// One for the process: every logger's lines read the same clock.
    private static let timestamp = LogTimestamp()

    package init(label: String, style: Style) {
        self.label = label
        self.style = style
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
        var all = event.metadata ?? [:]
        // Most lines carry only their own metadata: no merge to make.
        if !metadata.isEmpty || metadataProvider != nil {
            var merged = metadataProvider?.get() ?? [:]
            merged.merge(metadata) { $1 }
            merged.merge(all) { $1 }
            all = merged
        }
        if let error = event.error { all["error.message"] = "\(error)" }
        // Bytes appended into one buffer: a String grown piece by piece paid String's append
        // machinery (capacity checks, counts and flags) for each of a line's dozen pieces.
        var line: [UInt8] = []
        line.reserveCapacity(256)
        switch style {
        case .journal:
            line.append(UInt8(ascii: "<"))
            line.append(UInt8(ascii: "0") + UInt8(Self.priority(event.level)))
            line.append(UInt8(ascii: ">"))
        case .plain:
            line.append(contentsOf: Self.timestamp.now().utf8)
            line.append(UInt8(ascii: " "))
        }
        line.append(contentsOf: event.level.rawValue.utf8)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: label.utf8)
        line.append(UInt8(ascii: ":"))
        for (key, value) in all.sorted(by: { $0.key < $1.key }) {
            line.append(UInt8(ascii: " "))
            line.append(contentsOf: key.utf8)
            line.append(UInt8(ascii: "="))
            if case .string(let text) = value {
                line.append(contentsOf: text.utf8)
            } else {
                line.append(contentsOf: value.description.utf8)
            }
        }
        line.append(contentsOf: " [".utf8)
        line.append(contentsOf: event.source.utf8)
        line.append(contentsOf: "] ".utf8)
        line.append(contentsOf: event.message.description.utf8)
        line.append(UInt8(ascii: "\n"))
        _ = try? line.withUnsafeBytes { text in
            try SystemCallError.check("write", "stderr") { write(STDERR_FILENO, text.baseAddress, text.count) }
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
