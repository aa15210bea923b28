import CStashProto
import StashCore

extension DaemonConfig {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__Config> {
        var message = Stash__V1__Config()
        stash__v1__config__init(&message)
        message.max_parallel = UInt32(clamping: maxParallel)
        message.retry_max_attempts = UInt32(clamping: retryMaxAttempts)
        message.retry_base_delay_ms = UInt32(clamping: retryBaseDelayMs)
        message.retry_max_delay_ms = UInt32(clamping: retryMaxDelayMs)
        message.rate_limit = UInt64(clamping: rateLimit)
        message.low_speed_limit = UInt32(clamping: lowSpeedLimit)
        message.low_speed_time = UInt32(clamping: lowSpeedTime)
        message.files_per_download = UInt32(clamping: filesPerDownload)
        message.max_connections = UInt32(clamping: maxConnections)
        message.max_connections_per_host = UInt32(clamping: maxConnectionsPerHost)
        message.storage_reserve = UInt64(clamping: storageReserve)
        message.rate_schedule = arena.cString(rateSchedule)
        message.preempt = WireValue.bool(preempt)
        // The defaults go as "" (not on the wire), as a daemon before these settings sends them.
        message.network = arena.cString(network == .any ? "" : network.rawValue)
        message.on_battery = arena.cString(onBattery == .continue ? "" : onBattery.rawValue)
        message.notify = arena.cString(notify == .none ? "" : notify.rawValue)
        message.inhibit_sleep = arena.cString(inhibitSleep == .delay ? "" : inhibitSleep.rawValue)
        return arena.store(message)
    }

    init(wire message: UnsafePointer<Stash__V1__Config>) throws {
        let m = message.pointee
        self.init()
        maxParallel = Int(m.max_parallel)
        retryMaxAttempts = Int(m.retry_max_attempts)
        retryBaseDelayMs = Int(m.retry_base_delay_ms)
        retryMaxDelayMs = Int(m.retry_max_delay_ms)
        rateLimit = try WireValue.int64(m.rate_limit, field: "Config.rate_limit")
        lowSpeedLimit = Int(m.low_speed_limit)
        lowSpeedTime = Int(m.low_speed_time)
        filesPerDownload = Int(m.files_per_download)
        maxConnections = Int(m.max_connections)
        maxConnectionsPerHost = Int(m.max_connections_per_host)
        storageReserve = try WireValue.int64(m.storage_reserve, field: "Config.storage_reserve")
        rateSchedule = try WireValue.string(m.rate_schedule, field: "Config.rate_schedule")
        preempt = WireValue.bool(m.preempt)
        // "" from a daemon before these settings: their defaults.
        let networkText = try WireValue.string(m.network, field: "Config.network")
        if !networkText.isEmpty { network = try NetworkRequirement(parsing: networkText, field: "Config.network") }
        let batteryText = try WireValue.string(m.on_battery, field: "Config.on_battery")
        if !batteryText.isEmpty { onBattery = try BatteryPolicy(parsing: batteryText, field: "Config.on_battery") }
        let notifyText = try WireValue.string(m.notify, field: "Config.notify")
        if !notifyText.isEmpty { notify = try NotifyPolicy(parsing: notifyText, field: "Config.notify") }
        let inhibitText = try WireValue.string(m.inhibit_sleep, field: "Config.inhibit_sleep")
        if !inhibitText.isEmpty { inhibitSleep = try SleepInhibitMode(parsing: inhibitText, field: "Config.inhibit_sleep") }
    }
}
