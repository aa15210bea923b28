import Foundation

/// How fast a download's transfer goes and when its progress was last announced and saved:
/// what a running transfer needs, and a download at rest does not (`DownloadEntry.pace`).
struct TransferPace {
    var speed = SpeedMeter()
    var lastEvent: (percent: Int, time: TimeInterval) = (-1, 0)
    var lastSave: TimeInterval = 0
}
