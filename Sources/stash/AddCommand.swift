import ArgumentParser
import Foundation
import StashClient

struct AddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a download (or one per line of a file), or a bundle of many files.",
        discussion: """
            Prints the added download (text, or its JSON record with --json; nothing but \
            errors with --quiet). Adding an id \
            that already exists with the same URL (or, for a bundle, the same files) is not an \
            error: the existing download is printed. With --wait, follows the downloads until \
            each has COMPLETED (exit 0) or FAILED (exit 1), drawing progress bars on a terminal \
            or printing JSON records otherwise; Ctrl-C stops only the waiting (exit 130), \
            stashd goes on with the downloads.

            With --bundle, the URLs (or the lines of --from-file) are the files of one download, \
            kept in <data-dir>/assets/<id>/. A line of the list is URL, or \
            URL<TAB>relative/path, optionally followed by <TAB>size and <TAB>sha256; without a \
            path the file is named after the URL.

            With --bundle --id ID --append, the URLs (or the list's files) are added to the \
            existing bundle ID: a file it already holds (the same URL at the same path) is \
            skipped, a path it holds with another URL is refused. A COMPLETED bundle fetches \
            only the new files and is COMPLETED again.

            --text-track 'uri=URL,lang=es[,title=Español][,type=vtt|srt]' (repeatable) fetches \
            a subtitle file with the download (a file, a bundle or an HLS stream) into \
            subtitles/<lang>.<type> of its folder (a second one of a language: <lang>-2); \
            type defaults to the URL's extension, else vtt. `stash subtitles` lists, adds and \
            removes them.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The http:// or https:// URL to download; with --bundle, one or more.", valueName: "url"))
    var urls: [String] = []

    @Flag(help: "The URLs (or the list's lines) are the files of one download.")
    var bundle = false

    @Option(name: .customLong("from-file"), help: ArgumentHelp(
        "Add one download per URL in this file; blank lines and lines starting with # are skipped, ids are chosen by the daemon.",
        valueName: "list"))
    var fromFile: String?

    @Option(help: ArgumentHelp("The download's id (letters, digits, '.', '_', '-'); chosen by the daemon when absent.", valueName: "id"))
    var id: String?

    @Option(help: ArgumentHelp("A title to show instead of the URL.", valueName: "title"))
    var title: String?

    @Option(help: ArgumentHelp("A group path for the download(s), e.g. one-piece/chapter-12.", valueName: "group"))
    var group: String?

    @Option(name: .customLong("app-data"), help: ArgumentHelp("The app's own data for the download, as text (at most 64 KiB), returned as given.", valueName: "text"))
    var appData: String?

    @Option(help: ArgumentHelp("high, normal (the default) or low: higher priorities get a slot first.", valueName: "priority"))
    var priority: String?

    @Option(help: ArgumentHelp("The expected SHA-256 of the file, in hex; a mismatch fails the download.", valueName: "hex"))
    var sha256: String?

    @Option(help: ArgumentHelp(
        "What each file must be: image, video, audio, text or a MIME type (application/pdf); a file that is not (by its first bytes, and its Content-Type where they are of no known format) fails, keeping nothing of it. A bundle list may give each file its own (5th column).",
        valueName: "kind"))
    var expect: String?

    @Option(name: .customLong("min-size"), help: ArgumentHelp(
        "The fewest bytes each file may have; a shorter one fails, keeping nothing of it. A bundle list may give each file its own (6th column).",
        valueName: "bytes"))
    var minSize: Int64?

    @Option(name: .customLong("header"), help: ArgumentHelp("A request header, 'Name: value'; repeat for more.", valueName: "header"))
    var headers: [String] = []

    @Option(name: .customLong("rate-limit"), help: ArgumentHelp(
        "Bytes per second over all of the download's transfers, within the global limit: 500K, 2M (1024-based), 0 = none.",
        valueName: "rate"))
    var rateLimit: String?

    @OptionGroup(title: "The desktop (docs/DESKTOP.md)")
    var desktop: DesktopRuleOptions

    @Flag(help: "Wait until the downloads complete or fail, showing progress.")
    var wait = false

    @Flag(name: .shortAndLong, help: "Print nothing but errors: with --wait the exit status says whether every download completed, as `wget -q` or `curl -s` would.")
    var quiet = false

    @Flag(help: "Add even when a download already holds the URL (or the bundle's files); without it that download is shown.")
    var force = false

    @Flag(help: "Fetch the COMPLETED download holding this --id (or URL, or --bundle files) again beside the old copy, and swap it in once complete (a bundle as a whole folder); the old copy stays if the replace fails. With --wait: until the replace ends, exit 1 if it failed.")
    var replace = false

    @Flag(help: "With --bundle and --id: add the files to that existing bundle (those it holds are skipped).")
    var append = false

    @Option(name: .customLong("text-track"), help: ArgumentHelp(
        "A subtitle file to fetch with the download: 'uri=URL,lang=es[,title=Español][,type=vtt|srt]'; repeat for more.",
        valueName: "track"))
    var textTracks: [String] = []

    @OptionGroup(title: "HLS and DASH (a URL ending in .m3u8 or .mpd is a stream; any of these options makes it one)")
    var hls: HLSChoiceOptions

    @OptionGroup(title: "DRM (the stream's keys come from a licence server; see `stash license`)")
    var drm: DRMOptions

    func validate() throws {
        if let rateLimit { _ = try RateLimitOption.parse(rateLimit) }
        try desktop.validate()
        if urls.isEmpty && fromFile == nil {
            throw ValidationError(bundle ? "give the bundle's URLs or --from-file LIST" : "give a URL or --from-file LIST")
        }
        if !urls.isEmpty && fromFile != nil {
            throw ValidationError("give either URLs or --from-file, not both")
        }
        _ = try PriorityOption.parse(priority)
        if replace, force {
            throw ValidationError("--replace renews the download already there: not with --force (which adds a second copy)")
        }
        if hls.given || drm.given, bundle || fromFile != nil {
            throw ValidationError("HLS and DRM options apply to one stream URL, not to --bundle or --from-file")
        }
        if append {
            guard bundle, id != nil else {
                throw ValidationError("--append adds files to an existing bundle: give --bundle and --id ID")
            }
            let given = [("--title", title != nil), ("--group", group != nil), ("--app-data", appData != nil), ("--header", !headers.isEmpty), ("--force", force), ("--replace", replace),
                         ("--text-track (use `stash subtitles add`)", !textTracks.isEmpty), ("--rate-limit", rateLimit != nil), ("--network/--on-battery (use `stash set`)", desktop.given),
                         ("--priority (use `stash set`)", priority != nil)]
                .filter(\.1).map(\.0)
            if !given.isEmpty {
                throw ValidationError("--append takes only the files; \(given.joined(separator: ", ")) belong to a new download (the bundle keeps its own)")
            }
        }
        if bundle {
            if sha256 != nil {
                throw ValidationError("--sha256 applies to a single file; give each file of a bundle its sha256 in the list (URL<TAB>path<TAB>size<TAB>sha256)")
            }
        } else if fromFile != nil {
            if id != nil || title != nil || sha256 != nil || !textTracks.isEmpty {
                throw ValidationError("--id, --title, --sha256 and --text-track apply to a single URL, not to --from-file (or add --bundle)")
            }
        } else if urls.count > 1 {
            throw ValidationError("\(urls.count) URLs given; add one at a time, use --from-file, or make them one download with --bundle")
        }
    }

    func run() async throws {
        if append {
            try await runAppend()
            return
        }
        let parsedHeaders = try headers.map { try HTTPHeader(parsing: $0) }
        let tracks = try textTracks.map(TextTrack.init(spec:))
        let rate = try rateLimit.map(RateLimitOption.parse) ?? 0
        var requests: [AddDownloadRequest]
        if bundle {
            let files = try fromFile.map(Self.readBundleList) ?? urls.map { BundleFileSpec(url: $0) }
            requests = [AddDownloadRequest(
                id: id ?? "", uri: "", title: title ?? "", headers: parsedHeaders, files: files, force: force,
                appData: Array((appData ?? "").utf8), group: group ?? "", textTracks: tracks, priority: try PriorityOption.parse(priority))]
        } else if let fromFile {
            requests = try Self.readList(fromFile).map {
                AddDownloadRequest(
                    uri: $0, headers: parsedHeaders, force: force, appData: Array((appData ?? "").utf8), group: group ?? "",
                    priority: try PriorityOption.parse(priority))
            }
        } else {
            requests = [AddDownloadRequest(
                id: id ?? "", uri: urls[0], title: title ?? "", sha256: sha256 ?? "", headers: parsedHeaders,
                hls: hls.options(), drm: try drm.params(), force: force, appData: Array((appData ?? "").utf8), group: group ?? "",
                textTracks: tracks, priority: try PriorityOption.parse(priority))]
        }
        requests = requests.map { request in
            var request = request
            request.rateLimit = rate
            request.expect = expect ?? ""
            request.minSize = minSize ?? 0
            request.replace = replace
            request.network = desktop.networkRule
            request.onBattery = desktop.batteryRule
            return request
        }
        let client = try await global.connect()
        // Subscribed before adding, so a download that finishes at once is still seen. Quiet,
        // only outcomes are waited for: the daemon sends no step on the way (a replace is
        // followed step by step by `ReplaceWaiter`).
        let outcomesOnly = quiet && !replace && client.daemonInfo.features.contains("subscribe-states")
        let events = wait ? try await client.events(states: outcomesOnly ? DownloadWaiter.outcomes : []) : nil
        var ids: [String] = []
        var records: [Download] = []
        var created: Set<String> = []
        for (download, isNew) in try await Self.add(requests, with: client) {
            ids.append(download.id)
            records.append(download)
            if isNew { created.insert(download.id) }
            if quiet { continue }
            if global.json {
                if events == nil { Output.json(download.publicRecord) }
            } else {
                let what = download.isBundle ? "bundle of \(download.filesTotal) files"
                    : download.hls != nil ? "HLS \(download.uri)" + ListCommand.rangeSuffix(download) : download.uri
                Output.line("\(isNew ? "added" : replace ? "replacing:" : "already there:") \(download.id) (\(download.state.name)) \(what)")
            }
        }
        if let events {
            // A replace is followed to its end; an add with replace that found nothing to
            // replace (created) is a new download, followed as one.
            if replace, let renewed = records.first(where: { !created.contains($0.id) }) {
                let done = try await ReplaceWaiter.wait(for: renewed, client: client, events: events, json: global.json, quiet: quiet)
                if !done { throw ExitCode(ExitStatus.failure) }
                return
            }
            let completed = try await DownloadWaiter.wait(
                for: ids, known: records, created: created, client: client, events: events, json: global.json, quiet: quiet,
                outcomesOnly: outcomesOnly)
            if !completed { throw ExitCode(ExitStatus.failure) }
        }
    }

    /// Adds the files to the bundle `--id` and says how many were new.
    private func runAppend() async throws {
        let id = self.id ?? ""
        // An append takes only files: the options become each file's own, where the list gives none.
        let files = (try fromFile.map(Self.readBundleList) ?? urls.map { BundleFileSpec(url: $0) }).map { file in
            var file = file
            if file.expect.isEmpty { file.expect = expect ?? "" }
            if file.minSize == 0 { file.minSize = minSize ?? 0 }
            return file
        }
        let client = try await global.connect()
        let events = wait ? try await client.events(ids: [id]) : nil
        // Only for the count shown: the answer is the record after the append.
        let before = try? await client.getDownload(id: id)
        let (download, _) = try await client.addDownload(AddDownloadRequest(id: id, uri: "", files: files, append: true))
        if global.json, !quiet {
            if events == nil { Output.json(download.publicRecord) }
        } else if !quiet {
            let added = before.map { max(0, download.filesTotal - $0.filesTotal) }
            let what = added.map { $0 == 0 ? "nothing new (it holds these files)" : "\($0) new file(s)" } ?? "the files"
            Output.line("appended \(what) to \(id) (\(download.state.name)): bundle of \(download.filesTotal) files")
        }
        if let events {
            let completed = try await DownloadWaiter.wait(for: [id], client: client, events: events, json: global.json, quiet: quiet)
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
        // The group answers every index or throws; a hole would be a bug here, said as such
        // rather than trapped on.
        let answered = answers.compactMap { $0 }
        guard answered.count == requests.count else {
            throw StashError(.internal, "\(requests.count - answered.count) of \(requests.count) adds got no answer")
        }
        return answered
    }

    /// The URLs of a list file, in order.
    static func readList(_ path: String) throws -> [String] {
        let urls = try listLines(path).map { $0.text.trimmingBlanks() }
        guard !urls.isEmpty else { throw ValidationError("--from-file \(path) has no URLs") }
        return urls
    }

    /// The files of a bundle list: `URL[<TAB>path[<TAB>size[<TAB>sha256[<TAB>expect[<TAB>min-size]]]]]`
    /// per line. Paths and rules are checked by the daemon, which names the entry it refuses.
    static func readBundleList(_ path: String) throws -> [BundleFileSpec] {
        let files = try listLines(path).map { line -> BundleFileSpec in
            let columns = line.text.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns.count <= 6 else {
                throw ValidationError("--from-file \(path) line \(line.number): \(columns.count) columns; expected URL<TAB>path<TAB>size<TAB>sha256<TAB>expect<TAB>min-size at most")
            }
            func byteCount(_ index: Int, _ name: String) throws -> Int64 {
                guard columns.count > index, !columns[index].isEmpty else { return 0 }
                guard let value = Int64(columns[index]), value >= 0 else {
                    throw ValidationError("--from-file \(path) line \(line.number): \(name) '\(columns[index])' is not a byte count")
                }
                return value
            }
            return BundleFileSpec(
                url: columns[0].trimmingBlanks(), path: columns.count > 1 ? columns[1] : "",
                size: try byteCount(2, "size"), sha256: columns.count > 3 ? columns[3] : "",
                expect: columns.count > 4 ? columns[4] : "", minSize: try byteCount(5, "min-size"))
        }
        guard !files.isEmpty else { throw ValidationError("--from-file \(path) has no URLs") }
        return files
    }

    /// Lines that are not blank or comments, with their line numbers.
    private static func listLines(_ path: String) throws -> [(number: Int, text: String)] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ValidationError("cannot read --from-file \(path): \(error.localizedDescription)")
        }
        return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, raw in
            let line = raw.hasSuffix("\r") ? String(raw.dropLast()) : String(raw)
            let trimmed = line.trimmingBlanks()
            return trimmed.isEmpty || trimmed.hasPrefix("#") ? nil : (index + 1, line)
        }
    }
}
