/// Settings a client can read and change while the daemon runs (`stash config`). Keys on the
/// CLI and in `SetConfig` are the kebab-case names in `DaemonConfig.keys`.
public struct DaemonConfig: Equatable, Sendable, Codable {
    /// Downloads transferring at once.
    public var maxParallel: Int = 3
    /// Transfers at once inside one download (the files of a bundle).
    public var filesPerDownload: Int = 5
    /// Transfers at once over all downloads.
    public var maxConnections: Int = 32
    /// Transfers at once to one host, over all downloads.
    public var maxConnectionsPerHost: Int = 16
    /// Bytes of free disk space no download may take: a download whose estimated size does not
    /// fit above this waits in the queue.
    public var storageReserve: Int64 = 64 << 20
    public var retryMaxAttempts: Int = 5
    public var retryBaseDelayMs: Int = 500
    public var retryMaxDelayMs: Int = 30_000
    /// Bytes per second over all transfers; 0 is unlimited.
    public var rateLimit: Int64 = 0
    /// A transfer slower than this many bytes per second for `lowSpeedTime` seconds is stalled.
    public var lowSpeedLimit: Int = 1024
    public var lowSpeedTime: Int = 30
    /// The global rate limit by weekday and hour (`RateSchedule`'s syntax), in the daemon's
    /// local time; outside its rules, and when it is "", `rateLimit` holds.
    public var rateSchedule: String = ""
    /// When every download slot is taken, a queued download takes the slot of a running one of
    /// lower priority, which goes back to the queue keeping its bytes. On by default: only a
    /// client's explicit `high` (or `low`) makes it happen, and the one put back resumes with a
    /// range request from its part file.
    public var preempt = true
    /// Downloads that need an unmetered network wait while NetworkManager says the network is
    /// metered (docs/DESKTOP.md).
    public var network: NetworkRequirement = .any
    /// Downloads pause while UPower says the machine runs on battery, or go on.
    public var onBattery: BatteryPolicy = .continue
    /// Desktop notifications when downloads complete or fail: none, per group, or all.
    public var notify: NotifyPolicy = .none
    /// The lock on sleep taken from logind while downloads run.
    public var inhibitSleep: SleepInhibitMode = .delay

    public init() {}

    /// The key of `rateSchedule`, a setting that is text: see `text(forKey:)`.
    public static let rateScheduleKey = "rate-schedule"
    public static let networkKey = "network"
    public static let onBatteryKey = "on-battery"
    public static let notifyKey = "notify"
    public static let inhibitSleepKey = "inhibit-sleep"
    /// The settings that are text, not integers.
    public static let textKeys = [rateScheduleKey, networkKey, onBatteryKey, notifyKey, inhibitSleepKey]

    /// Every key's name, the integer ones and the text ones.
    public static var keyNames: [String] { keys.map(\.name) + textKeys }

    /// Any key's value as text: an integer's digits, the schedule, a word.
    public func text(forKey name: String) throws -> String {
        switch name {
        case Self.rateScheduleKey: return rateSchedule
        case Self.networkKey: return network.rawValue
        case Self.onBatteryKey: return onBattery.rawValue
        case Self.notifyKey: return notify.rawValue
        case Self.inhibitSleepKey: return inhibitSleep.rawValue
        default: return String(try value(forKey: name))
        }
    }

    public struct Key: Sendable {
        public let name: String
        public let range: ClosedRange<Int64>
        public let help: String
        let keyPath: WritableKeyPath<DaemonConfig, Int64> & Sendable
    }

