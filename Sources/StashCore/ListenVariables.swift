/// What `LISTEN_PID` and `LISTEN_FDS` say about the sockets a service manager passed, read as
/// sd_listen_fds(3) reads them: no `LISTEN_PID`, one naming another process, no `LISTEN_FDS`
/// or `LISTEN_FDS=0` all mean nothing was passed. The numbers are read more strictly than
/// systemd's strtol-based parse: decimal digits only, no sign, space or leading zero, as every
/// manager writes them; anything else was written by hand, and naming it beats guessing.
/// Pure, so a fuzzer can feed it any text (`FuzzTarget.activation`).
package enum ListenVariables {
    /// SD_LISTEN_FDS_START: the first passed descriptor.
    package static let firstDescriptor: Int32 = 3
    /// sd_listen_fds's own limit: the last descriptor, 2 + count, stays below Int32.max.
    package static let maxCount: Int32 = .max - firstDescriptor

    package enum Reading: Equatable, Sendable {
        /// No `LISTEN_PID`: not started by a service manager.
        case none
        /// `LISTEN_PID` names another process (the variables leaked from a parent).
        case otherProcess(pid: Int32)
        /// `LISTEN_PID` is this process, but `LISTEN_FDS` is unset (nil here) or 0.
        case nothingPassed(listenFDS: String?)
        /// Descriptors `firstDescriptor` to `lastDescriptor(count:)`, count from 1 to `maxCount`.
        case descriptors(count: Int32)
    }

    /// Throws FAILED_PRECONDITION naming the variable, its value and what it may be.
    package static func read(listenPID: String?, listenFDS: String?, processID: Int32) throws -> Reading {
        guard let listenPID else { return .none }
        guard let pid = decimal(listenPID, upTo: .max), pid > 0 else {
            throw StashError(.failedPrecondition, "LISTEN_PID '\(shown(listenPID))' is not a process id (a decimal number from 1 to \(Int32.max), digits only)")
        }
        guard pid == processID else { return .otherProcess(pid: pid) }
        guard let listenFDS else { return .nothingPassed(listenFDS: nil) }
        guard let count = decimal(listenFDS, upTo: maxCount) else {
            throw StashError(
                .failedPrecondition,
                "LISTEN_FDS '\(shown(listenFDS))' is not a number of descriptors (a decimal number from 0 to \(maxCount), digits only: descriptors \(firstDescriptor)…\(lastDescriptor(count: maxCount)) at most)")
        }
        return count == 0 ? .nothingPassed(listenFDS: listenFDS) : .descriptors(count: count)
    }

    /// The last of `count` passed descriptors; `count` from 1 to `maxCount`.
    package static func lastDescriptor(count: Int32) -> Int32 {
        firstDescriptor + (min(max(count, 1), maxCount) - 1)
    }

    /// A canonical decimal from 0 to `limit`: digits only, "0" or no leading zero; nil for
    /// anything else, a number past `limit` too.
    static func decimal(_ text: String, upTo limit: Int32) -> Int32? {
        let digits = Array(text.utf8)
        guard let first = digits.first, digits.count == 1 || first != UInt8(ascii: "0") else { return nil }
        var value: Int32 = 0
        for digit in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowAgain) = times10.addingReportingOverflow(Int32(digit - UInt8(ascii: "0")))
            guard !overflow, !overflowAgain, sum <= limit else { return nil }
            value = sum
        }
        return value
    }

    /// A value as a message shows it: a variable of a megabyte is not repeated whole.
    private static func shown(_ text: String) -> String {
        text.count <= 40 ? text : String(text.prefix(40)) + "…"
    }
}
