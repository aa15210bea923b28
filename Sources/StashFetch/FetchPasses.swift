/// What the fetch thread calls around each pass of its loop (`FetchWorkers.observePasses`):
/// `began` when it wakes, `ended` before it sleeps again, at least once a pass (twice is
/// harmless). Both run on the fetch thread and must not block.
package struct FetchPasses: Sendable {
    package let began: @Sendable () -> Void
    package let ended: @Sendable () -> Void

    package init(began: @escaping @Sendable () -> Void, ended: @escaping @Sendable () -> Void) {
        self.began = began
        self.ended = ended
    }
}
