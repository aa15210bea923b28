import ArgumentParser
import Foundation
import StashClient

struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one download.",
        discussion: "Text: one 'key: value' line per field. --json: the public record. Exit 1 when there is no such download.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The download's id.", valueName: "id"))
    var id: String

    func run() async throws {
        let client = try await global.connect()
        let download = try await client.getDownload(id: id)
        if global.json {
            Output.json(download.publicRecord)
            return
        }
        var fields: [(String, String)] = [
            ("id", download.id),
            ("uri", download.isBundle ? "(bundle)" : download.uri),
            ("title", download.title),
            ("state", download.state.name + (download.stateReason.isEmpty ? "" : " (\(download.stateReason))")),
            ("progress", "\(download.progressPercent)%"),
            ("downloaded", "\(Format.bytes(download.downloadedBytes)) (\(download.downloadedBytes) bytes)"),
            ("total", download.totalBytes.map { "\(Format.bytes($0)) (\($0) bytes)" } ?? "unknown"),
            ("speed", Format.speed(download.speed)),
            ("remaining", download.remainingTime.map { Format.duration($0) } ?? "unknown"),
            ("quality", download.quality),
            ("subtitles", download.hasSubtitles ? "yes" : "no"),
            ("drm", download.drm.map { "\($0.kind.rawValue), licence server \($0.licenseServer)" } ?? (download.hasDRM ? "yes" : "no")),
            ("licence", download.license == nil ? "none held" : LicenseCommand.summary(LicenseStatus(download, at: Date()))),
            ("asset path", download.assetPath),
            ("group", download.group.isEmpty ? "none" : download.group),
            ("rate limit", download.rateLimit == 0 ? "none" : "\(Format.speed(download.rateLimit)) (\(RateText.format(download.rateLimit)))"),
            ("priority", download.priority.name),
            ("app data", download.appData.isEmpty ? "none" : "\(download.appData.count) bytes (--json shows them)"),
            ("error", download.error.map(Self.describe) ?? "none"),
            ("created", download.createdAt.ISO8601Format()),
            ("completed", download.completedAt.map { $0.ISO8601Format() } ?? "not yet"),
        ]
        if let network = download.network { fields.append(("network", network.rawValue)) }
        if let onBattery = download.onBattery { fields.append(("on battery", onBattery.rawValue)) }
        if !download.sha256.isEmpty { fields.append(("sha256", download.sha256)) }
        if let rules = Self.rules(expect: download.expect, minSize: download.minSize) { fields.append(("expect", rules)) }
        for header in download.headers { fields.append(("header", "\(header.name): \(header.value)")) }
        for header in download.drm?.headers ?? [] { fields.append(("licence header", "\(header.name): \(header.value)")) }
        for track in download.textTracks {
            let title = track.title.isEmpty ? "" : " \"\(track.title)\""
            fields.append(("text track", "\(track.language)\(title) \(track.type) \(track.path) \(track.uri)"))
        }
        if let hls = download.hls {
            fields.append(("hls", hls.summary))
            // The segments are known once the playlists are read (PREPARING until then).
            fields.append(("segments", download.filesTotal == 0 && download.state == .preparing
                ? "counted once the playlists are read" : "\(download.filesDone) of \(download.filesTotal) done"))
        }
        if download.isBundle {
            fields.append(("files", "\(download.filesDone) of \(download.filesTotal) done"))
            for file in download.files {
                let size = file.size.map { Format.bytes($0) } ?? "size unknown"
                let status = file.done ? "done" : "\(Format.bytes(file.downloadedBytes)) of \(size)"
                let rules = file.expect == download.expect && file.minSize == download.minSize ? nil : Self.rules(expect: file.expect, minSize: file.minSize)
                fields.append(("file", "\(file.path) \(status) \(file.url)" + (rules.map { " (expect \($0))" } ?? "")))
            }
        }
        for (key, value) in fields { Output.line("\(key): \(value)") }
    }

    /// "image, at least 1000 bytes"; nil when there is no rule.
    static func rules(expect: String, minSize: Int64) -> String? {
        let parts = (expect.isEmpty ? [] : [expect]) + (minSize > 0 ? ["at least \(minSize) bytes"] : [])
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// The error with its HTTP status, unless its message says the status already.
    static func describe(_ error: DownloadError) -> String {
        error.httpStatus > 0 && !error.message.contains("HTTP \(error.httpStatus)") ? "\(error) (HTTP \(error.httpStatus))" : "\(error)"
    }
}
