import StashCore

extension StashError {
    /// The answer to an op this daemon does not know: the client is newer than the daemon,
    /// and saying which daemon it reached tells the user what to upgrade.
    static let unknownOperation = StashError(
        .unimplemented,
        "operation not supported by this daemon (stashd \(StashVersion.daemon), protocol \(StashVersion.protocolVersion)): "
            + "the client is newer than stashd; upgrade stashd, or check Hello's features before using an optional operation")
}
