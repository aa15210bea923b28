import Foundation
import StashClient

/// The line `stash export` redraws on a terminal's stderr while a file is written:
/// `exporting film to /x/film.mkv:  42%  1.2 GB of 2.9 GB`.
final class ExportProgressLine: Sendable {
    private let prefix: String

    init(id: String, file: String) {
        prefix = "exporting \(id) to \(file): "
    }

    func show(_ update: ExportProgress) {
        let percent = String(format: "%3d%%", update.progressPercent)
        Output.write("\r\u{1B}[2K" + prefix + percent + "  \(Format.bytes(update.bytesDone)) of \(Format.bytes(update.bytesTotal))", to: STDERR_FILENO)
    }

    func clear() {
        Output.write("\r\u{1B}[2K", to: STDERR_FILENO)
    }
}
