import Foundation

/// A smoothed transfer rate: an exponentially weighted moving average of the rate between
/// samples, so the speed a client shows neither jumps with every chunk nor lags for long.
struct SpeedMeter: Sendable {
    private var lastBytes: Int64?
    private var lastTime: TimeInterval = 0
    private(set) var bytesPerSecond: Double = 0
    /// Time constant of the average, in seconds.
    private let window: Double

    init(window: Double = 2.0) {
        self.window = window
    }

    mutating func sample(bytes: Int64, at time: TimeInterval) {
        defer { lastBytes = bytes; lastTime = time }
        guard let previous = lastBytes else { return }
        let elapsed = time - lastTime
        guard elapsed > 0.01 else { return }
        // A restart from zero makes the delta negative: that is not a speed.
        let rate = Double(max(0, bytes - previous)) / elapsed
        let weight = 1 - exp(-elapsed / window)
        bytesPerSecond = bytesPerSecond == 0 ? rate : bytesPerSecond + weight * (rate - bytesPerSecond)
    }

    mutating func reset() {
        lastBytes = nil
        bytesPerSecond = 0
    }
}
