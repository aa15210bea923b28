import ArgumentParser
import Foundation
import StashClient

struct SubtitlesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subtitles",
        abstract: "List, add or remove the subtitle languages of an HLS download.",
        subcommands: [SubtitlesListCommand.self, SubtitlesAddCommand.self, SubtitlesRemoveCommand.self])
}

struct SubtitlesListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ls", abstract: "List the subtitle languages a download keeps.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The download's id.")
    var id: String

    func run() async throws {
        let client = try await global.connect()
        let renditions = try await client.subtitles(id: id)
        if global.json {
            Output.json(["id": id, "subtitles": renditions.map { rendition -> [String: Any] in
                ["language": rendition.language, "name": rendition.name, "default": rendition.isDefault,
                 "forced": rendition.forced, "path": rendition.uri]
            }])
            return
        }
        guard !renditions.isEmpty else {
            Output.line("\(id) keeps no subtitles")
            return
        }
        var rows = [["LANGUAGE", "NAME", "FLAGS", "PLAYLIST"]]
        for rendition in renditions {
            let flags = [rendition.isDefault ? "default" : nil, rendition.forced ? "forced" : nil].compactMap { $0 }
            rows.append([rendition.language.isEmpty ? "und" : rendition.language, rendition.name,
                         flags.isEmpty ? "-" : flags.joined(separator: ","), rendition.uri])
        }
        Format.table(rows).forEach(Output.line)
    }
}

struct SubtitlesAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add subtitle languages to a completed HLS download.",
        discussion: "Only the new subtitles are fetched; the video stays. LANG is a comma-separated list (en,es) or all.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The download's id.")
    var id: String

    @Argument(help: ArgumentHelp("Languages, comma-separated, or all.", valueName: "lang"))
    var languages: String

    @Flag(help: "Wait until the new subtitles are on disk, showing progress.")
    var wait = false

    func run() async throws {
        let client = try await global.connect()
        let events = wait ? try await client.events(ids: [id]) : nil
        let download = try await client.addSubtitles(id: id, languages: SubtitlesRemoveCommand.split(languages))
        if let events {
            let completed = try await DownloadWaiter.wait(for: [id], client: client, events: events, json: global.json)
            if !completed { throw ExitCode(ExitStatus.failure) }
        } else if global.json {
            Output.json(download.publicRecord)
        } else {
            Output.line("\(id) (\(download.state.name)): fetching subtitles \(languages)")
        }
    }
}

struct SubtitlesRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Remove subtitle languages from an HLS download and delete their files.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The download's id.")
    var id: String

    @Argument(help: ArgumentHelp("Languages, comma-separated.", valueName: "lang"))
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
        let languages = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !languages.isEmpty else { throw ValidationError("give one or more languages, e.g. en or en,es") }
        return languages
    }
}
