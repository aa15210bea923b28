import ArgumentParser
import StashClient

/// `--rate-limit RATE` of add and set: `RateText`'s forms, refused as a usage error.
enum RateLimitOption {
    static func parse(_ text: String) throws -> Int64 {
        do {
            return try RateText.parse(text, field: "--rate-limit")
        } catch let error as StashError {
            throw ValidationError(error.message)
        }
    }
}
