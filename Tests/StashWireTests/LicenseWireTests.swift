import Foundation
import NIOCore
import StashCore
import StashWire
import XCTest

/// The licence additions to the wire (ops 33-38, DrmParams, LicenseStatus, PlaybackKeyResult,
/// LicenseEvent): each value comes back as it went, and the -1 / 0 sentinels mean what
/// PROTOCOL.md says they mean.
final class LicenseWireTests: XCTestCase {
    static let drm = DRMParams(
        kind: .clearkey, licenseServer: "https://license.example.com/clearkey?tenant=ü",
        headers: [HTTPHeader(name: "Authorization", value: "Bearer token"), HTTPHeader(name: "X-Empty", value: "")],
        contentID: "film-42 — 映画", certificateURL: "https://license.example.com/cert.pem")

    /// Terms with every optional set. Acquired on a whole second, so acquired + 3600 s is
    /// exactly the Date the wire's milliseconds decode to, and the terms compare equal.
    static let terms: LicenseTerms = {
        var terms = LicenseTerms(acquiredAt: WireTestSupport.date(ms: 1_700_000_000_000), expiresIn: 3600,
                                 playbackDuration: 172_800, kids: ["AAECAwQFBgcICQoLDA0ODw", "EBESExQVFhcYGRobHB0eHw"])
        terms.firstPlaybackAt = WireTestSupport.date(ms: 1_700_000_060_456)
        return terms
    }()

    private func assertRoundTrips(_ message: ServerMessage, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(try WireTestSupport.roundTrip(message, file: file, line: line), message, file: file, line: line)
    }

    private func success(_ result: ResponseResult) -> ServerMessage {
        .response(Response(id: 9, result: .success(result)))
    }

    // MARK: - Requests

    func testLicenceOperationsRoundTrip() throws {
        let operations: [StashWire.Operation] = [
            .downloadLicense(id: "movie"),
            .downloadLicense(id: ""),
            .checkLicense(id: "映画-1"),
            .renewLicense(id: "movie"),
            .releaseLicense(id: "movie"),
            .releaseAllLicenses,
            .getPlaybackKey(id: "movie", keyID: "000102030405060708090a0b0c0d0e0f"),
            .getPlaybackKey(id: "movie", keyID: "AAECAwQFBgcICQoLDA0ODw"),
            .getPlaybackKey(id: "movie", keyID: ""),
        ]
        XCTAssertEqual(Set(operations.map(\.name)).count, 6, "every licence operation is covered")
        for (index, op) in operations.enumerated() {
            let request = Request(id: UInt64(index) + 100, op: op)
            XCTAssertEqual(try WireTestSupport.roundTrip(request), request, op.name)
        }
    }

    /// The op numbers are the contract with other clients: a swapped pair would still
    /// round-trip through this codec but renew where another client asked to release.
    func testLicenceOperationsUseTheirSchemaFieldNumbers() throws {
        let numbered: [(StashWire.Operation, Int)] = [
            (.downloadLicense(id: "a"), 33), (.checkLicense(id: "a"), 34), (.renewLicense(id: "a"), 35),
            (.releaseLicense(id: "a"), 36),
        ]
        for (op, number) in numbered {
            let request = try ProtobufFields(requestBytes(Request(id: 1, op: op)))
            XCTAssertEqual(try request.message(number).string(1), "a", op.name)
        }
        let releaseAll = try ProtobufFields(requestBytes(Request(id: 1, op: .releaseAllLicenses)))
        XCTAssertEqual(try releaseAll.message(37).fields.count, 0, "an empty message, present")
        let key = try ProtobufFields(requestBytes(Request(id: 1, op: .getPlaybackKey(id: "movie", keyID: "kid"))))
        XCTAssertEqual(try key.message(38).string(1), "movie")
        XCTAssertEqual(try key.message(38).string(2), "kid")
    }

