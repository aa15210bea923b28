import Foundation

/// Writes to stdout and stderr unbuffered per line, so piped JSON lines arrive as they happen.
enum Output {
    static func line(_ text: String) {
        fputs(text + "\n", stdout)
        fflush(stdout)
    }

    /// `stash: <message>` on stderr.
    static func error(_ message: String) {
        fputs("stash: \(message)\n", stderr)
        fflush(stderr)
    }

    /// One JSON object on one line, keys sorted so output is stable.
    static func json(_ object: [String: Any]) {
        line(jsonText(object))
    }

    static func jsonText(_ object: [String: Any]) -> String {
        var text = ""
        JSONText.append(object, to: &text)
        return text
    }

    /// True when stdout is a terminal, where live progress bars make sense.
    static var isTerminal: Bool { isatty(1) == 1 }
}
