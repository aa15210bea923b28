/// Events a subscriber fell too far behind to be kept: it was not reading while more than
/// `EventSubscription.maxBacklog` events waited for it. Events `firstSeq...lastSeq` (`count`
/// of them that were meant for it) were dropped; the stream goes on after `lastSeq`. A client
/// resyncs by subscribing again with `replay_from = firstSeq` while the daemon still keeps
/// those events, or else by reading the downloads again (ListDownloads, GetDownload).
public struct EventsLost: Equatable, Sendable {
    public var firstSeq: UInt64
    public var lastSeq: UInt64
    public var count: Int

    public init(firstSeq: UInt64, lastSeq: UInt64, count: Int) {
        self.firstSeq = firstSeq
        self.lastSeq = lastSeq
        self.count = count
    }
}
