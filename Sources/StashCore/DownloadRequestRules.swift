import Foundation

/// The checks every new download passes before anything is stored. Each error names the
/// field, the value and the rule, so a client can fix its request.
package enum DownloadRequestRules {
    package static let maxIDLength = 128
    package static let maxURILength = 8192
    package static let maxTitleLength = 1024
    package static let maxHeaders = 64
    package static let maxAppDataBytes = 65_536
    package static let maxGroupBytes = 1024

    /// Ids become folder names under `assets/`, so they are restricted to a safe alphabet.
    package static func validateID(_ id: String) throws {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        guard !id.isEmpty, id.count <= maxIDLength else {
            throw StashError.invalidArgument("id '\(id.prefix(200))' must be 1 to \(maxIDLength) characters (got \(id.count))")
        }
        guard id.allSatisfy({ allowed.contains($0) }), id != ".", id != ".." , !id.hasPrefix(".") else {
            throw StashError.invalidArgument("id '\(id)' may use only letters, digits, '.', '_' and '-', and may not start with '.'")
        }
    }

    /// Only absolute http and https URLs with a host are accepted.
    package static func validateURI(_ uri: String) throws {
        try validateURI(uri, parsed: nil)
    }

    /// As `validateURI(_:)`, with `parsed` the caller's `URLComponents(string: uri)` when it
    /// parsed the URI already (an add asks several questions of it); parsed here when nil.
    package static func validateURI(_ uri: String, parsed: URLComponents?) throws {
        guard !uri.isEmpty else { throw StashError.invalidArgument("uri is empty; give an http:// or https:// URL") }
        guard uri.utf8.count <= maxURILength else {
            throw StashError.invalidArgument("uri is \(uri.utf8.count) bytes; the limit is \(maxURILength)")
        }
        guard !uri.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7f }) else {
            throw StashError.invalidArgument("uri '\(uri.prefix(200))' contains spaces or control characters; percent-encode them")
        }
        guard let components = parsed ?? URLComponents(string: uri), let scheme = components.scheme?.lowercased() else {
            throw StashError.invalidArgument("uri '\(uri.prefix(200))' is not a valid URL")
        }
        guard scheme == "http" || scheme == "https" else {
            throw StashError.invalidArgument("uri '\(uri.prefix(200))' has unsupported scheme '\(scheme)'; only http and https are supported")
        }
        guard let host = components.host, !host.isEmpty else {
            throw StashError.invalidArgument("uri '\(uri.prefix(200))' has no host")
        }
    }

    /// Returns the digest in lowercase; empty stays empty (no check).
    package static func normalizeSHA256(_ hex: String) throws -> String {
        if hex.isEmpty { return "" }
        let lower = hex.lowercased()
        guard lower.count == 64, lower.allSatisfy({ $0.isHexDigit }) else {
            throw StashError.invalidArgument("sha256 '\(hex.prefix(100))' must be 64 hexadecimal characters (got \(hex.count))")
        }
        return lower
    }

    package static func validateTitle(_ title: String) throws {
        guard title.count <= maxTitleLength else {
            throw StashError.invalidArgument("title is \(title.count) characters; the limit is \(maxTitleLength)")
        }
    }

    package static func validateAppData(_ data: [UInt8]) throws {
        guard data.count <= maxAppDataBytes else {
            throw StashError.invalidArgument("app_data is \(data.count) bytes; the limit is \(maxAppDataBytes)")
        }
    }

    /// A group is a path of segments of `A-Z a-z 0-9 . _ -` joined by `/`: no empty segment,
    /// no `.` or `..`, at most 1024 bytes. Empty means no group.
    package static func validateGroup(_ group: String, field: String = "group") throws {
        guard !group.isEmpty else { return }
        guard group.utf8.count <= maxGroupBytes else {
            throw StashError.invalidArgument("\(field) is \(group.utf8.count) bytes; the limit is \(maxGroupBytes)")
        }
        for segment in group.split(separator: "/", omittingEmptySubsequences: false) {
            let allowed = !segment.isEmpty && segment != "." && segment != ".." && segment.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            }
            guard allowed else {
                throw StashError.invalidArgument("\(field) '\(group.prefix(200))': segment '\(segment.prefix(100))' must be 1 or more of A-Z a-z 0-9 . _ - (not . or ..), segments joined by /")
            }
        }
    }

    /// The group a group operation acts on: a group path, and not empty, since an empty
    /// group would take every download and `every` (PauseAll, ...) is the operation for that.
    package static func validateTargetGroup(_ group: String, every: String) throws {
        guard !group.isEmpty else {
            throw StashError.invalidArgument("group '' is empty: give a group path such as one-piece/chapter-12; use \(every) for every download")
        }
        try validateGroup(group)
    }

    /// Whether a download of `group` is in the group `prefix` or one under it (`a/b` is in
    /// `a`, `a-2` is not). An empty prefix takes every download.
    package static func group(_ group: String, isIn prefix: String) -> Bool {
        prefix.isEmpty || group == prefix || (group.hasPrefix(prefix) && group.utf8.dropFirst(prefix.utf8.count).first == UInt8(ascii: "/"))
    }

    /// A stop reason is shown as the download's state reason: as long as a title at most.
    package static func validateStopReason(_ reason: String) throws {
        guard reason.count <= maxTitleLength else {
            throw StashError.invalidArgument("reason is \(reason.count) characters; the limit is \(maxTitleLength)")
        }
    }

    package static func validateHeaders(_ headers: [HTTPHeader]) throws {
        guard headers.count <= maxHeaders else {
            throw StashError.invalidArgument("\(headers.count) headers given; the limit is \(maxHeaders)")
        }
        for header in headers { try header.validate() }
    }
}
