/// Decides, from the flight log the last run left, which downloads were transferring when
/// stashd stopped uncleanly, and which of them did so twice in a row: those are FAILED at
/// start instead of started again, so no input that crashes the daemon can keep it in a
/// restart loop. A value with pure decisions, so each case is unit-testable.
///
/// The log is lines of text: `crashed <id> <n>` (carried from the start before: the id was
/// transferring during the last n unclean exits), `start <id>` (its transfers begin) and
/// `end <id>` (they stopped). A clean exit removes the log; no log means a clean last exit.
struct CrashGuard: Equatable {
    /// Unclean exits in a row while transferring after which a download is not started again.
    static let limit = 2

    /// Downloads to fail at this start, with the number of unclean exits.
    var failing: [String: Int] = [:]
    /// Downloads that were transferring during the last unclean exit, below the limit: carried
    /// into the next log so a second crash in a row finds them.
    var carried: [String: Int] = [:]

    /// `log` is nil when the last exit was clean.
    init(log: String?) {
        guard let log else { return }
        var previous: [String: Int] = [:]
        var transferring: Set<String> = []
        for line in log.split(separator: "\n") {
            let fields = line.split(separator: " ")
            switch (fields.first, fields.count) {
            case ("crashed", 3):
                // A count that does not parse (a torn write) counts as one crash.
                previous[String(fields[1])] = Int(fields[2]).map { min(max($0, 1), Self.limit) } ?? 1
            case ("start", 2):
                transferring.insert(String(fields[1]))
            case ("end", 2):
                transferring.remove(String(fields[1]))
            default:
                continue
            }
        }
        for id in transferring {
            let count = (previous[id] ?? 0) + 1
            if count >= Self.limit {
                failing[id] = count
            } else {
                carried[id] = count
            }
        }
    }

    /// The first lines of the new log.
    var header: String {
        carried.sorted { $0.key < $1.key }.map { "crashed \($0.key) \($0.value)\n" }.joined()
    }

    /// The reason a download failed by the guard carries.
    static func reason(exits: Int) -> String {
        "stashd stopped uncleanly \(exits) times in a row while this download was transferring; "
            + "it is not started again by itself (resume it to try again, after updating stashd or checking the source)"
    }
}
