import Foundation

/// A random generator whose sequence a seed fixes (SplitMix64), so a failing random test can be
/// replayed: `seeded()` takes the seed from `STASH_TEST_SEED` when set, else a fresh one, and
/// prints it.
package struct SeededRandom: RandomNumberGenerator {
    package let seed: UInt64
    private var state: UInt64

    package init(seed: UInt64) {
        self.seed = seed
        state = seed
    }

    /// `test` names the test in the printed line.
    package static func seeded(_ test: String = #function) -> SeededRandom {
        let fromEnvironment = ProcessInfo.processInfo.environment["STASH_TEST_SEED"].flatMap { UInt64($0) }
        let seed = fromEnvironment ?? UInt64.random(in: 0...UInt64.max)
        print("\(test): seed \(seed) (replay with STASH_TEST_SEED=\(seed))")
        return SeededRandom(seed: seed)
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
