import CStashProto
import StashCore

extension DownloadState {
    /// Raw values are the wire numbers by design (DESIGN.md), so the mapping is the identity.
    var wire: Stash__V1__DownloadState {
        Stash__V1__DownloadState(rawValue: numericCast(rawValue))
    }

    /// A number this version does not know is refused rather than guessed: a newer daemon's
    /// state read as an old one would mislead the client.
    init(wire: Stash__V1__DownloadState, field: StaticString) throws {
        // protobuf-c stores whatever int32 was sent; read it back as one.
        let raw = Int32(truncatingIfNeeded: wire.rawValue)
        guard let state = DownloadState(rawValue: Int(raw)) else {
            throw StashError.invalidArgument(
                "\(field): unknown DownloadState value \(raw); known values are 0...\(DownloadState.allCases.count - 1)")
        }
        self = state
    }
}
