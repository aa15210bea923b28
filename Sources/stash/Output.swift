import Foundation

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

    /// All of `text`, however many writes it takes; a closed pipe (EPIPE) ends it quietly.
    static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = bytes.baseAddress.map { Foundation.write(descriptor, $0 + offset, bytes.count - offset) } ?? 0
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
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
