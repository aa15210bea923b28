import CStashProto
import Foundation
import StashCore

extension LicenseStatus {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__LicenseStatus> {
        var message = Stash__V1__LicenseStatus()
        stash__v1__license_status__init(&message)
        message.id = arena.cString(id)
        message.valid = WireValue.bool(check.isValid)
        message.verdict = arena.cString(check.verdict.wireName)
        message.license_seconds_left = check.licenseSecondsLeft ?? -1
        message.playback_seconds_left = check.playbackSecondsLeft ?? -1
        message.expires_at = (check.expiresAt ?? terms?.expiresAt).map(WireValue.milliseconds) ?? 0
        message.acquired_at = terms.map { WireValue.milliseconds($0.acquiredAt) } ?? 0
        message.first_playback_at = terms?.firstPlaybackAt.map(WireValue.milliseconds) ?? 0
        message.keys = UInt32(clamping: terms?.kids.count ?? 0)
        message.state = state.wire
        message.playback_duration = terms?.playbackDuration.map { Int64($0) } ?? -1
        let kids = terms?.kids ?? []
        message.n_key_ids = kids.count
        message.key_ids = arena.array(kids) { Optional(arena.cString($0)) }
        return arena.store(message)
    }

    init(wire message: UnsafePointer<Stash__V1__LicenseStatus>) throws {
        let m = message.pointee
        let verdictName = try WireValue.string(m.verdict, field: "LicenseStatus.verdict")
        guard let verdict = LicenseCheck.Verdict(wireName: verdictName) else {
            throw StashError.invalidArgument("LicenseStatus.verdict '\(verdictName.prefix(40))' is not one of valid, license_expired, playback_expired, refused, none")
        }
        let expiresAt = m.expires_at == 0 ? nil : WireValue.date(milliseconds: m.expires_at)
        var terms: LicenseTerms?
        if m.acquired_at != 0 {
            var held = LicenseTerms(
                acquiredAt: WireValue.date(milliseconds: m.acquired_at), expiresIn: nil,
                playbackDuration: try WireValue.optional(m.playback_duration, field: "LicenseStatus.playback_duration").map(TimeInterval.init),
                kids: try WireValue.elements(m.key_ids, count: m.n_key_ids) { try WireValue.string($0, field: "LicenseStatus.key_ids") })
            held.expiresAt = expiresAt
            held.firstPlaybackAt = m.first_playback_at == 0 ? nil : WireValue.date(milliseconds: m.first_playback_at)
            terms = held
        }
        self.init(
            id: try WireValue.string(m.id, field: "LicenseStatus.id"),
            check: LicenseCheck(
                verdict: verdict,
                licenseSecondsLeft: try WireValue.optional(m.license_seconds_left, field: "LicenseStatus.license_seconds_left"),
                playbackSecondsLeft: try WireValue.optional(m.playback_seconds_left, field: "LicenseStatus.playback_seconds_left"),
                expiresAt: expiresAt),
            terms: terms,
            state: try DownloadState(wire: m.state, field: "LicenseStatus.state"))
    }
}

extension LicenseCheck.Verdict {
    /// The wire's spelling, snake_case like the rest of the protocol's strings.
    var wireName: String {
        switch self {
        case .valid: return "valid"
        case .licenseExpired: return "license_expired"
        case .playbackExpired: return "playback_expired"
        case .refused: return "refused"
        case .none: return "none"
        }
    }

    init?(wireName: String) {
        guard let verdict = Self.allVerdicts.first(where: { $0.wireName == wireName }) else { return nil }
        self = verdict
    }

    private static let allVerdicts: [Self] = [.valid, .licenseExpired, .playbackExpired, .refused, .none]
}
