import CLinux
import Dispatch
import Foundation
import Synchronization

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

    /// A trim is scheduled and has not run yet.
    private static let trimPending = Atomic<Bool>(false)
    /// Connections that leave at once share one trim.
    private static let trimDelay = DispatchTimeInterval.milliseconds(100)

    /// Hands memory that is free in the heap back to the system, soon and off the event loop.
    /// glibc returns only the free top of an arena by itself; what a client that never read
    /// made the daemon allocate stayed mapped once freed (529 MB five seconds after such a
    /// client had gone). malloc_trim(0) gives back every free page (madvise), locking each
    /// arena while it walks it. Measured on this VM: 0.2–0.3 ms in stashd after a client that
    /// pipelined GetStats or ListDownloads pages and never read (a 40–50 MB process); in a C
    /// program that freed most of a heap of small blocks, 9 ms for 40 MB and 190 ms for 500 MB
    /// (1 and 41 ms when run again with nothing to give back). Called only when a connection
    /// closes that was held back or asked for a heavy answer (a page, a report, a plan), after
    /// a delay that lets connections leaving together share one trim; small requests never
    /// cause one.
    package static func returnFreedMemory() {
        guard trimPending.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + trimDelay) {
            trimPending.store(false, ordering: .releasing)
            _ = malloc_trim(0)
        }
    }
}
