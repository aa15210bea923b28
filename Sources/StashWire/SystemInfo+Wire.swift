import CStashProto
import Foundation
import StashCore

extension SystemInfo {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__SystemInfoResult> {
        var message = Stash__V1__SystemInfoResult()
        stash__v1__system_info_result__init(&message)
        message.data_dir = arena.cString(dataDir)
        message.disk_total = UInt64(clamping: diskTotal)
        message.disk_free = UInt64(clamping: diskFree)
        message.bytes_held = UInt64(clamping: bytesHeld)
        message.daemon_version = arena.cString(daemonVersion)
        message.socket_path = arena.cString(socketPath)
        message.download_count = UInt32(clamping: downloadCount)
        let held = bytesByState.sorted { $0.key.rawValue < $1.key.rawValue }
        message.n_bytes_by_state = held.count
        message.bytes_by_state = arena.array(held) { state, bytes -> UnsafeMutablePointer<Stash__V1__StateBytes>? in
            var entry = Stash__V1__StateBytes()
            stash__v1__state_bytes__init(&entry)
            entry.state = state.wire
            entry.bytes = UInt64(clamping: bytes)
            return arena.store(entry)
        }
        message.asset_count = UInt32(clamping: assetCount)
        message.last_verify = lastVerify.wire(in: arena)
        message.n_warnings = warnings.count
        message.warnings = arena.array(warnings) { Optional(arena.cString($0)) }
        message.rate_limit_now = UInt64(clamping: rateLimitNow)
        // A change is at a whole minute; 0 says there is none.
        message.rate_limit_changes_at = rateLimitChangesAt.flatMap { Int64(exactly: $0.timeIntervalSince1970.rounded()) } ?? 0
        message.rate_limit_next = UInt64(clamping: rateLimitNext)
        message.metered = WireValue.bool(metered)
        message.on_battery = WireValue.bool(onBattery)
        message.network_service = arena.cString(networkService)
        message.power_service = arena.cString(powerService)
        message.sleep_inhibitor = arena.cString(sleepInhibitor)
        message.notification_service = arena.cString(notificationService)
        return arena.store(message)
    }

    init(wire message: UnsafePointer<Stash__V1__SystemInfoResult>) throws {
        let m = message.pointee
        self.init(
            dataDir: try WireValue.string(m.data_dir, field: "SystemInfoResult.data_dir"),
            diskTotal: try WireValue.int64(m.disk_total, field: "SystemInfoResult.disk_total"),
            diskFree: try WireValue.int64(m.disk_free, field: "SystemInfoResult.disk_free"),
            bytesHeld: try WireValue.int64(m.bytes_held, field: "SystemInfoResult.bytes_held"),
            daemonVersion: try WireValue.string(m.daemon_version, field: "SystemInfoResult.daemon_version"),
            socketPath: try WireValue.string(m.socket_path, field: "SystemInfoResult.socket_path"),
            downloadCount: Int(m.download_count),
            bytesByState: try Dictionary(
                WireValue.elements(m.bytes_by_state, count: m.n_bytes_by_state) { entry in
                    let e = try WireValue.message(entry, field: "SystemInfoResult.bytes_by_state").pointee
                    return (try DownloadState(wire: e.state, field: "StateBytes.state"), try WireValue.int64(e.bytes, field: "StateBytes.bytes"))
                }, uniquingKeysWith: { $0.addingSaturating($1) }),
            assetCount: Int(m.asset_count),
            lastVerify: try m.last_verify.map { try VerifyReport(wire: $0) } ?? VerifyReport(),
            warnings: try WireValue.elements(m.warnings, count: m.n_warnings) { try WireValue.string($0, field: "SystemInfoResult.warnings") },
            rateLimitNow: try WireValue.int64(m.rate_limit_now, field: "SystemInfoResult.rate_limit_now"),
            rateLimitChangesAt: m.rate_limit_changes_at > 0 ? Date(timeIntervalSince1970: TimeInterval(m.rate_limit_changes_at)) : nil,
            rateLimitNext: try WireValue.int64(m.rate_limit_next, field: "SystemInfoResult.rate_limit_next"))
        metered = WireValue.bool(m.metered)
        onBattery = WireValue.bool(m.on_battery)
        networkService = try WireValue.string(m.network_service, field: "SystemInfoResult.network_service")
        powerService = try WireValue.string(m.power_service, field: "SystemInfoResult.power_service")
        sleepInhibitor = try WireValue.string(m.sleep_inhibitor, field: "SystemInfoResult.sleep_inhibitor")
        notificationService = try WireValue.string(m.notification_service, field: "SystemInfoResult.notification_service")
    }
}
