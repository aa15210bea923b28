// The daemon's plumbing as an app of another package would reach for it through StashClient.
// scripts/check-client-api.py (make test) compiles this outside the package: every statement
// of `plumbing` must fail to compile, or something of the daemon's has become part of the API
// apps build on. Never run.
import StashClient

func plumbing(download: Download, file: DownloadFile, terms: LicenseTerms, track: TextTrack) {
    _ = BatchQueue<Int>.self
    _ = PendingBatch<Int>.self
    _ = LockFile.self
    _ = SystemCallError.self
    _ = UnixSocketAddress.self
    _ = EventSubscription.self
    _ = WallClock.self
    _ = RetryPolicy.self
    _ = DownloadRequestRules.self
    _ = BundleRules.self
    _ = HLSRules.self
    _ = DRMRules.self
    _ = TextTrackRules.self
    _ = LicenseRelease.self
    _ = StashCore.LockFile.self
    _ = WireCodec.self
    _ = FrameDecoder.self
    _ = FrameError.self
    _ = Request.self
    _ = Operation.self
    _ = Response.self
    _ = ResponseResult.self
    _ = ServerMessage.self
    _ = HelloRequest.self
    _ = ListDownloadsRequest.self
    _ = SubscribeRequest.self
    _ = GroupRequest.self
    _ = ExportRequest.self
    _ = VerifyRequest.self
    _ = ConfigEntry.self
    _ = StashWire.WireCodec.self
    _ = HelloResult(features: [])
    _ = download.hlsKeys
    _ = download.hlsPlaylists
    _ = download.licenseKeyIDs
    _ = download.licenseKids
    _ = download.keyStoreID(forKeyPath: "key.bin")
    _ = Download.licenseKeyStoreID("kid")
    _ = download.contentFiles
    _ = file.etag
    _ = file.host
    _ = terms.renewalDue
    _ = terms.check(at: terms.acquiredAt)
    _ = { (totals: inout GroupTotals) in totals.add(download) }
    _ = track.stem
    _ = StashError.connectionFailure("made by the client library")
    _ = StashError.notFound(id: "a")
    _ = StashPaths.defaultDataDir()
    _ = Int64(1).addingSaturating(1)
    _ = [download].saturatingSum(\.speed)
    _ = "https://user:secret@example.org".withoutURLSecrets
}
