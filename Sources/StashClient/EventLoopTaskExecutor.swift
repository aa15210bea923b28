import NIOCore

/// Runs task jobs on one NIO event loop. A task that prefers it runs on the thread that does
/// its connection's I/O, so a call writes its request in place and resumes from its response
/// without waking another thread: two cross-thread wake-ups less per round trip.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, *)
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: EventLoop

    init(eventLoop: EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
