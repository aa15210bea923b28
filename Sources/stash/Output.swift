import Foundation
import StashCore

/// Writes to stdout and stderr unbuffered, a whole line (or drawing) per write, so piped JSON
/// lines arrive as they happen; straight to the descriptors, as stdio's buffers are shared
/// state no task may touch.
enum Output {
    static func line(_ text: String) {
        write(text + "\n", to: STDOUT_FILENO)
    }

    /// `stash: <message>` on stderr.
    static func error(_ message: String) {
        write("stash: \(message)\n", to: STDERR_FILENO)
    }

    /// All of `text`, however many writes it takes; a closed pipe (EPIPE) or any other failure
    /// ends it quietly: there is nowhere left to say it.
    static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let what = descriptor == STDERR_FILENO ? "standard error" : "standard output"
                guard let written = try? SystemCallError.check("write", what, { Foundation.write(descriptor, base + offset, bytes.count - offset) }),
                    written > 0
                else { return }
                offset += written
            }
        }
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
