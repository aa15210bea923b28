/// A content key handed to a same-uid player for offline playback (GetPlaybackKey).
/// Deliberately not `CustomStringConvertible`-friendly: never log or print one.
public struct PlaybackKey: Equatable, Sendable {
    public var key: [UInt8]
    /// Base64url key id.
    public var keyID: String
    /// nil: no playback window.
    public var playbackSecondsLeft: Int64?

    public init(key: [UInt8], keyID: String, playbackSecondsLeft: Int64?) {
        self.key = key
        self.keyID = keyID
        self.playbackSecondsLeft = playbackSecondsLeft
    }
}