    private func requestBytes(_ request: Request) throws -> [UInt8] {
        var buffer = ByteBuffer()
        WireCodec.encode(request, into: &buffer)
        return Array(try WireTestSupport.payload(of: buffer).readableBytesView)
    }

    func testAddDownloadCarriesDRMParameters() throws {
        let minimal = DRMParams(licenseServer: "http://127.0.0.1:8443/license")
        for drm in [Self.drm, minimal, nil] {
            let request = Request(id: 3, op: .addDownload(AddDownloadRequest(
                id: "movie", uri: "https://h/master.m3u8", hls: HLSOptions(quality: .high), drm: drm)))
            XCTAssertEqual(try WireTestSupport.roundTrip(request), request, "\(String(describing: drm))")
        }
    }

    /// AddDownloadRequest (field 11) whose DrmParams (field 8) has `type`.
    private func addDownload(drmType: String) -> ByteBuffer {
        var bytes = ProtobufBytes()
        bytes.varint(1, 61)
        bytes.message(11) {
            $0.string(2, "https://h/master.m3u8")
            $0.message(8) {
                $0.string(1, drmType)
                $0.string(2, "https://license.example.com/")
            }
        }
        return bytes.buffer
    }

    func testUnknownDRMTypeIsInvalidArgumentNamingTheField() throws {
        let request = try WireCodec.decodeRequest(addDownload(drmType: "widevine"))
        XCTAssertEqual(request.id, 61, "kept, so the refusal can be answered")
        WireTestSupport.assertInvalidArgument(try WireTestSupport.rethrowInvalid(request), mentioning: ["drm.type", "'widevine'", "clearkey"])
    }

    func testDRMTypeIsReadWithoutCaseAndAnEmptyTypeMeansNoDRM() throws {
        guard case .addDownload(let add) = try WireCodec.decodeRequest(addDownload(drmType: "ClearKey")).op else {
            return XCTFail("expected an AddDownload")
        }
        XCTAssertEqual(add.drm, DRMParams(kind: .clearkey, licenseServer: "https://license.example.com/"))
        guard case .addDownload(let none) = try WireCodec.decodeRequest(addDownload(drmType: "")).op else {
            return XCTFail("expected an AddDownload")
        }
        XCTAssertNil(none.drm, "a DrmParams without a type is no DRM, not an error")
    }

    // MARK: - Results

    func testLicenseStatusRoundTripsWithAndWithoutTerms() {
        let now = WireTestSupport.date(ms: 1_700_000_600_000)
        var download = WireTestSupport.download(id: "movie")
        download.state = .completed
        download.license = Self.terms
        let held = LicenseStatus(download, at: now)
        XCTAssertEqual(held.check.licenseSecondsLeft, 3000, "fixture: a licence with time left")
        download.state = .licenseExpired
        let expired = LicenseStatus(download, at: WireTestSupport.date(ms: 1_800_000_000_000))
        XCTAssertEqual(expired.check.verdict, .playbackExpired, "fixture: the window ended")
        download.license = nil
        let none = LicenseStatus(download, at: now)
        XCTAssertNil(none.terms)

        var neverExpires = LicenseTerms(acquiredAt: WireTestSupport.date(ms: 5), expiresIn: nil, playbackDuration: nil, kids: [])
        neverExpires.firstPlaybackAt = nil
        let statuses = [
            held, expired, none,
            LicenseStatus(id: "x", check: neverExpires.check(at: now), terms: neverExpires, state: .completed),
        ]
        for status in statuses {
            assertRoundTrips(success(.license(status)))
        }
    }

