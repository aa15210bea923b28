import Foundation
import GRDB
import StashCore

/// The mapping between a `LicenseRelease` and a row of the `license_release` outbox: the
/// release as JSON, since nothing queries inside it.
enum ReleaseRow {
    static let upsertSQL = """
        INSERT INTO license_release (id, body) VALUES (?, ?)
        ON CONFLICT(id) DO UPDATE SET body = excluded.body
        """
    static let deleteSQL = "DELETE FROM license_release WHERE id = ?"
    static let selectAllSQL = "SELECT id, body FROM license_release"

    static func arguments(for release: LicenseRelease) throws -> StatementArguments {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return [release.id, String(decoding: try encoder.encode(release), as: UTF8.self)]
    }

    static func decode(_ body: String) -> LicenseRelease? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return try? decoder.decode(LicenseRelease.self, from: Data(body.utf8))
    }
}
