import ArgumentParser
import StashClient

/// `stash add` options that say where a protected stream's keys come from.
struct DRMOptions: ParsableArguments {
    @Option(name: .customLong("drm-type"), help: ArgumentHelp("The licence exchange: clearkey.", valueName: "type"))
    var drmType: String?

    @Option(name: .customLong("license-server"), help: ArgumentHelp("The licence server's http(s) URL.", valueName: "url"))
    var licenseServer: String?

    @Option(name: .customLong("license-header"), help: ArgumentHelp(
        "A header for the licence server, 'Name: value'; repeat for more.", valueName: "header"))
    var licenseHeaders: [String] = []

    @Option(name: .customLong("content-id"), help: ArgumentHelp("The content id sent with each licence request.", valueName: "id"))
    var contentID: String?

    @Option(name: .customLong("certificate-url"), help: ArgumentHelp(
        "The service certificate's URL (X.509, PEM or DER); its SHA-256 goes with each request.", valueName: "url"))
    var certificateURL: String?

    var given: Bool {
        drmType != nil || licenseServer != nil || !licenseHeaders.isEmpty || contentID != nil || certificateURL != nil
    }

    /// Nil when no DRM option was given; the daemon checks the values and names a bad one.
    func params() throws -> DRMParams? {
        guard given else { return nil }
        let typeName = drmType ?? DRMParams.Kind.clearkey.rawValue
        guard let kind = DRMParams.Kind(rawValue: typeName.lowercased()) else {
            throw ValidationError("--drm-type '\(typeName)' is not supported; the supported types are: \(DRMParams.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let licenseServer else { throw ValidationError("--license-server URL is required with DRM options") }
        return DRMParams(
            kind: kind, licenseServer: licenseServer, headers: try licenseHeaders.map { try HTTPHeader(parsing: $0) },
            contentID: contentID ?? "", certificateURL: certificateURL ?? "")
    }
}
