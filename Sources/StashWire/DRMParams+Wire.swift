import CStashProto
import StashCore

extension DRMParams {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__DrmParams> {
        var message = Stash__V1__DrmParams()
        stash__v1__drm_params__init(&message)
        message.type = arena.cString(kind.rawValue)
        message.license_server = arena.cString(licenseServer)
        message.n_license_headers = headers.count
        message.license_headers = arena.array(headers) { Optional($0.wire(in: arena)) }
        message.content_id = arena.cString(contentID)
        message.certificate_url = arena.cString(certificateURL)
        return arena.store(message)
    }

    /// nil when the message names no type (no DRM); an unknown type is INVALID_ARGUMENT naming it.
    static func decode(wire message: UnsafePointer<Stash__V1__DrmParams>) throws -> DRMParams? {
        let m = message.pointee
        guard let kind = try DRMRules.kind(try WireValue.string(m.type, field: "DrmParams.type")) else { return nil }
        return DRMParams(
            kind: kind,
            licenseServer: try WireValue.string(m.license_server, field: "DrmParams.license_server"),
            headers: try WireValue.elements(m.license_headers, count: m.n_license_headers) { try HTTPHeader(wire: $0) },
            contentID: try WireValue.string(m.content_id, field: "DrmParams.content_id"),
            certificateURL: try WireValue.string(m.certificate_url, field: "DrmParams.certificate_url"))
    }
}
