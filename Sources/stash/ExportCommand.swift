import ArgumentParser
import Foundation
import StashClient

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a completed HLS download to a folder any player opens offline.",
        discussion: """
            DIR must not exist or be empty. The copy holds master.m3u8, the media playlists and \
            the segments as downloaded, with each AES-128 key next to the playlist that names it; \
            with --decrypt the segments are written decrypted and no key is written.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The download's id.")
    var id: String

    @Argument(help: ArgumentHelp("The folder to write.", valueName: "dir"))
    var dir: String

    @Flag(help: "Write decrypted segments and no key.")
    var decrypt = false

    func run() async throws {
        let absolute = dir.hasPrefix("/") ? dir : FileManager.default.currentDirectoryPath + "/" + dir
        let client = try await global.connect()
        let result = try await client.export(id: id, to: absolute, decrypt: decrypt)
        if global.json {
            Output.json(["dir": result.dir, "files": result.files, "bytes": result.bytes, "decrypted": result.decrypted])
            return
        }
        Output.line("exported \(id) to \(result.dir)/master.m3u8: \(result.files) files, \(Format.bytes(result.bytes))\(result.decrypted ? ", decrypted" : "")")
    }
}
