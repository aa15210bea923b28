import Foundation
import StashCore

/// The one line stashd shows in `systemctl --user status stashd` (STATUS=): what it is doing,
/// e.g. "3 downloading, 12 queued, 4.2 MiB/s", or "idle, 40 downloads kept".
package struct ServiceStatus: Equatable, Sendable {
    package let text: String

    package init(_ stats: DownloadStats) {
        let shown: [(DownloadState, String)] = [
            (.preparing, "preparing"), (.downloading, "downloading"), (.queued, "queued"),
            (.waitingForNetwork, "waiting for the network"), (.restarting, "restarting"), (.removing, "removing"),
            (.failed, "failed"),
        ]
        var parts = shown.compactMap { state, label in
            stats.counts[state].flatMap { $0 > 0 ? "\($0) \(label)" : nil }
        }
        let active = stats.counts.reduce(0) { $0 + ($1.key.isActive || $1.key == .queued ? $1.value : 0) }
        if active > 0 {
            parts.append(Self.speed(stats.speed))
        } else {
            let total = stats.counts.values.reduce(0, +)
            parts.insert("idle", at: 0)
            parts.append("\(total) download\(total == 1 ? "" : "s") kept")
        }
        text = parts.joined(separator: ", ")
    }

    /// 4404019 -> "4.2 MiB/s": binary units, as the CLI shows them.
    static func speed(_ bytesPerSecond: Int64) -> String {
        let units = ["B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s"]
        var value = Double(max(0, bytesPerSecond))
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(max(0, bytesPerSecond)) B/s" : String(format: "%.1f ", value) + units[unit]
    }
}
