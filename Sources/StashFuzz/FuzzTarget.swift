/// The inputs stash takes from outside, each as one function a fuzzer can call with any
/// bytes. Whatever the bytes, a target may throw away the input (every parser answers bad
/// input with an error) but must never trap: a trap here is a dead daemon there.
///
/// The targets reach the parsers' internal types through `@testable import`, which only
/// debug builds allow (`make fuzz` builds debug with optimisation and libFuzzer's
/// instrumentation); in a release build `run` does nothing.
package enum FuzzTarget: String, CaseIterable, Sendable {
    /// A byte stream from a client (or the daemon): frames, each decoded as a Request and as
    /// a ServerMessage.
    case frames
    /// An HLS playlist, master or media, and what `stash plan` and planning derive from it.
    case m3u8
    /// A licence server's answer (ClearKey JSON).
    case license
    /// An HTTP response's header block: status line, Content-Length, Content-Range,
    /// Retry-After, and the resume decision and retry delay made from them.
    case headers
    /// A path from a client: the rule for paths inside an asset folder (bundle files) and for
    /// absolute ones (Adopt, Forget, Export): checked, resolved, and held against a data dir.
    case paths
    /// A service manager's `LISTEN_PID` and `LISTEN_FDS` (socket activation).
    case activation
    /// A subtitle segment or file an export to one file reads (X-TIMESTAMP-MAP, cues).
    case subtitles
    /// A DASH MPD, its representations' segments, and the same bytes as a `sidx` box.
    case mpd
    /// A CENC initialization segment and media segment, as a decrypting export reads them.
    case cenc

    package func run(_ bytes: UnsafeRawBufferPointer) {
        #if DEBUG
        switch self {
        case .frames: Self.frames(bytes)
        case .m3u8: Self.m3u8(bytes)
        case .license: Self.license(bytes)
        case .headers: Self.headers(bytes)
        case .paths: Self.paths(bytes)
        case .activation: Self.activation(bytes)
        case .subtitles: Self.subtitles(bytes)
        case .mpd: Self.mpd(bytes)
        case .cenc: Self.cenc(bytes)
        }
        #endif
    }
}
