import StashCore

@testable import StashEngine

/// SetDownload of one field, as the tests of each field send it.
extension Engine {
    func setPriority(id: String, _ priority: DownloadPriority) async throws -> Download {
        try await set(DownloadChanges(id: id, priority: priority))
    }

    func setRateLimit(id: String, _ bytesPerSecond: Int64) async throws -> Download {
        try await set(DownloadChanges(id: id, rateLimit: bytesPerSecond))
    }

    func setURI(id: String, _ uri: String, file: String? = nil) async throws -> Download {
        try await set(DownloadChanges(id: id, uri: uri, file: file))
    }

    func setHeaders(id: String, _ headers: HeaderChange) async throws -> Download {
        try await set(DownloadChanges(id: id, headers: headers))
    }

    func setLicenseHeaders(id: String, _ headers: HeaderChange) async throws -> Download {
        try await set(DownloadChanges(id: id, licenseHeaders: headers))
    }
}
