import ArgumentParser
import Foundation
import StashClient

struct LicenseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "license",
        abstract: "Get, check, renew or release the licence of a download with DRM.",
        discussion: """
            A download added with --drm-type and --license-server gets its content keys from the \
            licence server. `get` asks for a licence (also before or during the download), \
            `check` says whether it is valid and for how long, `renew` extends it (a refusal \
            makes the download DRM_EXPIRED), `release` deletes the keys and tells the server \
            (kept and retried, across restarts, until the server acknowledges).
            """,
        subcommands: [LicenseGetCommand.self, LicenseCheckCommand.self, LicenseRenewCommand.self, LicenseReleaseCommand.self])

    /// One licence status, as text or as a JSON object.
    static func print(_ status: LicenseStatus, json: Bool) {
        if json {
            Output.json(record(status))
            return
        }
        Output.line("\(status.id): \(summary(status)), state \(status.state.name)")
    }

    /// "valid, 1 key(s), licence 59m left, …": what `check` and `show` say of a licence.
    static func summary(_ status: LicenseStatus) -> String {
        var parts = [status.check.verdict.rawValue]
        if let terms = status.terms {
            parts.append("\(terms.kids.count) key(s)")
            parts.append(status.check.licenseSecondsLeft.map { "licence \(Format.duration($0)) left" } ?? "licence never expires")
            if let playback = status.check.playbackSecondsLeft {
                parts.append("playback window \(Format.duration(playback)) left\(terms.firstPlaybackAt == nil ? " (not started)" : "")")
            }
        }
        return parts.joined(separator: ", ")
    }

    static func record(_ status: LicenseStatus) -> [String: Any] {
        var record: [String: Any] = [
            "id": status.id, "valid": status.isValid, "verdict": status.check.verdict.rawValue, "state": status.state.name,
        ]
        if let left = status.check.licenseSecondsLeft { record["licenseSecondsLeft"] = left }
        if let left = status.check.playbackSecondsLeft { record["playbackSecondsLeft"] = left }
        if let terms = status.terms {
            record["keyIds"] = terms.kids
            record["acquiredAt"] = terms.acquiredAt.ISO8601Format()
            if let expires = terms.expiresAt { record["expiresAt"] = expires.ISO8601Format() }
            if let first = terms.firstPlaybackAt { record["firstPlaybackAt"] = first.ISO8601Format() }
        }
        return record
    }
}

struct LicenseGetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "get", abstract: "Get a licence (the content keys) for a download.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The download's id.")
    var id: String

    func run() async throws {
        let client = try await global.connect()
        LicenseCommand.print(try await client.downloadLicense(id: id), json: global.json)
    }
}

struct LicenseCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check", abstract: "Whether a download's licence is valid, and the time left of it and of its playback window.",
        discussion: "Exits 0 when the licence is valid, 1 when it is not.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The download's id.")
    var id: String

    func run() async throws {
        let client = try await global.connect()
        let status = try await client.checkLicense(id: id)
        LicenseCommand.print(status, json: global.json)
        if !status.isValid { throw ExitCode(ExitStatus.failure) }
    }
}

struct LicenseRenewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "renew", abstract: "Ask the licence server to extend a download's licence.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The download's id.")
    var id: String

    func run() async throws {
        let client = try await global.connect()
        LicenseCommand.print(try await client.renewLicense(id: id), json: global.json)
    }
}

struct LicenseReleaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "release", abstract: "Delete a download's content keys and tell the licence server.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The download's id.")
    var id: String?

    @Flag(help: "Release every licence the daemon holds.")
    var all = false

    func validate() throws {
        if (id == nil) == !all { throw ValidationError("give a download id or --all") }
    }

    func run() async throws {
        let client = try await global.connect()
        if all {
            let count = try await client.releaseAllLicenses()
            if global.json { Output.json(["released": count]) } else { Output.line("released \(count) licence(s)") }
            return
        }
        LicenseCommand.print(try await client.releaseLicense(id: id!), json: global.json)
    }
}
