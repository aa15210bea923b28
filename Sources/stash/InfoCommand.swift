import ArgumentParser
import Foundation
import StashClient

struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show the daemon's version, paths, disk space, storage held and download statistics.",
        discussion: "Also shows the last verify: the one run at daemon start, or the last `stash verify`.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let client = try await global.connect()
        let info = try await client.systemInfo()
        let stats = try await client.stats()
        let counts = DownloadState.allCases.compactMap { state in stats.counts[state].map { (state, $0) } }
        if global.json {
            Output.json([
                "daemonVersion": info.daemonVersion,
                "protocolVersion": client.daemonInfo.protocolVersion,
                "features": client.daemonInfo.features,
                "socketPath": info.socketPath,
                "dataDir": info.dataDir,
                "diskTotal": info.diskTotal,
                "diskFree": info.diskFree,
                "bytesHeld": info.bytesHeld,
                "downloadCount": info.downloadCount,
                "assetCount": info.assetCount,
                "bytesByState": Dictionary(uniqueKeysWithValues: info.bytesByState.map { ($0.key.name, $0.value) }),
                "lastVerify": info.lastVerify.jsonObject,
                "warnings": info.warnings,
                "rateLimitNow": info.rateLimitNow,
                "rateLimitChangesAt": info.rateLimitChangesAt.map { $0.ISO8601Format() } as Any? ?? NSNull(),
                "rateLimitNext": info.rateLimitNext,
                "metered": info.metered,
                "onBattery": info.onBattery,
                "networkService": info.networkService,
                "powerService": info.powerService,
                "sleepInhibitor": info.sleepInhibitor,
                "notificationService": info.notificationService,
                "speed": stats.speed,
                "activeTransfers": stats.activeTransfers,
                "downloadedBytes": stats.downloadedBytes,
                "counts": Dictionary(uniqueKeysWithValues: counts.map { ($0.0.name, $0.1) }),
            ])
            return
        }
        for warning in info.warnings { Output.line("warning: \(warning)") }
        Output.line("daemon: stashd \(info.daemonVersion) (protocol \(client.daemonInfo.protocolVersion))")
        if !client.daemonInfo.features.isEmpty { Output.line("features: \(client.daemonInfo.features.joined(separator: ", "))") }
        Output.line("socket: \(info.socketPath)")
        Output.line("data dir: \(info.dataDir)")
        Output.line("disk: \(Format.bytes(info.diskFree)) free of \(Format.bytes(info.diskTotal))")
        Output.line("held: \(Format.bytes(info.bytesHeld)) in \(info.assetCount) asset(s)")
        for state in DownloadState.allCases {
            if let bytes = info.bytesByState[state] { Output.line("  \(state.name): \(Format.bytes(bytes))") }
        }
        Output.line("rate limit: \(Self.rate(info.rateLimitNow)) now" + (info.rateLimitChangesAt.map {
            ", \(Self.rate(info.rateLimitNext)) from \($0.ISO8601Format(Date.ISO8601FormatStyle(timeZone: .current))) (rate-schedule)"
        } ?? ""))
        // What the desktop says over D-Bus (docs/DESKTOP.md); empty from a daemon that does not look.
        if !info.networkService.isEmpty { Output.line("network (NetworkManager): \(info.networkService)") }
        if !info.powerService.isEmpty { Output.line("power (UPower): \(info.powerService)") }
        if !info.sleepInhibitor.isEmpty { Output.line("sleep lock (logind): \(info.sleepInhibitor)") }
        if !info.notificationService.isEmpty { Output.line("notifications: \(info.notificationService)") }
        Output.line("speed: \(Format.speed(stats.speed)), \(stats.activeTransfers) active transfer(s)")
        Output.line("received since start: \(Format.bytes(stats.downloadedBytes))")
        for (state, count) in counts { Output.line("\(state.name): \(count)") }
        let verify = info.lastVerify
        if verify.finishedAt != nil {
            Output.line("last verify: \(verify.textLines.last ?? "")")
            for line in verify.textLines.dropLast().prefix(20) { Output.line("  \(line)") }
            if verify.findings.count > 20 { Output.line("  … \(verify.findings.count - 20) more; run `stash verify`") }
        }
    }

    private static func rate(_ bytesPerSecond: Int64) -> String {
        bytesPerSecond == 0 ? "unlimited" : "\(Format.speed(bytesPerSecond)) (\(RateText.format(bytesPerSecond)))"
    }
}
