import Foundation
import StashCore
import StashFetch
import XCTest

/// Collects a transfer's events (they arrive on the fetch thread) and lets a test wait for
/// the final one.
final class EventRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var received: [FetchEvent] = []
    let finished = XCTestExpectation(description: "final fetch event")
    private let onEvent: (@Sendable (FetchEvent) -> Void)?

    init(onEvent: (@Sendable (FetchEvent) -> Void)? = nil) {
        self.onEvent = onEvent
    }

    var events: [FetchEvent] { lock.withLock { received } }

    var handler: @Sendable (FetchEvent) -> Void {
        { [self] event in
            let finals = lock.withLock { () -> Int in
                received.append(event)
                return received.filter(\.isFinal).count
            }
            onEvent?(event)
            if event.isFinal {
                XCTAssertEqual(finals, 1, "more than one final event: \(events)")
                finished.fulfill()
            }
        }
    }

    var finalEvent: FetchEvent? { events.last(where: \.isFinal) }

    var started: [FetchResponseInfo] {
        events.compactMap { if case .started(let info) = $0 { return info } else { return nil } }
    }

    var retries: [(attempt: Int, delayMs: Int, error: DownloadError)] {
        events.compactMap {
            if case .retrying(let attempt, let delay, let error) = $0 { return (attempt, delay, error) }
            return nil
        }
    }
}