    /// -1 is "none" for the seconds and the playback duration; 0 is a real value (time is up)
    /// and must not read as "never expires".
    func testLicenseStatusSentinelsOnTheWire() throws {
        let unlimited = LicenseStatus(id: "m", check: LicenseCheck(verdict: .none, licenseSecondsLeft: nil, playbackSecondsLeft: nil, expiresAt: nil),
                                      terms: nil, state: .completed)
        var fields = try licenseFields(unlimited)
        XCTAssertEqual(fields.varint(4).map { Int64(bitPattern: $0) }, -1, "license_seconds_left")
        XCTAssertEqual(fields.varint(5).map { Int64(bitPattern: $0) }, -1, "playback_seconds_left")
        XCTAssertEqual(fields.varint(11).map { Int64(bitPattern: $0) }, -1, "playback_duration")
        XCTAssertNil(fields.varint(7), "acquired_at 0: no licence held")
        XCTAssertEqual(fields.string(3), "none")

        let timeUp = LicenseStatus(
            id: "m", check: LicenseCheck(verdict: .licenseExpired, licenseSecondsLeft: 0, playbackSecondsLeft: 0, expiresAt: Self.terms.expiresAt),
            terms: Self.terms, state: .licenseExpired)
        fields = try licenseFields(timeUp)
        XCTAssertNil(fields.varint(4), "0 seconds left is sent as 0")
        XCTAssertEqual(fields.string(3), "license_expired")
        XCTAssertEqual(fields.varint(7), 1_700_000_000_000)
        XCTAssertEqual(fields.varint(6), 1_700_003_600_000, "expires_at = acquired_at + 3600 s")
        XCTAssertEqual(fields.varint(9), 2, "keys")
        XCTAssertEqual(fields.varint(11), 172_800)
        XCTAssertEqual(fields.varint(10), UInt64(DownloadState.licenseExpired.rawValue))

        guard case .response(let response) = try WireTestSupport.roundTrip(success(.license(timeUp))),
              case .success(.license(let decoded)) = response.result else {
            return XCTFail("expected a licence result")
        }
        XCTAssertEqual(decoded.check.licenseSecondsLeft, 0)
        XCTAssertEqual(decoded.check.playbackSecondsLeft, 0)
    }

    private func licenseFields(_ status: LicenseStatus) throws -> ProtobufFields {
        try ProtobufFields(WireTestSupport.payloadBytes(success(.license(status)))).message(1).message(23)
    }

    func testUnknownVerdictThrowsNamingTheField() {
        var bytes = ProtobufBytes()
        bytes.message(1) {
            $0.varint(1, 2)
            $0.message(23) {
                $0.string(1, "m")
                $0.string(3, "revoked")
            }
        }
        WireTestSupport.assertInvalidArgument(try WireCodec.decodeServerMessage(bytes.buffer), mentioning: ["LicenseStatus.verdict", "revoked"])
    }

    func testPlaybackKeyRoundTrips() throws {
        let key: [UInt8] = [0x00, 0xFF, 0x10, 0x80] + Array(repeating: 0x5A, count: 12)
        assertRoundTrips(success(.playbackKey(PlaybackKey(key: key, keyID: "AAECAwQFBgcICQoLDA0ODw", playbackSecondsLeft: 7200))))
        assertRoundTrips(success(.playbackKey(PlaybackKey(key: key, keyID: "AAECAwQFBgcICQoLDA0ODw", playbackSecondsLeft: nil))))
        assertRoundTrips(success(.playbackKey(PlaybackKey(key: key, keyID: "", playbackSecondsLeft: 0))))

        let fields = try ProtobufFields(WireTestSupport.payloadBytes(
            success(.playbackKey(PlaybackKey(key: key, keyID: "k", playbackSecondsLeft: nil))))).message(1).message(24)
        XCTAssertEqual(fields.varint(3).map { Int64(bitPattern: $0) }, -1, "no playback window")
        guard case .bytes(let raw)? = fields.fields.first(where: { $0.number == 1 })?.value else {
            return XCTFail("key is a bytes field")
        }
        XCTAssertEqual(raw, key, "the 16 key bytes as they are, not a string")
    }

    // MARK: - Events and the record

