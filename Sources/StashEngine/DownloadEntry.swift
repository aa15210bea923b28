import Foundation
import StashCore

/// What `EngineState` holds of one download: its record, its state machine, its place in the
/// list and what is under way for it.
struct DownloadEntry {
    var download: Download
    var lifecycle: DownloadLifecycle
    /// Position in the list order; stable across removals, used for paging.
    var seq: Int
    /// What is under way for it: planning, transfers or the completion.
    var activity = DownloadActivity.idle
    var speed = SpeedMeter()
    var lastProgressEvent: (percent: Int, time: TimeInterval) = (-1, 0)
    var lastProgressSave: TimeInterval = 0
    /// The package's size as its playlists put it (bandwidth x duration), while not every
    /// segment's size is known; nil for other downloads and after a restart.
    var planEstimate: Int64?
}
