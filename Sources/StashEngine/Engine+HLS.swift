import Foundation
import StashCore
import StashFetch
import StashKeys

extension Engine {
    var hlsPreparation: HLSPreparation {
        HLSPreparation(fetch: fetch, keys: keys, licenses: licenses.client(config), retry: RetryPolicy(config),
                       lowSpeedLimit: config.lowSpeedLimit, lowSpeedTime: config.lowSpeedTime, clock: clock)
    }

    /// What the stream at `uri` offers (`stash plan`); nothing is stored.
    package func manifestInfo(uri: String, headers: [HTTPHeader]) async throws -> ManifestInfo {
        try DownloadRequestRules.validateURI(uri)
        try DownloadRequestRules.validateHeaders(headers)
        let preparation = hlsPreparation
        do {
            return try await preparation.manifest(uri: uri, headers: headers)
        } catch let error as DownloadError {
            // A stream that is not valid HLS is the caller's input; a server that fails is not.
            throw StashError(error.kind == .validation ? .invalidArgument : .unavailable, error.message)
        }
    }

    /// Writes a completed HLS download as a folder an ordinary player opens offline.
    package func export(id: String, to dir: String, decrypt: Bool) async throws -> ExportResult {
        guard let entry = entries[id] else { throw StashError.notFound(id: id) }
        let download = entry.download
        guard download.hls != nil else {
            throw StashError(.failedPrecondition, "download '\(id)' is not an HLS download; its files are already at \(layout.absolute(download.assetPath))")
        }
        if !download.licenseKeyIDs.isEmpty {
            let check = download.license?.check(at: clock.now()) ?? LicenseCheck(verdict: .none, licenseSecondsLeft: nil, playbackSecondsLeft: nil, expiresAt: nil)
            guard check.isValid else { throw StashError(.failedPrecondition, check.reason(for: id)) }
        }
        guard download.state == .completed else {
            throw StashError(.failedPrecondition, "download '\(id)' is \(download.state.name), not COMPLETED; export it once it has completed")
        }
        var keyIDs: [String: String] = [:]
        for path in download.hlsKeys { keyIDs[path] = download.keyStoreID(forKeyPath: path) }
        let exporter = PackageExporter(
            keys: keys, dataDir: layout.dataDir, asset: id, folder: layout.assetFolder(id: id), playlists: download.hlsPlaylists, keyIDs: keyIDs,
            textTrackPaths: download.textTracks.map(\.path))
        return try await files.run { try exporter.export(to: dir, decrypt: decrypt) }
    }
}
