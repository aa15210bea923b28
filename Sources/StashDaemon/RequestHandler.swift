import StashCore
import StashWire

/// What the IPC server needs from the engine. The server parses frames, enforces the Hello
/// ordering and the peer check; everything a request means is decided here.
package protocol RequestHandler: Sendable {
    /// Answers one request; errors are in the Result (never throws).
    func handle(_ op: Operation, peer: PeerCredentials) async -> Result<ResponseResult, StashError>
    /// Answers AddDownloads (not appends) that came one after another, in one go: the
    /// answers are in their order, errors in the Results.
    func handleAdds(_ requests: [AddDownloadRequest], peer: PeerCredentials) async -> [Result<ResponseResult, StashError>]
    /// Opens the event stream of a Subscribe request.
    func subscribe(_ request: SubscribeRequest) async throws -> EventSubscription
    /// Answers a request right away, on the connection's event loop, when that needs no
    /// waiting (a read served from a lock-protected snapshot, say); nil passes it to `handle`.
    /// It must not block or suspend. Reads answered here skip two thread hops (into a task
    /// and back to the event loop), which is most of a GetDownload's round trip.
    func handleImmediately(_ op: Operation, peer: PeerCredentials) -> Result<ResponseResult, StashError>?
    /// The clock the answers are sent by: a licence's time left in a record is worked out
    /// from it as the record is encoded.
    var clock: WallClock { get }
}

extension RequestHandler {
    /// Every request goes to `handle` unless a handler says otherwise.
    package func handleImmediately(_ op: Operation, peer: PeerCredentials) -> Result<ResponseResult, StashError>? {
        nil
    }
}
