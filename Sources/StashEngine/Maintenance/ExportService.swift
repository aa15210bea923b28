import Foundation
import Logging
import StashCore
import StashKeys
import StashRemux

/// Export: a completed download written for players outside stash. To a folder (`dir`), the
/// package as a player opens it, with its keys or decrypted (`PackageExporter`); to one file
/// (`file`), an HLS download remuxed without re-encoding into MP4 or Matroska (`PackageRemux`,
/// `Remuxer`) or a single-file download copied or hard-linked (`SingleFileExport`), written
/// whole or not at all (`ExportFile`). The blocking work runs on the `FilePool`; an export to
/// a file announces its progress (`exportProgress`) on the event stream, from the engine's
/// actor like every other event, so they keep their order. It changes no download.
struct ExportService: Sendable {
    let layout: AssetLayout
    let keys: KeyStore
    let files: FilePool
    /// Where the progress events go out, in order with the others.
    let commits: CommitQueue
    let clock: WallClock
    let logger: Logger

    func export(_ order: ExportOrder, host: some MaintenanceHost) async throws -> ExportResult {
        try order.validate()
        guard let download = await host.download(order.id) else { throw StashError.notFound(id: order.id) }
        if order.file.isEmpty {
            guard download.hls != nil else {
                throw StashError(.failedPrecondition, "download '\(order.id)' is not an HLS download; its files are already at \(layout.absolute(download.assetPath))")
            }
            try checkExportable(download)
            let isDASH = download.isDASHPackage
            let exporter = PackageExporter(
                keys: keys, dataDir: layout.dataDir, asset: download.id, folder: layout.assetFolder(id: download.id),
                playlists: download.hlsPlaylists, keyIDs: keyIDs(of: download), textTrackPaths: download.textTracks.map(\.path),
                dashPaths: isDASH ? download.files.map(\.path).filter { path in !download.textTracks.contains { $0.path == path } } : [])
            let (dir, decrypt) = (order.dir, order.decrypt)
            return try await files.run { try exporter.export(to: dir, decrypt: decrypt) }
        }
        let kind: FileExport.Kind
        if download.hls != nil {
            guard !order.link else {
                throw StashError.invalidArgument("link applies to a single-file download; '\(order.id)' is an HLS download, which is remuxed into a new file")
            }
            guard let format = order.format ?? ExportFormat(fileName: order.file) else {
                let name = String((order.file.split(separator: "/").last ?? "").prefix(200))
                throw StashError.invalidArgument(
                    "file '\(name)' does not end in .mp4, .m4v or .mkv; name the file so, or give format (mp4 or mkv)")
            }
            try checkExportable(download)
            kind =
                download.isDASHPackage
                ? .remuxDASH(format: format, tracks: try DASHRemux.tracks(of: download), keyIDs: keyIDs(of: download), textTracks: download.textTracks)
                : .remux(format: format, keyIDs: keyIDs(of: download), textTracks: download.textTracks)
        } else if download.isBundle {
            throw StashError(.failedPrecondition, "download '\(order.id)' is a bundle of \(download.filesTotal) files; one file is made of an HLS download or a single file (`stash forget --move-to` hands a bundle's files over)")
        } else {
            guard order.format == nil else {
                throw StashError.invalidArgument("format applies to an HLS download; '\(order.id)' is a single file, which is copied as it is")
            }
            guard let file = download.files.first?.path else {
                throw StashError(.failedPrecondition, "download '\(order.id)' has no file to export")
            }
            try checkExportable(download)
            kind = order.link ? .link(file: file) : .copy(file: file)
        }
        let export = FileExport(
            id: download.id, kind: kind, target: order.file, force: order.force, dataDir: layout.dataDir,
            folder: layout.assetFolder(id: download.id), keys: keys)
        let result = try await run(export, host: host)
        logger.info(
            "download exported to one file",
            metadata: ["id": "\(download.id)", "file": "\(result.file)", "bytes": "\(result.bytes)", "format": "\(result.format?.rawValue ?? "copy")"])
        return result
    }

    /// Runs `export` on the file pool while its progress goes out from the engine's actor,
    /// the last of it before the answer.
    private func run(_ export: FileExport, host: some MaintenanceHost) async throws -> ExportResult {
        let (progress, announce) = AsyncStream.makeStream(of: ExportProgress.self, bufferingPolicy: .bufferingNewest(1))
        let commits = self.commits
        let announcer = Task {
            for await update in progress { await Self.publish(update, on: host, commits: commits) }
        }
        do {
            let result = try await files.run { try export.run { announce.yield($0) } }
            announce.finish()
            await announcer.value
            return result
        } catch {
            announce.finish()
            await announcer.value
            throw error
        }
    }

    /// On the engine's actor, where every other event is submitted.
    private static func publish(_ update: ExportProgress, on host: isolated some MaintenanceHost, commits: CommitQueue) {
        commits.submit(nil, event: .exportProgress(update))
    }

    /// A download whose files are all there and whose keys may be used now.
    private func checkExportable(_ download: Download) throws {
        if !download.licenseKeyIDs.isEmpty {
            let check = download.license?.check(at: clock.now()) ?? LicenseCheck(verdict: .none, licenseSecondsLeft: nil, playbackSecondsLeft: nil, expiresAt: nil)
            guard check.isValid else { throw StashError(.failedPrecondition, check.reason(for: download.id)) }
        }
        guard download.state == .completed else {
            throw StashError(.failedPrecondition, "download '\(download.id)' is \(download.state.name), not COMPLETED; export it once it has completed")
        }
    }

    private func keyIDs(of download: Download) -> [String: String] {
        var keyIDs: [String: String] = [:]
        for path in download.hlsKeys { keyIDs[path] = download.keyStoreID(forKeyPath: path) }
        return keyIDs
    }
}