    /// Every settable key, with its limits.
    public static let keys: [Key] = [
        Key(name: "max-parallel", range: 1...64, help: "downloads transferring at once", keyPath: \.maxParallel64),
        Key(name: "files-per-download", range: 1...64, help: "transfers at once inside one download", keyPath: \.filesPerDownload64),
        Key(name: "max-connections", range: 1...1024, help: "transfers at once over all downloads", keyPath: \.maxConnections64),
        Key(name: "max-connections-per-host", range: 1...1024, help: "transfers at once to one host", keyPath: \.maxConnectionsPerHost64),
        Key(name: "storage-reserve", range: 0...(1 << 50), help: "bytes of free disk space downloads leave untouched", keyPath: \.storageReserve),
        Key(name: "retry-max-attempts", range: 1...100, help: "attempts per file before it fails", keyPath: \.retryMaxAttempts64),
        Key(name: "retry-base-delay-ms", range: 10...600_000, help: "first retry delay, doubled each attempt", keyPath: \.retryBaseDelayMs64),
        Key(name: "retry-max-delay-ms", range: 10...3_600_000, help: "longest retry delay", keyPath: \.retryMaxDelayMs64),
        Key(name: "rate-limit", range: 0...(1 << 40), help: "bytes per second over all transfers, 0 = unlimited", keyPath: \.rateLimit),
        Key(name: "low-speed-limit", range: 1...(1 << 30), help: "bytes per second under which a transfer is stalled", keyPath: \.lowSpeedLimit64),
        Key(name: "low-speed-time", range: 1...3600, help: "seconds under low-speed-limit before a stalled transfer is retried", keyPath: \.lowSpeedTime64),
        Key(name: "preempt", range: 0...1, help: "1 = a queued download takes the slot of a running one of lower priority", keyPath: \.preempt64),
    ]

    public func value(forKey name: String) throws -> Int64 {
        if Self.textKeys.contains(name) {
            throw StashError.invalidArgument("config '\(name)' is text, not an integer; read it with text(forKey:)")
        }
        guard let key = Self.keys.first(where: { $0.name == name }) else { throw Self.unknownKey(name) }
        return self[keyPath: key.keyPath]
    }

    /// Sets one key from its text form; the error names the key, the value and the limits.
    package mutating func set(_ name: String, to text: String) throws {
        if name == Self.rateScheduleKey {
            // Kept in the parsed form, so `config get` shows how it was understood.
            rateSchedule = try RateSchedule(parsing: text).text
            return
        }
        if name == Self.networkKey {
            network = try NetworkRequirement(parsing: text, field: "config '\(name)'")
            return
        }
        if name == Self.onBatteryKey {
            onBattery = try BatteryPolicy(parsing: text, field: "config '\(name)'")
            return
        }
        if name == Self.notifyKey {
            notify = try NotifyPolicy(parsing: text, field: "config '\(name)'")
            return
        }
        if name == Self.inhibitSleepKey {
            inhibitSleep = try SleepInhibitMode(parsing: text, field: "config '\(name)'")
            return
        }
        guard let key = Self.keys.first(where: { $0.name == name }) else { throw Self.unknownKey(name) }
        guard let value = Int64(text.trimmingWhitespace()) else {
            throw StashError.invalidArgument("config '\(name)': value '\(text)' is not an integer")
        }
        guard key.range.contains(value) else {
            throw StashError.invalidArgument("config '\(name)': value \(value) is outside \(key.range.lowerBound)...\(key.range.upperBound)")
        }
        self[keyPath: key.keyPath] = value
    }

    private static func unknownKey(_ name: String) -> StashError {
        .invalidArgument("unknown config key '\(name)'; known keys: \(keyNames.joined(separator: ", "))")
    }

    private var maxParallel64: Int64 { get { Int64(maxParallel) } set { maxParallel = Int(newValue) } }
    private var filesPerDownload64: Int64 { get { Int64(filesPerDownload) } set { filesPerDownload = Int(newValue) } }
    private var maxConnections64: Int64 { get { Int64(maxConnections) } set { maxConnections = Int(newValue) } }
    private var maxConnectionsPerHost64: Int64 { get { Int64(maxConnectionsPerHost) } set { maxConnectionsPerHost = Int(newValue) } }
    private var retryMaxAttempts64: Int64 { get { Int64(retryMaxAttempts) } set { retryMaxAttempts = Int(newValue) } }
    private var retryBaseDelayMs64: Int64 { get { Int64(retryBaseDelayMs) } set { retryBaseDelayMs = Int(newValue) } }
    private var retryMaxDelayMs64: Int64 { get { Int64(retryMaxDelayMs) } set { retryMaxDelayMs = Int(newValue) } }
    private var lowSpeedLimit64: Int64 { get { Int64(lowSpeedLimit) } set { lowSpeedLimit = Int(newValue) } }
    private var lowSpeedTime64: Int64 { get { Int64(lowSpeedTime) } set { lowSpeedTime = Int(newValue) } }
    private var preempt64: Int64 { get { preempt ? 1 : 0 } set { preempt = newValue != 0 } }
}

extension String {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
