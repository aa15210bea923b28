/// The checks on the files of a new bundle. A path names a file inside the asset's folder and
/// must never reach outside it, whatever the client sends; each error names the entry (by its
/// position and path), the value and the rule.
package enum BundleRules {
    package static let maxFiles = 10_000
    /// Linux NAME_MAX: the longest file name a component may have, in bytes.
    package static let maxComponentBytes = 255
    /// The longest relative path, in bytes; with the data dir it must stay under PATH_MAX (4096).
    package static let maxPathBytes = 1024
    /// The largest size a file may declare (1 PiB), and the most a bundle's sizes may add up
    /// to (4 PiB): far above any disk, and far below where a sum of them could overflow.
    package static let maxFileSize: Int64 = 1 << 50
    package static let maxTotalSize: Int64 = 1 << 52

    /// Checks every file and turns them into the download's files. A file without a path
    /// takes its name from the URL (`fileName(from:)`).
    package static func files(from specs: [BundleFileSpec], fileName: (String) -> String) throws -> [DownloadFile] {
        guard !specs.isEmpty else {
            throw StashError.invalidArgument("files is empty; a bundle needs at least one file")
        }
        guard specs.count <= maxFiles else {
            throw StashError.invalidArgument("files has \(specs.count) entries; the limit is \(maxFiles)")
        }
        var files: [DownloadFile] = []
        files.reserveCapacity(specs.count)
        var seen: [String: Int] = [:]
        // Each size is at most maxFileSize and the sum is checked after each, so it stays far
        // from overflowing.
        var declared: Int64 = 0
        for (index, spec) in specs.enumerated() {
            let label = "files[\(index)]"
            do {
                try DownloadRequestRules.validateURI(spec.url)
            } catch let error as StashError {
                throw StashError.invalidArgument("\(label): \(error.message)")
            }
            let path = spec.path.isEmpty ? fileName(spec.url) : spec.path
            try validatePath(path, label: label)
            guard spec.size >= 0 else {
                throw StashError.invalidArgument("\(label) '\(path)': size \(spec.size) is negative")
            }
            guard spec.size <= maxFileSize else {
                throw StashError.invalidArgument("\(label) '\(path)': size \(spec.size) is beyond the limit of \(maxFileSize) bytes")
            }
            declared += spec.size
            guard declared <= maxTotalSize else {
                throw StashError.invalidArgument("\(label) '\(path)': the sizes of files[0...\(index)] add up to \(declared) bytes, beyond the limit of \(maxTotalSize) for a bundle")
            }
            let digest: String
            do {
                digest = try DownloadRequestRules.normalizeSHA256(spec.sha256)
            } catch let error as StashError {
                throw StashError.invalidArgument("\(label) '\(path)': \(error.message)")
            }
            if let first = seen[path] {
                throw StashError.invalidArgument("\(label) has path '\(path)', the same as files[\(first)]; each file needs its own path")
            }
            seen[path] = index
            let rules = try ContentRules.validated(expect: spec.expect, minSize: spec.minSize, field: "\(label) '\(path.prefix(200))': ")
            files.append(DownloadFile(url: spec.url, path: path, size: spec.size > 0 ? spec.size : nil, sha256: digest,
                                      expect: rules.expect, minSize: rules.minSize))
        }
        // A path that is also another entry's folder cannot be both a file and a folder.
        let folders = folders(of: files)
        if let clash = files.first(where: { folders.contains($0.path) }) {
            throw StashError.invalidArgument("files: '\(clash.path)' is a file and also the folder of another entry")
        }
        return files
    }

    /// A path inside the asset's folder: relative, no `.`/`..`/empty component, no NUL or
    /// backslash, no `.part` ending (that name is taken by partial files), within the limits.
    package static func validatePath(_ path: String, label: String) throws {
        let shown = String(path.prefix(200)).replacingNUL()
        func refuse(_ rule: String) -> StashError {
            .invalidArgument("\(label): path '\(shown)' \(rule)")
        }
        guard !path.isEmpty else { throw refuse("is empty") }
        guard !path.hasPrefix("/") else { throw refuse("is absolute; give a path relative to the asset's folder") }
        guard !path.utf8.contains(0) else { throw refuse("contains a NUL byte") }
        guard !path.contains("\\") else { throw refuse("contains a backslash; use '/' between folders") }
        guard path.utf8.count <= maxPathBytes else {
            throw refuse("is \(path.utf8.count) bytes; the limit is \(maxPathBytes)")
        }
        for component in path.split(separator: "/", omittingEmptySubsequences: false) {
            if component == ".." { throw refuse("contains '..'; a file may not leave the asset's folder") }
            if component.isEmpty || component == "." { throw refuse("has an empty or '.' component") }
            if component.utf8.count > maxComponentBytes {
                throw refuse("has a component of \(component.utf8.count) bytes; the file system allows \(maxComponentBytes)")
            }
        }
        guard !path.hasSuffix(".part") else { throw refuse("ends in '.part', which stash uses for partial files") }
    }
}

extension String {
    /// For messages: a NUL shown as `\0` so the text stays printable.
    func replacingNUL() -> String {
        String(unicodeScalars.map { $0 == "\0" ? "\\0" : String($0) }.joined())
    }
}
