import CLinux
import Foundation

/// glibc gives each thread that allocates its own heap arena (up to 8 per core), and memory
/// freed in one arena is not reused by another: a `stash plan` parsing 100,000-segment
/// playlists on whichever pool thread ran it left the daemon's peak RSS 30–60 MB higher from
/// run to run (bench/memory.py). Four arenas keep the peak steady at no measurable cost.
package enum HeapArenas {
    package static let count: Int32 = 4

    /// Caps the arenas, unless MALLOC_ARENA_MAX in the environment already chose.
    package static func limit() {
        guard ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil else { return }
        // Best effort: on failure glibc keeps its default, which is only less frugal.
        _ = mallopt(M_ARENA_MAX, count)
    }
}
