import Dispatch
import Foundation

/// Ctrl-C while `wait` or `add --wait` follows downloads ends only the command, and says so:
/// stashd goes on with the downloads, which a person who pressed it may not expect (other
/// download tools stop theirs), and the message says how to follow them again.
final class InterruptNotice {
    /// 128 + SIGINT, as a shell reports a command that Ctrl-C ended.
    static let exitStatus: Int32 = 130

    private let source: DispatchSourceSignal

    /// Until `cancel()`, SIGINT prints the message for `ids` and exits `exitStatus`.
    init(ids: [String]) {
        let message = Self.message(ids: ids)
        // Dispatch sees the signal only when its default action (exit) is off.
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: DispatchQueue(label: "stash.interrupt"))
        source.setEventHandler {
            // The terminal echoed ^C where the cursor was: start the message on a line of its own.
            if isatty(STDERR_FILENO) == 1 { Output.write("\n", to: STDERR_FILENO) }
            Output.error(message)
            exit(Self.exitStatus)
        }
        source.resume()
    }

    /// Back to Ctrl-C's default: the command is done following.
    func cancel() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }

    /// Ids named in the message; past that many, `stash watch` is the way to follow them.
    static let idsNamed = 5

    static func message(ids: [String]) -> String {
        guard ids.count > 1 else {
            let id = ids.first ?? ""
            return "stopped waiting; stashd goes on with download \(id). Follow it again with `stash wait \(id)` "
                + "(or every download with `stash watch`); `stash pause \(id)` pauses it."
        }
        let follow = ids.count <= idsNamed
            ? "`stash wait \(ids.joined(separator: " "))` (or every download with `stash watch`)" : "`stash watch`"
        return "stopped waiting; stashd goes on with the \(ids.count) downloads. Follow them again with \(follow); "
            + "`stash pause ID` pauses one, `stash pause --all` every one."
    }
}
