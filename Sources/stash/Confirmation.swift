import Foundation

/// A yes-or-no question before a command destroys what it cannot give back (`cancel --all`
/// deletes every file of every download). It is asked only on a terminal: a script cannot
/// answer, so there the command needs `--yes` instead of hanging on a read or guessing.
enum Confirmation {
    enum Answer: Equatable {
        case yes, no
        /// stdin is not a terminal: nobody to ask.
        case cannotAsk
    }

    /// Writes `question` and ` [y/N] ` to stderr (stdout may be a pipe the answer should not
    /// reach) and reads one line from stdin: `y` or `yes`, in any case, is yes.
    static func ask(_ question: String) -> Answer {
        guard isatty(STDIN_FILENO) == 1 else { return .cannotAsk }
        Output.write("\(question) [y/N] ", to: STDERR_FILENO)
        guard let line = readLine() else { return .no }
        return isYes(line) ? .yes : .no
    }

    static func isYes(_ line: String) -> Bool {
        ["y", "yes"].contains(line.trimmingBlanks().lowercased())
    }
}
