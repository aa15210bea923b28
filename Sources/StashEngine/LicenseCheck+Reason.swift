import Foundation
import StashCore

extension LicenseCheck {
    /// Why the licence of download `id` does not let it be played, with what to do about it:
    /// a download's state reason and the error of a request that needs a valid licence.
    func reason(for id: String) -> String {
        switch verdict {
        case .playbackExpired:
            return "the playback window of the licence of '\(id)' has ended; the content cannot be played again"
        case .refused:
            return "the licence server refused to renew the licence of '\(id)'; `stash license get \(id)` asks for a new one"
        case .licenseExpired:
            let when = expiresAt.map { " at " + ISO8601DateFormatter().string(from: $0) } ?? ""
            return "the licence of '\(id)' expired\(when); `stash license renew \(id)` renews it"
        case .none:
            return "download '\(id)' holds no licence; `stash license get \(id)` gets one"
        case .valid:
            return "the licence of '\(id)' is valid"
        }
    }
}
