import Foundation
import StashKeys
import StashTestSupport
import XCTest

final class ServiceCertificateTests: XCTestCase {
    private var workDir = ""
    private let source = "https://licence.example/certificate"

    override func setUpWithError() throws {
        workDir = NSTemporaryDirectory() + "stash-certificate-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: workDir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: workDir)
    }

    /// Runs the openssl command line, an implementation independent of ours, and returns its output.
    @discardableResult
    private func openssl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "openssl \(arguments.joined(separator: " ")) failed")
        return String(decoding: data, as: UTF8.self)
    }

    private func read(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: workDir + "/" + name)))
    }

    /// A fresh self-signed certificate valid for two days from now: `cert.pem`, `cert.der`, `key.pem`.
    private func makeCertificate() throws -> (pem: [UInt8], der: [UInt8]) {
        try openssl([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=test",
            "-keyout", workDir + "/key.pem", "-out", workDir + "/cert.pem",
        ])
        try openssl(["x509", "-in", workDir + "/cert.pem", "-outform", "DER", "-out", workDir + "/cert.der"])
        return (try read("cert.pem"), try read("cert.der"))
    }

    /// openssl's SHA-256 fingerprint ("sha256 Fingerprint=1D:3A:…") as lowercase hex.
    private func opensslFingerprint() throws -> String {
        let line = try openssl(["x509", "-in", workDir + "/cert.pem", "-noout", "-fingerprint", "-sha256"])
        let value = try XCTUnwrap(line.split(separator: "=", maxSplits: 1).last)
        return value.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: ":", with: "").lowercased()
    }

    /// openssl's notAfter ("notAfter=2026-11-25 21:22:49Z").
    private func opensslNotAfter() throws -> Date {
        let line = try openssl(["x509", "-in", workDir + "/cert.pem", "-noout", "-enddate", "-dateopt", "iso_8601"])
        let value = try XCTUnwrap(line.split(separator: "=", maxSplits: 1).last)
            .trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: " ", with: "T")
        return try XCTUnwrap(ISO8601DateFormatter().date(from: value), value)
    }

    private func assertRefused(
        _ bytes: [UInt8], at now: Date = Date(), _ code: KeysError.Code, mentioning parts: [String], line: UInt = #line
    ) {
        XCTAssertThrowsError(try ServiceCertificate.parse(bytes, at: now, source: source), line: line) { error in
            guard let error = error as? KeysError else { return XCTFail("not a KeysError: \(error)", line: line) }
            XCTAssertEqual(error.code, code, "\(error)", line: line)
            for part in [source] + parts {
                XCTAssertTrue(error.message.contains(part), "'\(part)' not in: \(error.message)", line: line)
            }
        }
    }

    func testReadsAPEMCertificate() throws {
        let (pem, _) = try makeCertificate()
        let now = Date()
        let certificate = try ServiceCertificate.parse(pem, at: now, source: source)
        XCTAssertEqual(certificate.sha256, try opensslFingerprint())
        XCTAssertEqual(certificate.sha256.count, 64)
        XCTAssertEqual(certificate.notAfter, try opensslNotAfter())
        XCTAssertEqual(certificate.notAfter.timeIntervalSince(certificate.notBefore), 2 * 86_400)
        XCTAssertEqual(certificate.notBefore.timeIntervalSince(now), 0, accuracy: 120)
    }

    func testReadsADERCertificateLikeItsPEM() throws {
        let (pem, der) = try makeCertificate()
        XCTAssertEqual(der.first, 0x30)
        let fromDER = try ServiceCertificate.parse(der, at: Date(), source: source)
        XCTAssertEqual(fromDER.sha256, try opensslFingerprint())
        XCTAssertEqual(fromDER, try ServiceCertificate.parse(pem, at: Date(), source: source))
    }

    func testReadsThePEMCertificateAfterOtherText() throws {
        let (pem, _) = try makeCertificate()
        let key = try read("key.pem")
        let certificate = try ServiceCertificate.parse(Array("subject=CN = test\n".utf8) + key + pem, at: Date(), source: source)
        XCTAssertEqual(certificate.sha256, try opensslFingerprint())
    }

    func testRefusesBytesThatAreNotACertificate() throws {
        assertRefused(Array("hello, not a certificate".utf8), .certificateInvalid, mentioning: ["24 bytes", "not a PEM or DER X.509 certificate"])
        assertRefused([0x30, 0x82, 0x01, 0x00, 0xFF], .certificateInvalid, mentioning: ["5 bytes", "not a PEM or DER"])
        assertRefused([], .certificateInvalid, mentioning: ["0 bytes"])
        var generator = SeededRandom.seeded()
        let noise = (0..<512).map { _ in UInt8.random(in: 0...255, using: &generator) }
        assertRefused(noise, .certificateInvalid, mentioning: ["512 bytes"])

        let (pem, der) = try makeCertificate()
        assertRefused(Array(der.prefix(der.count / 2)), .certificateInvalid, mentioning: ["\(der.count / 2) bytes"])
        assertRefused(Array(pem.prefix(pem.count - 100)), .certificateInvalid, mentioning: ["\(pem.count - 100) bytes"])
        let key = try read("key.pem")
        assertRefused(key, .certificateInvalid, mentioning: ["\(key.count) bytes"])
    }

    func testAFailureDoesNotLeakIntoTheNextOne() throws {
        // A DER failure leaves an ASN.1 reason; the PEM failure after it must show its own.
        let der = Result { try ServiceCertificate.parse([0x30, 0x82, 0x01, 0x00, 0xFF], at: Date(), source: source) }
        let pem = Result { try ServiceCertificate.parse(Array("no pem here".utf8), at: Date(), source: source) }
        guard case .failure(let derError as KeysError) = der, case .failure(let pemError as KeysError) = pem else {
            return XCTFail("both should fail with KeysError")
        }
        let reason = { (error: KeysError) in error.message.components(separatedBy: "libcrypto:").dropFirst().first ?? "" }
        XCTAssertTrue(reason(derError).contains("asn1"), derError.message)
        XCTAssertTrue(reason(pemError).contains("PEM routines"), pemError.message)
    }

    func testRefusesAnExpiredCertificate() throws {
        let (pem, _) = try makeCertificate()
        let notAfter = try ServiceCertificate.parse(pem, at: Date(), source: source).notAfter
        XCTAssertNoThrow(try ServiceCertificate.parse(pem, at: notAfter.addingTimeInterval(-1), source: source))
        let expiry = ISO8601DateFormatter().string(from: notAfter)
        assertRefused(pem, at: notAfter, .certificateExpired, mentioning: ["expired at \(expiry)"])
        assertRefused(pem, at: notAfter.addingTimeInterval(86_400 * 365), .certificateExpired, mentioning: [expiry])
    }

    func testRefusesACertificateNotValidYet() throws {
        let (_, der) = try makeCertificate()
        let notBefore = try ServiceCertificate.parse(der, at: Date(), source: source).notBefore
        XCTAssertNoThrow(try ServiceCertificate.parse(der, at: notBefore, source: source))
        assertRefused(
            der, at: notBefore.addingTimeInterval(-1), .certificateNotYetValid,
            mentioning: ["not valid before \(ISO8601DateFormatter().string(from: notBefore))"])
    }
}
