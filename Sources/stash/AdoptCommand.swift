import ArgumentParser
import Foundation
import StashClient

struct AdoptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adopt",
        abstract: "Take a file or folder already on disk as a COMPLETED download.",
        discussion: """
            The files are moved into the data dir (hard-linked with --link), their sizes \
            recorded, and from then on they are a download like any other: watched, verified, \
            exported. A file with --url is a single-file download of that URL (resume fetches it \
            again from there if it is lost); without, and a folder, it is a bundle. With --sha256 \
            the file is checked first. Symlinks are not followed.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The file or folder.")
    var path: String

    @Option(help: ArgumentHelp("The download's id.", valueName: "id"))
    var id: String

    @Option(help: ArgumentHelp("Where the file came from.", valueName: "url"))
    var url: String = ""

    @Option(help: ArgumentHelp("The file's expected SHA-256, in hex.", valueName: "hex"))
    var sha256: String = ""

    @Flag(help: "Hard-link the files instead of moving them (same file system only).")
    var link = false

    func run() async throws {
        let client = try await global.connect()
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let download = try await client.adopt(AdoptRequest(path: absolute, id: id, url: url, sha256: sha256, link: link))
        if global.json {
            Output.json(download.publicRecord)
        } else {
            Output.line("adopted \(download.id) (\(download.state.name)): \(download.filesTotal) file(s), \(download.downloadedBytes) bytes at \(download.assetPath)")
        }
    }
}
