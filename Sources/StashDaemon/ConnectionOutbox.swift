import Foundation
import NIOCore
import StashCore
import StashWire

/// The part of a connection that request and subscription tasks share with the event loop:
/// sending frames, waiting for writability, and the subscriptions to cancel when it closes.
// @unchecked Sendable: `closed`, `writable`, the waiters and the subscriptions are used
// only under `lock`; `channel` is a NIO channel, safe from any thread.
final class ConnectionOutbox: @unchecked Sendable {
    let channel: Channel
    private let clock: WallClock
    private let lock = NSLock()
    private var closed = false
    private var writable = true
    private var writabilityWaiters: [CheckedContinuation<Void, Never>] = []
    private var subscriptions: [ObjectIdentifier: EventSubscription] = [:]

    init(channel: Channel, clock: WallClock) {
        self.channel = channel
        self.clock = clock
    }

    /// Encodes and writes one frame; a closed connection drops it.
    func send(_ message: ServerMessage, flush: Bool = true) {
        // Skipping the write also keeps late tasks off an event loop that stop() shut down.
        if isClosed { return }
        var buffer = channel.allocator.buffer(capacity: 128)
        WireCodec.encode(message, at: clock.now(), into: &buffer)
        if flush {
            channel.writeAndFlush(buffer, promise: nil)
        } else {
            channel.write(buffer, promise: nil)
        }
    }

    /// Returns false (and the caller cancels) when the connection closed while subscribing.
    func register(_ subscription: EventSubscription) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if closed { return false }
        subscriptions[ObjectIdentifier(subscription)] = subscription
        return true
    }

    func unregister(_ subscription: EventSubscription) {
        lock.lock()
        subscriptions[ObjectIdentifier(subscription)] = nil
        lock.unlock()
    }

    /// Suspends while NIO's outbound buffer is over its high-water mark, so events wait in
    /// the subscription (where progress coalesces) rather than piling up in the channel.
    /// Returns false when the connection closed.
    func waitUntilWritable() async -> Bool {
        let (isClosed, isWritable) = lock.withLock { (closed, writable) }
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
        lock.lock()
        writable = isWritable
        let waiters = isWritable ? takeWaiters() : []
        lock.unlock()
        for waiter in waiters { waiter.resume() }
    }

    /// Called on the event loop when the channel closes: cancels every subscription and
    /// wakes every writer.
    func close() {
        lock.lock()
        closed = true
        let waiters = takeWaiters()
        let open = Array(subscriptions.values)
        subscriptions.removeAll()
        lock.unlock()
        for waiter in waiters { waiter.resume() }
        for subscription in open { subscription.cancel() }
    }

    var isClosed: Bool {
        lock.withLock { closed }
    }

    /// Checks again under the lock, so a change between the first look and now is not missed.
    private func enqueueWaiter(_ continuation: CheckedContinuation<Void, Never>) {
        lock.lock()
        if closed || writable {
            lock.unlock()
            continuation.resume()
            return
        }
        writabilityWaiters.append(continuation)
        lock.unlock()
    }

    private func takeWaiters() -> [CheckedContinuation<Void, Never>] {
        let waiters = writabilityWaiters
        writabilityWaiters.removeAll()
        return waiters
    }
}
