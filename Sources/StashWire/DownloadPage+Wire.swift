import CStashProto
import Foundation
import StashCore

extension DownloadPage {
    func wire(in arena: PackArena, now: Date) -> UnsafeMutablePointer<Stash__V1__ListDownloadsResult> {
        var message = Stash__V1__ListDownloadsResult()
        stash__v1__list_downloads_result__init(&message)
        message.n_downloads = downloads.count
        message.downloads = arena.array(downloads) { Optional($0.wire(in: arena, now: now)) }
        message.next_page_token = arena.cString(nextPageToken)
        message.total = UInt32(clamping: total)
        message.totals = totals.wire(in: arena)
        return arena.store(message)
    }

    init(wire message: UnsafePointer<Stash__V1__ListDownloadsResult>) throws {
        let m = message.pointee
        self.init(
            downloads: try WireValue.elements(m.downloads, count: m.n_downloads) {
                try Download(wire: try WireValue.message($0, field: "ListDownloadsResult.downloads"))
            },
            nextPageToken: try WireValue.string(m.next_page_token, field: "ListDownloadsResult.next_page_token"),
            total: Int(m.total),
            totals: try m.totals.map { try GroupTotals(wire: $0) } ?? GroupTotals())
    }
}
