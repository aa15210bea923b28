import ArgumentParser
import Foundation
import StashClient

struct AddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a download (or one per line of a file).",
        discussion: """
            Prints the added download (text, or its JSON record with --json). Adding an id \
            that already exists with the same URL is not an error: the existing download is \
            printed. With --wait, follows the downloads until each has COMPLETED (exit 0) or \
            FAILED (exit 1), drawing progress bars on a terminal or printing JSON records \
            otherwise.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The http:// or https:// URL to download.", valueName: "url"))
    var url: String?

    @Option(name: .customLong("from-file"), help: ArgumentHelp(
        "Add one download per URL in this file; blank lines and lines starting with # are skipped, ids are chosen by the daemon.",
        valueName: "list"))
    var fromFile: String?

    @Option(help: ArgumentHelp("The download's id (letters, digits, '.', '_', '-'); chosen by the daemon when absent.", valueName: "id"))
    var id: String?

    @Option(help: ArgumentHelp("A title to show instead of the URL.", valueName: "title"))
    var title: String?

    @Option(help: ArgumentHelp("The expected SHA-256 of the file, in hex; a mismatch fails the download.", valueName: "hex"))
    var sha256: String?

    @Option(name: .customLong("header"), help: ArgumentHelp("A request header, 'Name: value'; repeat for more.", valueName: "header"))
    var headers: [String] = []

    @Flag(help: "Wait until the downloads complete or fail, showing progress.")
    var wait = false

    func validate() throws {
        switch (url, fromFile) {
        case (nil, nil):
            throw ValidationError("give a URL or --from-file LIST")
        case (.some, .some):
            throw ValidationError("give either a URL or --from-file, not both")
        case (nil, .some):
            if id != nil || title != nil || sha256 != nil {
                throw ValidationError("--id, --title and --sha256 apply to a single URL, not to --from-file")
            }
        case (.some, nil):
            break
        }
    }

    func run() async throws {
        let parsedHeaders = try headers.map { try HTTPHeader(parsing: $0) }
        let requests: [AddDownloadRequest]
        if let fromFile {
            requests = try Self.readList(fromFile).map { AddDownloadRequest(uri: $0, headers: parsedHeaders) }
        } else {
            requests = [AddDownloadRequest(
                id: id ?? "", uri: url ?? "", title: title ?? "", sha256: sha256 ?? "", headers: parsedHeaders)]
        }
        let client = try await global.connect()
        // Subscribed before adding, so a download that finishes at once is still seen.
        let events = wait ? try await client.events() : nil
        var ids: [String] = []
        for (download, created) in try await Self.add(requests, with: client) {
            ids.append(download.id)
            if global.json {
                if events == nil { Output.json(download.publicRecord) }
            } else {
                Output.line("\(created ? "added" : "already there:") \(download.id) (\(download.state.name)) \(download.uri)")
            }
        }
        if let events {
            let completed = try await DownloadWaiter.wait(for: ids, client: client, events: events, json: global.json)
            if !completed { throw ExitCode(ExitStatus.failure) }
        }
    }

    /// Requests in flight at once for a list: enough for the daemon to commit many adds in one
    /// transaction, few enough to keep the frames small.
    static let addWindow = 128

    /// Adds every request, pipelined, and returns the answers in the order of the requests.
    static func add(_ requests: [AddDownloadRequest], with client: StashClient) async throws -> [(download: Download, created: Bool)] {
        var answers = [(download: Download, created: Bool)?](repeating: nil, count: requests.count)
        try await withThrowingTaskGroup(of: (Int, (download: Download, created: Bool)).self) { group in
            var next = 0
            func launch() {
                let index = next
                let request = requests[index]
                group.addTask { (index, try await client.addDownload(request)) }
                next += 1
            }
            while next < min(addWindow, requests.count) { launch() }
            while let (index, answer) = try await group.next() {
                answers[index] = answer
                if next < requests.count { launch() }
            }
        }
        return answers.map { $0! }
    }

    /// The URLs of a list file, in order.
    static func readList(_ path: String) throws -> [String] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ValidationError("cannot read --from-file \(path): \(error.localizedDescription)")
        }
        let urls = text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        guard !urls.isEmpty else { throw ValidationError("--from-file \(path) has no URLs") }
        return urls
    }
}
