import ArgumentParser
import StashClient

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Show downloads' changes as they happen, until Ctrl-C.",
        discussion: """
            On a terminal draws a live progress bar per download (those not yet finished, \
            and any that changes); otherwise (or with --json) prints the JSON record of a \
            download on each state change and progress step. Removed downloads lose their \
            bar and print nothing. Exits 3 when the daemon goes away.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("Only these downloads; all when none are given.", valueName: "id"))
    var ids: [String] = []

    func run() async throws {
        let client = try await global.connect()
        let events = try await client.events(ids: ids)
        var tracker = DownloadTracker()
        let reporter = ProgressReporter(json: global.json)
        var initial: [Download] = []
        if ids.isEmpty {
            initial = try await client.allDownloads()
        } else {
            for id in ids { initial.append(try await client.getDownload(id: id)) }
        }
        for download in initial {
            tracker.set(download)
            if !global.json && !download.state.isTerminal { reporter.show(download) }
        }
        for try await event in events {
            if case .eventsLost = event.kind {
                // Too far behind: read the downloads shown again instead.
                for id in tracker.order where !tracker.removed.contains(id) {
                    guard let download = try? await client.getDownload(id: id) else { continue }
                    tracker.set(download)
                    reporter.show(download)
                }
            } else if let download = tracker.apply(event) {
                reporter.show(download)
            } else if case .removed(let id) = event.kind {
                reporter.remove(id: id)
            } else if case .progress(let update) = event.kind, tracker.records[update.id] == nil,
                let download = try? await client.getDownload(id: update.id) {
                // A download added after the start whose state change was not seen.
                tracker.set(download)
                reporter.show(download)
            }
        }
        throw StashError.connectionFailure("connection to stashd closed")
    }
}
