import Foundation

/// How the disk watch is bounded. The defaults are the daemon's; a test lowers them to see the
/// fallback without lowering the machine's inotify limit.
package struct DiskWatchSettings: Sendable {
    /// At most this many inotify watches (nil: as many as the kernel gives).
    package var limit: Int?
    /// How often downloads without inotify watches are looked at.
    package var pollInterval: TimeInterval

    package init(limit: Int? = nil, pollInterval: TimeInterval = 5) {
        self.limit = limit
        self.pollInterval = pollInterval
    }
}
