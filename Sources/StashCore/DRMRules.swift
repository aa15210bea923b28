import Foundation

/// The checks DRM parameters pass before anything is stored; each error names the field, the
/// value and the limit.
package enum DRMRules {
    package static let maxHeaders = 32
    package static let maxContentIDLength = 1024

    /// Reads the wire's DRM type: "" means no DRM parameters at all.
    package static func kind(_ name: String) throws -> DRMParams.Kind? {
        guard !name.isEmpty else { return nil }
        guard let kind = DRMParams.Kind(rawValue: name.lowercased()) else {
            throw StashError.invalidArgument("drm.type '\(name.prefix(60))' is not supported; the supported types are: \(DRMParams.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return kind
    }

    package static func validate(_ drm: DRMParams) throws {
        try checkURL(drm.licenseServer, field: "drm.license_server", required: true)
        try checkURL(drm.certificateURL, field: "drm.certificate_url", required: false)
        guard drm.headers.count <= maxHeaders else {
            throw StashError.invalidArgument("drm.license_headers lists \(drm.headers.count) headers; the limit is \(maxHeaders)")
        }
        for (index, header) in drm.headers.enumerated() {
            do {
                try header.validate()
            } catch let error as StashError {
                throw StashError.invalidArgument("drm.license_headers[\(index)]: \(error.message)")
            }
        }
        guard drm.contentID.utf8.count <= maxContentIDLength else {
            throw StashError.invalidArgument("drm.content_id is \(drm.contentID.utf8.count) bytes; the limit is \(maxContentIDLength)")
        }
    }

    private static func checkURL(_ value: String, field: String, required: Bool) throws {
        if value.isEmpty {
            if required { throw StashError.invalidArgument("\(field) is required with drm.type") }
            return
        }
        guard value.utf8.count <= 8192 else {
            throw StashError.invalidArgument("\(field) is \(value.utf8.count) bytes; the limit is 8192")
        }
        guard let url = URLComponents(string: value),
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty else {
            throw StashError.invalidArgument("\(field) '\(value.prefix(200))' is not an absolute http(s) URL")
        }
    }
}
