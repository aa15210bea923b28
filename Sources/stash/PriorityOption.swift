import ArgumentParser
import StashClient

/// `--priority high|normal|low` as the CLI reads it.
enum PriorityOption {
    static func parse(_ text: String?) throws -> DownloadPriority {
        guard let text else { return .normal }
        guard let priority = DownloadPriority(name: text) else {
            throw ValidationError("--priority '\(text)' is not a priority; give high, normal or low")
        }
        return priority
    }
}
