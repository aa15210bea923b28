import CStashProto
import StashCore

/// SetDownload and Move on the wire.
extension DownloadChanges {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__SetDownloadRequest> {
        var message = Stash__V1__SetDownloadRequest()
        stash__v1__set_download_request__init(&message)
        message.id = arena.cString(id)
        if let priority {
            message.priority_given_case = STASH__V1__SET_DOWNLOAD_REQUEST__PRIORITY_GIVEN_PRIORITY
            message.priority = priority.wire
        }
        if let rateLimit {
            message.rate_limit_given_case = STASH__V1__SET_DOWNLOAD_REQUEST__RATE_LIMIT_GIVEN_RATE_LIMIT
            // A negative limit is refused by the daemon; on the wire it reads as above Int64.max.
            message.rate_limit = UInt64(bitPattern: rateLimit)
        }
        if let uri { message.uri = arena.cString(uri) }
        if let file { message.file = arena.cString(file) }
        if let headers {
            message.n_headers = headers.headers.count
            message.headers = arena.array(headers.headers) { Optional($0.wire(in: arena)) }
            message.clear_headers = headers.clear ? 1 : 0
        }
        if let licenseHeaders {
            message.n_license_headers = licenseHeaders.headers.count
            message.license_headers = arena.array(licenseHeaders.headers) { Optional($0.wire(in: arena)) }
            message.clear_license_headers = licenseHeaders.clear ? 1 : 0
        }
        message.network = arena.cString(network?.rawValue ?? "")
        message.on_battery = arena.cString(onBattery?.rawValue ?? "")
        return arena.store(message)
    }

    init(wire message: UnsafeMutablePointer<Stash__V1__SetDownloadRequest>?, field: StaticString) throws {
        let m = try WireValue.message(message, field: field).pointee
        self.init(
            id: try WireValue.string(m.id, field: "SetDownloadRequest.id"),
            priority: m.priority_given_case == STASH__V1__SET_DOWNLOAD_REQUEST__PRIORITY_GIVEN_PRIORITY
                ? try DownloadPriority(wire: m.priority, field: "SetDownloadRequest.priority") : nil,
            rateLimit: m.rate_limit_given_case == STASH__V1__SET_DOWNLOAD_REQUEST__RATE_LIMIT_GIVEN_RATE_LIMIT
                ? try WireValue.int64(m.rate_limit, field: "SetDownloadRequest.rate_limit") : nil)
        // Empty is "not given": no download has an empty URL to change to.
        let uri = try WireValue.string(m.uri, field: "SetDownloadRequest.uri")
        self.uri = uri.isEmpty ? nil : uri
        let file = try WireValue.string(m.file, field: "SetDownloadRequest.file")
        self.file = file.isEmpty ? nil : file
        // Neither a header nor a clear is "not given".
        let headers = HeaderChange(
            headers: try WireValue.elements(m.headers, count: m.n_headers) { try HTTPHeader(wire: $0) }, clear: m.clear_headers != 0)
        self.headers = headers.isEmpty ? nil : headers
        let licenseHeaders = HeaderChange(
            headers: try WireValue.elements(m.license_headers, count: m.n_license_headers) { try HTTPHeader(wire: $0) },
            clear: m.clear_license_headers != 0)
        self.licenseHeaders = licenseHeaders.isEmpty ? nil : licenseHeaders
        network = try NetworkRequirement(wire: m.network, field: "SetDownloadRequest.network")
        onBattery = try BatteryPolicy(wire: m.on_battery, field: "SetDownloadRequest.on_battery")
    }
}

extension QueueMove {
    func wire(id: String, in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__MoveRequest> {
        var message = Stash__V1__MoveRequest()
        stash__v1__move_request__init(&message)
        message.id = arena.cString(id)
        switch self {
        case .top: message.place = STASH__V1__MOVE_PLACE__MOVE_PLACE_TOP
        case .bottom: message.place = STASH__V1__MOVE_PLACE__MOVE_PLACE_BOTTOM
        case .before: message.place = STASH__V1__MOVE_PLACE__MOVE_PLACE_BEFORE
        case .after: message.place = STASH__V1__MOVE_PLACE__MOVE_PLACE_AFTER
        }
        message.other = arena.cString(other ?? "")
        return arena.store(message)
    }

    /// The move and the id it moves. A place this version does not know, none, or one that
    /// does not match `other` (given for TOP and BOTTOM, missing for BEFORE and AFTER) is
    /// refused, naming the field.
    static func decode(wire message: UnsafeMutablePointer<Stash__V1__MoveRequest>?, field: StaticString) throws -> (id: String, move: QueueMove) {
        let m = try WireValue.message(message, field: field).pointee
        let id = try WireValue.string(m.id, field: "MoveRequest.id")
        let other = try WireValue.string(m.other, field: "MoveRequest.other")
        let move: QueueMove
        switch m.place {
        case STASH__V1__MOVE_PLACE__MOVE_PLACE_TOP: move = .top
        case STASH__V1__MOVE_PLACE__MOVE_PLACE_BOTTOM: move = .bottom
        case STASH__V1__MOVE_PLACE__MOVE_PLACE_BEFORE: move = .before(other)
        case STASH__V1__MOVE_PLACE__MOVE_PLACE_AFTER: move = .after(other)
        default:
            let raw = Int32(truncatingIfNeeded: m.place.rawValue)
            throw StashError.invalidArgument("MoveRequest.place: \(raw) is not a place; give 1 (top), 2 (bottom), 3 (before) or 4 (after)")
        }
        if move.other == nil, !other.isEmpty {
            throw StashError.invalidArgument("MoveRequest.other: '\(other.prefix(200))' is given with a move to the top or bottom, which takes none")
        }
        if move.other == "" {
            throw StashError.invalidArgument("MoveRequest.other: empty; a move before or after names a queued download")
        }
        return (id, move)
    }
}
