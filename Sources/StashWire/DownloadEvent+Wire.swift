import CStashProto
import Foundation
import StashCore

extension DownloadEvent {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__Event> {
        var message = Stash__V1__Event()
        stash__v1__event__init(&message)
        message.seq = seq
        message.time = WireValue.milliseconds(time)
        switch kind {
        case .stateChanged(let download, let previous):
            var changed = Stash__V1__StateChanged()
            stash__v1__state_changed__init(&changed)
            // The licence's status as at the event, so a replay later tells the same.
            changed.download = download.wire(in: arena, now: time)
            changed.previous = previous.wire
            message.kind_case = STASH__V1__EVENT__KIND_STATE_CHANGED
            message.state_changed = arena.store(changed)
        case .progress(let update):
            message.kind_case = STASH__V1__EVENT__KIND_PROGRESS
            message.progress = update.wire(in: arena)
        case .removed(let id):
            var removed = Stash__V1__Removed()
            stash__v1__removed__init(&removed)
            removed.id = arena.cString(id)
            message.kind_case = STASH__V1__EVENT__KIND_REMOVED
            message.removed = arena.store(removed)
        case .license(let event):
            var license = Stash__V1__LicenseEvent()
            stash__v1__license_event__init(&license)
            license.id = arena.cString(event.id)
            license.kind = Stash__V1__LicenseEventKind(rawValue: UInt32(event.kind.rawValue))
            license.message = arena.cString(event.message)
            license.status = event.status?.wire(in: arena)
            message.kind_case = STASH__V1__EVENT__KIND_LICENSE
            message.license = arena.store(license)
        case .eventsLost(let lost):
            var notice = Stash__V1__EventsLost()
            stash__v1__events_lost__init(&notice)
            notice.first_seq = lost.firstSeq
            notice.last_seq = lost.lastSeq
            notice.count = UInt32(clamping: lost.count)
            message.kind_case = STASH__V1__EVENT__KIND_EVENTS_LOST
            message.events_lost = arena.store(notice)
        case .exportProgress(let progress):
            message.kind_case = STASH__V1__EVENT__KIND_EXPORT_PROGRESS
            message.export_progress = progress.wire(in: arena)
        case .settingsChanged(let download, let changed):
            var settings = Stash__V1__SettingsChanged()
            stash__v1__settings_changed__init(&settings)
            settings.download = download.wire(in: arena, now: time)
            settings.n_changed = changed.count
            settings.changed = arena.array(changed) { Optional(arena.cString($0)) }
            message.kind_case = STASH__V1__EVENT__KIND_SETTINGS_CHANGED
            message.settings_changed = arena.store(settings)
        }
        return arena.store(message)
    }

    /// An event kind this version does not know (or none) is refused: the caller can skip the
    /// frame, but there is no `DownloadEvent` to make of it.
    init(wire message: UnsafePointer<Stash__V1__Event>) throws {
        let m = message.pointee
        let kind: Kind
        switch m.kind_case {
        case STASH__V1__EVENT__KIND_STATE_CHANGED:
            let changed = try WireValue.message(m.state_changed, field: "Event.state_changed")
            let download = try WireValue.message(changed.pointee.download, field: "StateChanged.download")
            kind = .stateChanged(
                try Download(wire: download),
                previous: try DownloadState(wire: changed.pointee.previous, field: "StateChanged.previous"))
        case STASH__V1__EVENT__KIND_PROGRESS:
            kind = .progress(try ProgressUpdate(wire: try WireValue.message(m.progress, field: "Event.progress")))
        case STASH__V1__EVENT__KIND_REMOVED:
            let removed = try WireValue.message(m.removed, field: "Event.removed")
            kind = .removed(id: try WireValue.string(removed.pointee.id, field: "Removed.id"))
        case STASH__V1__EVENT__KIND_LICENSE:
            let license = try WireValue.message(m.license, field: "Event.license").pointee
            guard let licenseKind = LicenseEvent.Kind(rawValue: Int(license.kind.rawValue)) else {
                throw StashError.invalidArgument("LicenseEvent.kind \(license.kind.rawValue) is not one this version knows")
            }
            kind = .license(LicenseEvent(
                id: try WireValue.string(license.id, field: "LicenseEvent.id"), kind: licenseKind,
                message: try WireValue.string(license.message, field: "LicenseEvent.message"),
                status: try license.status.map { try LicenseStatus(wire: $0) }))
        case STASH__V1__EVENT__KIND_EVENTS_LOST:
            let lost = try WireValue.message(m.events_lost, field: "Event.events_lost").pointee
            kind = .eventsLost(EventsLost(firstSeq: lost.first_seq, lastSeq: lost.last_seq, count: Int(lost.count)))
        case STASH__V1__EVENT__KIND_EXPORT_PROGRESS:
            kind = .exportProgress(try ExportProgress(wire: try WireValue.message(m.export_progress, field: "Event.export_progress")))
        case STASH__V1__EVENT__KIND_SETTINGS_CHANGED:
            let settings = try WireValue.message(m.settings_changed, field: "Event.settings_changed").pointee
            kind = .settingsChanged(
                try Download(wire: try WireValue.message(settings.download, field: "SettingsChanged.download")),
                changed: try WireValue.elements(settings.changed, count: settings.n_changed) {
                    try WireValue.string($0, field: "SettingsChanged.changed")
                })
        default:
            throw StashError.invalidArgument(
                "Event.kind: event \(m.seq) carries no kind this version knows (state_changed, progress, removed, license, events_lost, export_progress, settings_changed)")
        }
        self.init(seq: m.seq, time: WireValue.date(milliseconds: m.time), kind: kind)
    }
}
