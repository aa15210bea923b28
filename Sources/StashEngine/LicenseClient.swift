import Foundation
import StashCore
import StashFetch
import StashKeys
import Synchronization

/// The licence exchange of PROTOCOL.md ("Licence exchange"): POSTs ClearKey licence requests
/// to a download's licence server through the fetch workers and reads the answers. Knows
/// nothing of downloads or states; the engine decides what a failure means.
struct LicenseClient: Sendable {
    let fetch: any FetchService
    let certificates: CertificateCache
    let retry: RetryPolicy
    let lowSpeedLimit: Int
    let lowSpeedTime: Int
    /// Certificates are checked against its time, the engine's.
    let clock: WallClock
    /// For a download's planning (`HLSPreparation.retriesOutside`): a request that failed and
    /// may be tried again ends in `FetchRetryLater`, its attempts counting on from `attemptsBefore`.
    var retriesOutside = false
    var attemptsBefore = 0

    /// A licence answer is a few keys of JSON; anything larger is not one.
    static let maxAnswerBytes = 1 << 20
    /// A service certificate is a few KiB.
    static let maxCertificateBytes = 256 * 1024

    /// Asks for (or renews) the keys `kids`. Every requested key is in the answer, 16 bytes.
    func keys(_ action: LicenseAction, kids: [[UInt8]], drm: DRMParams,
              waitingForNetwork: (@Sendable () -> Void)? = nil) async throws -> LicenseResponse {
        let body = try await post(action, kids: kids, drm: drm, retry: retry, waitingForNetwork: waitingForNetwork)
        do {
            return try LicenseResponse.parse(body, requested: kids, server: drm.licenseServer)
        } catch let error as KeysError {
            throw LicenseFailure.invalid(error.message)
        }
    }

    /// Tells the server the keys `kids` are deleted. One attempt: the outbox retries.
    func release(kids: [[UInt8]], drm: DRMParams) async throws {
        let once = RetryPolicy(maxAttempts: 1, baseDelayMs: retry.baseDelayMs, maxDelayMs: retry.maxDelayMs)
        _ = try await post(.release, kids: kids, drm: drm, retry: once)
    }

    private func post(_ action: LicenseAction, kids: [[UInt8]], drm: DRMParams, retry: RetryPolicy,
                      waitingForNetwork: (@Sendable () -> Void)? = nil) async throws -> [UInt8] {
        let certificate = try await certificates.certificate(drm, fetch: fetch, at: clock.now()) { url in
            self.request(url, headers: drm.headers, limit: Self.maxCertificateBytes, retry: retry)
        }
        let license = LicenseRequest(
            kids: kids, action: action, contentID: drm.contentID.isEmpty ? nil : drm.contentID,
            certificateSHA256: certificate?.sha256)
        do {
            let request = request(drm.licenseServer, headers: drm.headers, limit: Self.maxAnswerBytes, retry: retry, postBody: license.body())
            return try await fetch.fetchBody(request, waitingForNetwork: waitingForNetwork).bytes
        } catch let error as DownloadError {
            throw Self.failure(error, what: "the \(action.rawValue) request to the licence server", url: drm.licenseServer)
        }
    }

    private func request(_ url: String, headers: [HTTPHeader], limit: Int, retry: RetryPolicy, postBody: [UInt8]? = nil) -> FetchRequest {
        var request = FetchRequest.inMemory(
            url: url, headers: headers, limit: limit, retry: retry, lowSpeedLimit: lowSpeedLimit, lowSpeedTime: lowSpeedTime, postBody: postBody)
        request.retriesOutside = retriesOutside
        request.attemptsBefore = attemptsBefore
        return request
    }

    /// A 4xx is the server's answer; anything else did not reach one. The message names `url`
    /// once: a fetch's own message names it already.
    static func failure(_ error: DownloadError, what: String, url: String) -> LicenseFailure {
        if error.kind == .http, (400..<500).contains(error.httpStatus) {
            return .refused("\(what) \(url) was refused with HTTP \(error.httpStatus)", httpStatus: error.httpStatus)
        }
        let subject = error.message.contains(url) ? what : "\(what) \(url)"
        if error.kind == .validation { return .invalid("\(subject) failed: \(error.message)") }
        return .unreachable("\(subject) failed: \(error.message)")
    }
}

/// Service certificates by URL: fetched once, checked on every use (a cached certificate can
/// expire while the daemon runs).
final class CertificateCache: Sendable {
    private let known = Mutex<[String: ServiceCertificate]>([:])

    /// `request` makes the fetch of the certificate at a URL.
    func certificate(
        _ drm: DRMParams, fetch: any FetchService, at now: Date, request: (String) -> FetchRequest
    ) async throws -> ServiceCertificate? {
        let url = drm.certificateURL
        guard !url.isEmpty else { return nil }
        if let cached = known.withLock({ $0[url] }) {
            guard now < cached.notAfter else {
                throw LicenseFailure.invalid("the service certificate from \(url) expired at \(ISO8601DateFormatter().string(from: cached.notAfter))")
            }
            return cached
        }
        let bytes: [UInt8]
        do {
            bytes = try await fetch.fetchBody(request(url)).bytes
        } catch let error as DownloadError {
            throw LicenseClient.failure(error, what: "fetching the service certificate", url: url)
        }
        let certificate: ServiceCertificate
        do {
            certificate = try ServiceCertificate.parse(bytes, at: now, source: url)
        } catch let error as KeysError {
            throw LicenseFailure.invalid(error.message)
        }
        known.withLock { $0[url] = certificate }
        return certificate
    }
}
