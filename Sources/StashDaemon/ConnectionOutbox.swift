import Foundation
import NIOCore
import StashCore
import StashWire

/// The part of a connection that request and subscription tasks share with the event loop:
/// sending frames, waiting for writability, and the subscriptions to cancel when it closes.
///
/// A frame sent from a task reaches NIO's outbound buffer, where the high-water mark sees it,
/// only once the event loop runs the write; until then it is counted here (`inTransit`).
/// Without that, a subscription replaying 4,096 events of 4 KB queued them all on the loop
/// before the channel said it was full: 18 MB for one subscriber that never read.
// @unchecked Sendable: `closed`, `writable`, `inTransit`, the waiters and the subscriptions
// are used only under `lock`; `channel` is a NIO channel, safe from any thread.
final class ConnectionOutbox: @unchecked Sendable {
    let channel: Channel
    /// Bytes sent but not yet in NIO's buffer past which a subscription waits, as for NIO's
    /// own high-water mark (64 KiB).
    static let transitLimit = 64 * 1024
    private let lock = NSLock()
    private var closed = false
    private var writable = true
    private var inTransit = 0
    private var writabilityWaiters: [CheckedContinuation<Void, Never>] = []
    private var subscriptions: [ObjectIdentifier: EventSubscription] = [:]

    init(channel: Channel) {
        self.channel = channel
    }

    /// Encodes and writes one frame; a closed connection drops it.
    func send(_ message: ServerMessage, flush: Bool = true) {
        // Skipping the write also keeps late tasks off an event loop that stop() shut down.
        if isClosed { return }
        var buffer = channel.allocator.buffer(capacity: 128)
        WireCodec.encode(message, into: &buffer)
        let frame = buffer
        let size = frame.readableBytes
        lock.withLock { inTransit += size }
        let channel = self.channel
        channel.eventLoop.execute {
            channel.write(frame, promise: nil)
            if flush { channel.flush() }
            self.arrived(size)
        }
    }

    /// On the event loop: `size` bytes are now in NIO's buffer.
    private func arrived(_ size: Int) {
        lock.lock()
        inTransit -= size
        let waiters = mayWrite ? takeWaiters() : []
        lock.unlock()
        for waiter in waiters { waiter.resume() }
    }

    /// With the lock held.
    private var mayWrite: Bool { writable && inTransit < Self.transitLimit }

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

    /// Suspends while NIO's outbound buffer is over its high-water mark or too much is on its
    /// way to it, so events wait in the subscription (where progress coalesces) rather than
    /// piling up in the channel. Returns false when the connection closed.
    func waitUntilWritable() async -> Bool {
        let (isClosed, isWritable) = lock.withLock { (closed, mayWrite) }
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
        let waiters = mayWrite ? takeWaiters() : []
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
        if closed || mayWrite {
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