    func testEveryLicenceEventKindRoundTrips() {
        let status = LicenseStatus(
            id: "movie", check: Self.terms.check(at: WireTestSupport.date(ms: 1_700_000_100_000)), terms: Self.terms, state: .completed)
        for (index, kind) in LicenseEvent.Kind.allCases.enumerated() {
            for withStatus in [true, false] {
                let event = LicenseEvent(id: "movie", kind: kind, message: "\(kind.name) from https://license.example.com — ü",
                                         status: withStatus ? status : nil)
                let message = ServerMessage.event(DownloadEvent(
                    seq: UInt64(index) + 1, time: WireTestSupport.date(ms: 1_700_000_000_000 + Int64(index)), kind: .license(event)))
                assertRoundTrips(message)
            }
        }
        XCTAssertEqual(LicenseEvent.Kind.allCases.count, 5, "the test covers every kind the schema lists")
        assertRoundTrips(.event(DownloadEvent(seq: 0, time: WireTestSupport.date(ms: 0), kind: .license(LicenseEvent(id: "", kind: .error)))))
    }

    func testUnknownLicenceEventKindThrows() {
        var bytes = ProtobufBytes()
        bytes.message(2) {
            $0.varint(1, 4)
            $0.message(13) {
                $0.string(1, "movie")
                $0.varint(2, 9)
            }
        }
        WireTestSupport.assertInvalidArgument(try WireCodec.decodeServerMessage(bytes.buffer), mentioning: ["LicenseEvent.kind", "9"])
    }

    func testTheRecordCarriesDRMAndLicense() throws {
        var download = WireTestSupport.download(id: "movie")
        download.state = .completed
        download.drm = Self.drm
        download.license = Self.terms
        assertRoundTrips(success(.download(download, created: false)))
        assertRoundTrips(.event(DownloadEvent(seq: 8, time: WireTestSupport.date(ms: 9), kind: .stateChanged(download, previous: .downloading))))

        // DRM parameters before any licence is held: drm set, license unset.
        download.license = nil
        assertRoundTrips(success(.download(download, created: true)))
        let record = try ProtobufFields(WireTestSupport.payloadBytes(success(.download(download, created: true)))).message(1).message(11).message(1)
        XCTAssertEqual(try record.message(25).string(2), Self.drm.licenseServer)
        XCTAssertThrowsError(try record.message(26), "license unset while none is held")
    }

    /// A licenced record, as the engine would send it ten minutes into its licence's hour.
    private static func licensedRecord() -> Download {
        var download = WireTestSupport.download(id: "movie")
        download.state = .completed
        download.drm = drm
        download.license = terms
        return download
    }

    private static let tenMinutesIn = WireTestSupport.date(ms: 1_700_000_600_000)

    /// An event tells the record's licence as at the event's time (the engine's clock), not
    /// as at the moment the frame is encoded on the machine's own clock.
    func testAnEventTellsTheRecordsLicenceAsAtTheEvent() throws {
        let event = DownloadEvent(seq: 1, time: Self.tenMinutesIn, kind: .stateChanged(Self.licensedRecord(), previous: .downloading))
        let license = try ProtobufFields(WireTestSupport.payloadBytes(.event(event))).message(2).message(10).message(1).message(26)
        XCTAssertEqual(license.string(3), "valid")
        XCTAssertEqual(license.varint(4), 3000, "license_seconds_left ten minutes into an hour")
    }

    /// A response tells it as at the time the encoder is given.
    func testAResponseTellsTheRecordsLicenceAsAtTheEncodersClock() throws {
        var buffer = ByteBuffer()
        WireCodec.encode(success(.download(Self.licensedRecord(), created: false)), at: Self.tenMinutesIn, into: &buffer)
        let payload = Array(try WireTestSupport.payload(of: buffer).readableBytesView)
        let license = try ProtobufFields(payload).message(1).message(11).message(1).message(26)
        XCTAssertEqual(license.varint(4), 3000, "license_seconds_left ten minutes into an hour")
    }
}
