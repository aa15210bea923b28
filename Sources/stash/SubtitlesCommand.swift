import ArgumentParser
import Foundation
import StashClient

struct SubtitlesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subtitles",
        abstract: "List, add or remove subtitles: an HLS download's languages, or text tracks (subtitle files) of any download.",
        subcommands: [SubtitlesListCommand.self, SubtitlesAddCommand.self, SubtitlesRemoveCommand.self])
}

struct SubtitlesListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls", abstract: "List the subtitles a download keeps: HLS renditions and text tracks, with their paths in its folder.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The download's id.")
    var id: String

    func run() async throws {
        let client = try await global.connect()
        let (renditions, textTracks) = try await client.allSubtitles(id: id)
        if global.json {
            Output.json([
                "id": id,
                "subtitles": renditions.map { rendition -> [String: Any] in
                    ["language": rendition.language, "name": rendition.name, "default": rendition.isDefault,
                     "forced": rendition.forced, "path": rendition.uri]
                },
                "textTracks": textTracks.map(\.record),
            ])
            return
        }
        guard !renditions.isEmpty || !textTracks.isEmpty else {
            Output.line("\(id) keeps no subtitles")
            return
        }
        var rows = [["LANGUAGE", "NAME", "FLAGS", "PATH"]]
        for rendition in renditions {
            let flags = [rendition.isDefault ? "default" : nil, rendition.forced ? "forced" : nil].compactMap { $0 }
            rows.append([rendition.language.isEmpty ? "und" : rendition.language, rendition.name,
                         flags.isEmpty ? "-" : flags.joined(separator: ","), rendition.uri])
        }
        for track in textTracks {
            rows.append([track.language, track.title.isEmpty ? "-" : track.title, "text-track," + track.type, track.path])
        }
        Format.table(rows).forEach(Output.line)
    }
}

struct SubtitlesAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add subtitle languages to a completed HLS download, or text tracks to any download.",
        discussion: """
            Only the new subtitles are fetched; the video stays. LANG is a comma-separated list \
            (en,es) or all, of the HLS stream's languages. --text-track \
            'uri=URL,lang=es[,title=Español][,type=vtt|srt]' (repeatable) adds a subtitle file \
            to any download instead (a COMPLETED one fetches only it); one it has is skipped.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The download's id.")
    var id: String

    @Argument(help: ArgumentHelp("Languages of the HLS stream, comma-separated, or all.", valueName: "lang"))
    var languages: String?

    @Option(name: .customLong("text-track"), help: ArgumentHelp(
        "A subtitle file to fetch for the download: 'uri=URL,lang=es[,title=Español][,type=vtt|srt]'; repeat for more.",
        valueName: "track"))
    var textTracks: [String] = []

    @Flag(help: "Wait until the new subtitles are on disk, showing progress.")
    var wait = false

    func validate() throws {
        if languages == nil && textTracks.isEmpty {
            throw ValidationError("give the languages of an HLS download, or --text-track for a subtitle file")
        }
        if languages != nil && !textTracks.isEmpty {
            throw ValidationError("give either languages (of an HLS stream) or --text-track, not both")
        }
    }

    func run() async throws {
        let tracks = try textTracks.map(TextTrack.init(spec:))
        let client = try await global.connect()
        let events = wait ? try await client.events(ids: [id]) : nil
        let download = tracks.isEmpty
            ? try await client.addSubtitles(id: id, languages: SubtitlesRemoveCommand.split(languages ?? ""))
            : try await client.addTextTracks(id: id, tracks)
        if let events {
            let completed = try await DownloadWaiter.wait(for: [id], client: client, events: events, json: global.json)
            if !completed { throw ExitCode(ExitStatus.failure) }
        } else if global.json {
            Output.json(download.publicRecord)
        } else if let languages {
            Output.line("\(id) (\(download.state.name)): fetching subtitles \(languages)")
        } else {
            Output.line("\(id) (\(download.state.name)): text tracks \(download.textTracks.map(\.path).joined(separator: ", "))")
        }
    }
}

struct SubtitlesRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Remove subtitles from a download and delete their files (offline).",
        discussion: "LANG names HLS languages and text tracks alike; a text track's file name (es-2) names only that one.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The download's id.")
    var id: String

    @Argument(help: ArgumentHelp("Languages or text track names (es-2), comma-separated.", valueName: "lang"))
    var languages: String

    func run() async throws {
        let client = try await global.connect()
        let download = try await client.removeSubtitles(id: id, languages: Self.split(languages))
        if global.json {
            Output.json(download.publicRecord)
        } else {
            Output.line("\(id): removed subtitles \(languages)")
        }
    }

    static func split(_ list: String) throws -> [String] {
        let languages = list.split(separator: ",").map { $0.trimmingBlanks() }.filter { !$0.isEmpty }
        guard !languages.isEmpty else { throw ValidationError("give one or more languages, e.g. en or en,es") }
        return languages
    }
}
