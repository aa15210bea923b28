import Foundation
import StashClient

/// Shows downloads as they change: live bars redrawn in place on a terminal, else one JSON
/// record per line per change.
final class ProgressReporter {
    private let bars: Bool
    private var lines: [String] = []
    private var index: [String: Int] = [:]
    private var drawnLines = 0

    init(json: Bool) {
        bars = !json && Output.isTerminal
    }

    func show(_ download: Download) {
        guard bars else {
            Output.json(download.publicRecord)
            return
        }
        let line = Self.bar(for: download)
        if let position = index[download.id] {
            lines[position] = line
        } else {
            index[download.id] = lines.count
            lines.append(line)
        }
        redraw()
    }

    /// Drops a download's bar (it was removed).
    func remove(id: String) {
        guard bars, let position = index.removeValue(forKey: id) else { return }
        lines.remove(at: position)
        for (key, value) in index where value > position { index[key] = value - 1 }
        redraw()
    }

    private func redraw() {
        var text = ""
        // Move up over the previous drawing, then rewrite (and clear) every line.
        if drawnLines > 0 { text += "\u{1B}[\(drawnLines)A" }
        for line in lines { text += "\r\u{1B}[2K" + line + "\n" }
        for _ in lines.count..<max(lines.count, drawnLines) { text += "\r\u{1B}[2K\n" }
        let extra = max(0, drawnLines - lines.count)
        if extra > 0 { text += "\u{1B}[\(extra)A" }
        drawnLines = lines.count
        fputs(text, stdout)
        fflush(stdout)
    }

    static func bar(for download: Download, width: Int = 24) -> String {
        let percent = download.progressPercent
        let filled = percent * width / 100
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let size = Format.bytes(download.downloadedBytes) + "/" + (download.totalBytes.map(Format.bytes) ?? "?")
        let name = download.id.count > 24 ? String(download.id.prefix(23)) + "~" : download.id
        return "\(name.padding(toLength: 24, withPad: " ", startingAt: 0)) [\(bar)] \(String(format: "%3d", percent))%  "
            + "\(size)  \(Format.speed(download.speed))  ETA \(Format.duration(download.remainingTime))  \(download.state.name)"
    }
}
