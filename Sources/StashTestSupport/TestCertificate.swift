import Foundation

/// Self-signed X.509 certificates (P-256 key, subject "CN=stash test"), made with the
/// `openssl` command-line tool, for tests of service certificates.
package enum TestCertificate {
    package enum Format: Sendable {
        /// Base64 between `-----BEGIN CERTIFICATE-----` lines.
        case pem
        /// The raw ASN.1 bytes.
        case der
    }

    /// Whether `openssl` is on PATH; tests skip when it is not.
    package static var isAvailable: Bool { MediaTool.path(of: "openssl") != nil }

    /// A certificate valid from now for `validDays` days. Writes its key and certificate into
    /// `directory` (test-certificate.key, test-certificate.pem or .der), replacing earlier ones.
    package static func make(in directory: String, validDays: Int = 30, format: Format = .pem) throws -> [UInt8] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let keyPath = directory + "/test-certificate.key"
        let pemPath = directory + "/test-certificate.pem"
        try run([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", keyPath, "-out", pemPath, "-days", String(validDays), "-subj", "/CN=stash test",
        ])
        return try output(pemPath: pemPath, format: format)
    }

    /// A certificate that expired long ago: valid only from 2020-01-01 to 2020-01-02 UTC.
    /// Writes its key and certificate into `directory` (expired-certificate.key,
    /// expired-certificate.pem or .der), replacing earlier ones.
    package static func makeExpired(in directory: String, format: Format = .pem) throws -> [UInt8] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let keyPath = directory + "/expired-certificate.key"
        let pemPath = directory + "/expired-certificate.pem"
        // `req -x509` and `x509 -req` in OpenSSL 3.0 only count days from now; `ca` takes
        // explicit dates, and with -selfsign it signs a request with the request's own key.
        // It insists on a CA database, which lives in a scratch directory.
        let scratch = try DaemonProcess.makeTemporaryDirectory(prefix: "test-certificate")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let configPath = scratch + "/ca.cnf"
        let config = """
            [ca]
            default_ca = selfsigned
            [selfsigned]
            database = \(scratch)/index.txt
            serial = \(scratch)/serial
            new_certs_dir = \(scratch)
            default_md = sha256
            policy = anything
            unique_subject = no
            x509_extensions = extensions
            [anything]
            commonName = supplied
            [extensions]
            basicConstraints = critical, CA:TRUE
            subjectKeyIdentifier = hash

            """
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        try "".write(toFile: scratch + "/index.txt", atomically: true, encoding: .utf8)
        try "01\n".write(toFile: scratch + "/serial", atomically: true, encoding: .utf8)
        try run([
            "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", keyPath, "-out", scratch + "/request.csr", "-subj", "/CN=stash test",
        ])
        try run([
            "ca", "-batch", "-config", configPath, "-selfsign", "-keyfile", keyPath, "-in", scratch + "/request.csr",
            "-startdate", "20200101000000Z", "-enddate", "20200102000000Z", "-notext", "-out", pemPath,
        ])
        return try output(pemPath: pemPath, format: format)
    }

    /// The PEM file's bytes, or those of a DER copy written beside it.
    private static func output(pemPath: String, format: Format) throws -> [UInt8] {
        var path = pemPath
        if format == .der {
            path = (pemPath as NSString).deletingPathExtension + ".der"
            try run(["x509", "-in", pemPath, "-outform", "DER", "-out", path])
        }
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private static func run(_ arguments: [String]) throws {
        guard let executable = MediaTool.path(of: "openssl") else {
            throw TestCertificateError("openssl is not installed (looked in PATH); apt-get install openssl")
        }
        let result = try DaemonProcess.run(executable: URL(fileURLWithPath: executable), arguments: arguments)
        guard result.status == 0 else {
            throw TestCertificateError(
                "openssl exited with status \(result.status): openssl \(arguments.joined(separator: " "))\n"
                    + result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }
}
