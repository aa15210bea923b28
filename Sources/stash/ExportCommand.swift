import ArgumentParser
import Foundation
import StashClient

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a completed download as one file (.mp4, .mkv), or an HLS download as a folder any player opens.",
        discussion: """
            To one file: an HLS download is remuxed, without re-encoding, into an MP4 or Matroska \
            file (by TARGET's extension, or --format): its video, each audio rendition and each \
            subtitle as a track with its language, decrypted. A single-file download is copied \
            (--link: hard-linked). The file appears only once it is whole; an existing file is \
            replaced only with --force. Progress is shown on a terminal.

            To a folder (an HLS download, TARGET without .mp4/.m4v/.mkv): TARGET must not exist or \
            be empty. The copy holds master.m3u8, the media playlists and the segments as \
            downloaded, with each AES-128 key next to the playlist that names it; with --decrypt \
            the segments are written decrypted and no key is written. A DASH download is \
            written the same way (manifest.mpd and its segments); with ClearKey CENC, --decrypt \
            and an export to one file decrypt it with the keys of its licence.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The download's id.")
    var id: String

    @Argument(help: ArgumentHelp("The file (or, for an HLS package, the folder) to write.", valueName: "target"))
    var target: String

    @Flag(help: "A folder: write decrypted segments and no key.")
    var decrypt = false

    @Option(help: ArgumentHelp("The file's container: mp4 or mkv (default: from the extension).", valueName: "format"))
    var format: String?

    @Flag(help: "Replace a file at TARGET.")
    var force = false

    @Flag(help: "A single-file download: hard-link TARGET to stash's file instead of copying it.")
    var link = false

    func validate() throws {
        if let format, ExportFormat(rawValue: format.lowercased()) == nil {
            throw ValidationError("--format '\(format)' is not one of \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if decrypt && (format != nil || force || link) {
            throw ValidationError("--decrypt writes a folder; --format, --force and --link write one file")
        }
    }

    func run() async throws {
        let absolute = target.hasPrefix("/") ? target : FileManager.default.currentDirectoryPath + "/" + target
        let client = try await global.connect()
        guard try await toFile(client) else {
            let result = try await client.export(id: id, to: absolute, decrypt: decrypt)
            if global.json {
                Output.json(["dir": result.dir, "files": result.files, "bytes": result.bytes, "decrypted": result.decrypted])
                return
            }
            // The folder holds what the download's kind has at its top: an HLS master playlist or a DASH MPD.
            let top = FileManager.default.fileExists(atPath: result.dir + "/manifest.mpd") ? "manifest.mpd" : "master.m3u8"
            Output.line("exported \(id) to \(result.dir)/\(top): \(result.files) files, \(Format.bytes(result.bytes))\(result.decrypted ? ", decrypted" : "")")
            return
        }
        let progress = !global.json && isatty(STDERR_FILENO) == 1 ? ExportProgressLine(id: id, file: absolute) : nil
        // Subscribed before the export starts, so its first percent is seen.
        let events = progress == nil ? nil : try await client.events(ids: [id])
        let shown = Task {
            guard let events, let progress else { return }
            for try await event in events {
                if case .exportProgress(let update) = event.kind, update.file == absolute { progress.show(update) }
            }
        }
        let outcome: Result<ExportResult, Error>
        do {
            outcome = .success(try await client.export(
                id: id, toFile: absolute, format: format.flatMap { ExportFormat(rawValue: $0.lowercased()) }, force: force, link: link))
        } catch {
            outcome = .failure(error)
        }
        // No line drawn after it is cleared.
        shown.cancel()
        _ = await shown.result
        progress?.clear()
        let result = try outcome.get()
        if global.json {
            Output.json([
                "file": result.file, "bytes": result.bytes, "format": result.format?.rawValue ?? "copy", "linked": result.linked,
                "tracks": result.tracks.map { ["kind": $0.kind.rawValue, "language": $0.language, "codec": $0.codec, "title": $0.title] },
            ])
            return
        }
        let how = result.linked ? "linked" : result.format == nil ? "copied" : "remuxed"
        Output.line("exported \(id) to \(result.file): \(Format.bytes(result.bytes)), \(how)")
        for track in result.tracks {
            Output.line("  \(track.kind.rawValue) \(track.language) \(track.codec)\(track.title.isEmpty ? "" : " \"\(track.title)\"")")
        }
    }

    /// One file unless TARGET names a folder for an HLS package: --decrypt, or no file option
    /// and no file extension for an HLS download.
    private func toFile(_ client: StashClient) async throws -> Bool {
        if decrypt { return false }
        if format != nil || force || link || ExportFormat(fileName: target) != nil { return true }
        return try await client.getDownload(id: id).hls == nil
    }
}
