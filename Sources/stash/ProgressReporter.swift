import Foundation
import StashClient

/// Shows downloads as they change: live bars redrawn in place on a terminal, else one JSON
/// record per line per change.
final class ProgressReporter {
    /// At most this many bars; with more downloads the unfinished ones are drawn, then a
    /// summary line, so thousands of downloads don't scroll the terminal away.
    static let maxBars = 20
    /// Progress redraws closer together than this are skipped; a change of state is drawn at
    /// once, as it may be the last change for a long time (a pause, a failure).
    static let redrawInterval = Duration.milliseconds(100)

    private let bars: Bool
    /// Nothing is shown (`--quiet`).
    private let quiet: Bool
    private var order: [String] = []
    private var downloads: [String: Download] = [:]
    private var drawnLines = 0
    private var lastDraw: ContinuousClock.Instant?

    init(json: Bool, quiet: Bool = false) {
        self.quiet = quiet
        bars = !quiet && !json && Output.isTerminal
    }

    func show(_ download: Download) {
        if quiet { return }
        guard bars else {
            Output.json(download.publicRecord)
            return
        }
        let drawnState = downloads.updateValue(download, forKey: download.id)?.state
        if drawnState == nil { order.append(download.id) }
        redraw(force: drawnState != download.state || download.state.isTerminal)
    }

    /// Drops a download's bar (it was removed).
    func remove(id: String) {
        guard bars, downloads.removeValue(forKey: id) != nil else { return }
        order.removeAll { $0 == id }
        redraw(force: true)
    }

    /// Draws the final state, whatever the pacing skipped.
    func finish() {
        guard bars else { return }
        redraw(force: true)
    }

    private func redraw(force: Bool) {
        let now = ContinuousClock.now
        if !force, let lastDraw, now - lastDraw < Self.redrawInterval { return }
        lastDraw = now
        let lines = currentLines()
        var text = ""
        // Move up over the previous drawing, then rewrite (and clear) every line.
        if drawnLines > 0 { text += "\u{1B}[\(drawnLines)A" }
        for line in lines { text += "\r\u{1B}[2K" + line + "\n" }
        for _ in lines.count..<max(lines.count, drawnLines) { text += "\r\u{1B}[2K\n" }
        let extra = max(0, drawnLines - lines.count)
        if extra > 0 { text += "\u{1B}[\(extra)A" }
        drawnLines = lines.count
        Output.write(text, to: STDOUT_FILENO)
    }

    private func currentLines() -> [String] {
        let all = order.compactMap { downloads[$0] }
        guard all.count > Self.maxBars else { return all.map { Self.bar(for: $0) } }
        let unfinished = all.filter { !$0.state.isTerminal }
        let completed = all.filter { $0.state == .completed }.count
        let failed = all.count - completed - unfinished.count
        var lines = unfinished.prefix(Self.maxBars).map { Self.bar(for: $0) }
        let received = all.saturatingSum(\.downloadedBytes)
        let speed = unfinished.saturatingSum(\.speed)
        lines.append("\(completed)/\(all.count) completed, \(failed) failed, \(unfinished.count) to go  \(Format.bytes(received))  \(Format.speed(speed))")
        return lines
    }

    /// The title (else the id), the bar, percent and bytes, then the speed and ETA while the
    /// download transfers, and its state.
    static func bar(for download: Download, width: Int = 24) -> String {
        let percent = download.progressPercent
        let filled = percent * width / 100
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let size = Format.bytes(download.downloadedBytes) + "/" + (download.totalBytes.map(Format.bytes) ?? "?")
        let label = download.title.isEmpty ? download.id : download.title
        let name = label.count > 24 ? String(label.prefix(23)) + "~" : label
        let motion = download.state.isActive
            ? "\(Format.speed(download.speed))  ETA \(Format.duration(download.remainingTime))  " : ""
        return "\(name.padding(toLength: 24, withPad: " ", startingAt: 0)) [\(bar)] \(String(format: "%3d", percent))%  "
            + "\(size)  \(motion)\(download.state.name)"
    }
}
