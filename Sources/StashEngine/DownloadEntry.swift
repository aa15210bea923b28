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
    /// The package's size as its playlists put it (bandwidth x duration), while not every
    /// segment's size is known; nil for other downloads and after a restart.
    var planEstimate: Int64?
    /// Boxed, and only from a transfer's start to its end (`endPace`): 100,000 downloads at
    /// rest carry a reference each, not 64 bytes.
    private var paceBox: PaceBox?

    init(download: Download, lifecycle: DownloadLifecycle, seq: Int) {
        self.download = download
        self.lifecycle = lifecycle
        self.seq = seq
    }

    /// The running transfer's speed and progress timing; a fresh one while none runs.
    var pace: TransferPace {
        get { paceBox?.pace ?? TransferPace() }
        _modify {
            let box = ownPace()
            yield &box.pace
        }
    }

    /// The box, this entry's own: a copy of the entry shares it until one of them changes it.
    private mutating func ownPace() -> PaceBox {
        if isKnownUniquelyReferenced(&paceBox), let box = paceBox { return box }
        let box = PaceBox(paceBox?.pace ?? TransferPace())
        paceBox = box
        return box
    }

    /// The transfer ended: its pace goes with it.
    mutating func endPace() {
        paceBox = nil
    }

    private final class PaceBox {
        // Unchecked at run time, as `Download`'s storage: changed only through the one entry
        // that holds it (`ownPace()`), whose accesses the compiler and the engine's own
        // property checks cover.
        @exclusivity(unchecked) var pace: TransferPace
        init(_ pace: TransferPace) { self.pace = pace }
    }
}
