import Foundation
import NIOCore
import StashCore
import StashWire
import Synchronization

/// The part of a connection that request and subscription tasks share with the event loop:
/// sending frames, waiting for writability, and the subscriptions to cancel when it closes.
///
/// A frame sent from a task reaches NIO's outbound buffer, where the high-water mark sees it,
/// only once the event loop runs the write; until then it is counted here (`inTransit`).
/// Without that, a subscription replaying 4,096 events of 4 KB queued them all on the loop
/// before the channel said it was full: 18 MB for one subscriber that never read.
final class ConnectionOutbox: Sendable {
    let channel: Channel
    private let clock: WallClock
    /// Bytes sent but not yet in NIO's buffer past which a subscription waits, as for NIO's
    /// own high-water mark (64 KiB).
    static let transitLimit = 64 * 1024

    private struct State {
        var closed = false
        var writable = true
        var inTransit = 0
        var writabilityWaiters: [CheckedContinuation<Void, Never>] = []
        var subscriptions: [ObjectIdentifier: EventSubscription] = [:]
        /// Frames sent while a hop onto the event loop is on its way, written by that hop
        /// (`writeWaiting`), with one flush if any asked for one.
        var waiting: [ByteBuffer] = []
        var waitingFlush = false
        var hopScheduled = false

        var mayWrite: Bool { writable && inTransit < ConnectionOutbox.transitLimit }

        mutating func takeWaiters() -> [CheckedContinuation<Void, Never>] {
            defer { writabilityWaiters.removeAll() }
            return writabilityWaiters
        }
    }

    private let state = Mutex(State())

    init(channel: Channel, clock: WallClock) {
        self.channel = channel
        self.clock = clock
    }

    /// Encodes and writes one frame; a closed connection drops it.
    func send(_ message: ServerMessage, flush: Bool = true) {
        send(CollectionOfOne(message), flush: flush)
    }

    /// Encodes the frames into one buffer and writes it with one hop onto the event loop; a
    /// closed connection drops them.
    func send(_ messages: some Collection<ServerMessage>, flush: Bool = true) {
        // Skipping the write also keeps late tasks off an event loop that stop() shut down.
        if isClosed || messages.isEmpty { return }
        // A typical record fits, so the encoder rarely has to grow the buffer.
        var buffer = channel.allocator.buffer(capacity: 512 * messages.count)
        let now = clock.now()
        for message in messages { WireCodec.encode(message, at: now, into: &buffer) }
        let frame = buffer
        // Frames sent before the event loop took the last ones join them: the answers to a
        // pipelined burst of requests, finished together by one commit, cost one hop and one
        // write, not one each.
        let hop = state.withLock { state in
            state.inTransit += frame.readableBytes
            state.waiting.append(frame)
            state.waitingFlush = state.waitingFlush || flush
            defer { state.hopScheduled = true }
            return !state.hopScheduled
        }
        if hop { channel.eventLoop.execute { self.writeWaiting() } }
    }

    /// On the event loop: writes the frames waiting; they are now in NIO's buffer.
    private func writeWaiting() {
        // Handed over whole: emptying it in place while the returned copy shares its storage
        // would allocate a new buffer of the same size.
        let (frames, flush) = state.withLock { state in
            state.hopScheduled = false
            defer {
                state.waiting = []
                state.waitingFlush = false
            }
            return (state.waiting, state.waitingFlush)
        }
        var size = 0
        for frame in frames {
            size += frame.readableBytes
            channel.write(frame, promise: nil)
        }
        if flush { channel.flush() }
        let waiters = state.withLock { state in
            state.inTransit -= size
            return state.mayWrite ? state.takeWaiters() : []
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns false (and the caller cancels) when the connection closed while subscribing.
    func register(_ subscription: EventSubscription) -> Bool {
        state.withLock { state in
            if state.closed { return false }
            state.subscriptions[ObjectIdentifier(subscription)] = subscription
            return true
        }
    }

    func unregister(_ subscription: EventSubscription) {
        state.withLock { $0.subscriptions[ObjectIdentifier(subscription)] = nil }
    }

    /// Suspends while NIO's outbound buffer is over its high-water mark or too much is on its
    /// way to it, so events wait in the subscription (where progress coalesces) rather than
    /// piling up in the channel. Returns false when the connection closed.
    func waitUntilWritable() async -> Bool {
        let (isClosed, isWritable) = state.withLock { ($0.closed, $0.mayWrite) }
        if isClosed { return false }
        if isWritable { return true }
        // Frames written without a flush count towards the high-water mark too: unflushed,
        // they would keep the channel unwritable for ever, and this wait with it.
        channel.flush()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            enqueueWaiter(continuation)
        }
        return !self.isClosed
    }

    /// Called on the event loop when the channel's writability changes.
    func setWritable(_ isWritable: Bool) {
        let waiters = state.withLock { state in
            state.writable = isWritable
            return state.mayWrite ? state.takeWaiters() : []
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Called on the event loop when the channel closes: cancels every subscription and
    /// wakes every writer.
    func close() {
        let (waiters, open) = state.withLock { state in
            state.closed = true
            let open = Array(state.subscriptions.values)
            state.subscriptions.removeAll()
            return (state.takeWaiters(), open)
        }
        for waiter in waiters { waiter.resume() }
        for subscription in open { subscription.cancel() }
    }

    var isClosed: Bool {
        state.withLock { $0.closed }
    }

    /// Checks again under the lock, so a change between the first look and now is not missed.
    private func enqueueWaiter(_ continuation: CheckedContinuation<Void, Never>) {
        let resumeNow = state.withLock { state in
            if state.closed || state.mayWrite { return true }
            state.writabilityWaiters.append(continuation)
            return false
        }
        if resumeNow { continuation.resume() }
    }
}
