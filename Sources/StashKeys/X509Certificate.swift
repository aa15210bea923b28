import CCrypto
import Foundation
import StashCrypto

/// One libcrypto X509 certificate, freed with the wrapper. Every libcrypto result goes
/// through `check` (`CryptoError.check`, with libcrypto's reason) and becomes an error that
/// names the source of the bytes.
final class X509Certificate {
    private let certificate: OpaquePointer
    /// Where the bytes came from (a URL or a path), for messages.
    private let source: String

    /// Parses `bytes` as a DER certificate, or as PEM (the first certificate when there are
    /// several) when they do not start like DER.
    init(parsing bytes: [UInt8], source: String) throws {
        self.source = source
        let parsed: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            guard let start = buffer.baseAddress, !buffer.isEmpty else { return nil }
            // A DER certificate is an ASN.1 SEQUENCE, whose first byte is 0x30; PEM is text.
            if buffer[0] == 0x30 {
                var next: UnsafePointer<UInt8>? = start
                return d2i_X509(nil, &next, buffer.count)
            }
            // A certificate is a few KiB; bytes past 2 GiB could not be one anyway.
            guard let bio = BIO_new_mem_buf(start, Int32(clamping: buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_X509(bio, nil, nil, nil)
        }
        certificate = try Self.check(
            parsed, "the service certificate from \(source) (\(bytes.count) bytes) is not a PEM or DER X.509 certificate")
    }

    deinit {
        X509_free(certificate)
    }

    /// The certificate's DER encoding, the bytes its fingerprint is taken over.
    func der() throws -> [UInt8] {
        let failure = "the service certificate from \(source) could not be encoded as DER"
        let length = i2d_X509(certificate, nil)
        let size = try Self.check(length > 0 ? length : nil, failure)
        var bytes = [UInt8](repeating: 0, count: Int(size))
        let written = bytes.withUnsafeMutableBufferPointer { buffer in
            var next = buffer.baseAddress
            return i2d_X509(certificate, &next)
        }
        _ = try Self.check(written == size ? written : nil, failure)
        return bytes
    }

    var notBefore: Date {
        get throws { try date(X509_get0_notBefore(certificate), field: "notBefore") }
    }

    var notAfter: Date {
        get throws { try date(X509_get0_notAfter(certificate), field: "notAfter") }
    }

    private func date(_ time: UnsafePointer<ASN1_TIME>?, field: String) throws -> Date {
        let failure = "the service certificate from \(source) has a \(field) that is not a valid time"
        // Checked before ASN1_TIME_to_tm, which reads a NULL time as the current time.
        let time = try Self.check(time, failure)
        var parts = tm()
        _ = try Self.check(ASN1_TIME_to_tm(time, &parts) == 1 ? parts : nil, failure)
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }

    /// `value`, or a `.certificateInvalid` error saying `failure` and libcrypto's first reason.
    private static func check<Value>(_ value: Value?, _ failure: @autoclosure () -> String) throws -> Value {
        do {
            return try CryptoError.check("X509", value)
        } catch {
            throw KeysError(.certificateInvalid, error.reason.isEmpty ? failure() : "\(failure()) (libcrypto: \(error.reason))")
        }
    }
}
