/// Polls `condition` until it holds, on the monotonic clock; after `timeout` throws
/// `WaitTimeout` naming `what`. The deadline is generous on purpose: a loaded machine makes a
/// condition come later, never makes a test wait longer when it comes early.
package func eventually(
    _ what: @autoclosure () -> String, timeout: Duration = .seconds(30), every interval: Duration = .milliseconds(10),
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw WaitTimeout("waited \(timeout) for \(what())") }
        try await Task.sleep(for: interval)
    }
}
