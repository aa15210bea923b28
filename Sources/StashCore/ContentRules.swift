/// The checks on an add's content rules (`expect`, `min_size`, for the download and for each
/// file of a bundle); each error names the field, the value and the limit.
package enum ContentRules {
    /// The largest minimum size: a file's largest declared size (1 PiB).
    package static let maxMinSize = BundleRules.maxFileSize

    /// The values checked and normalized (the expectation lowercased); `field` prefixes the
    /// names in errors ("" for the request's own fields, "files[2] 'a.jpg': " for a file's).
    package static func validated(expect: String, minSize: Int64, field: String = "") throws -> (expect: String, minSize: Int64) {
        let expectation = try ContentExpectation.parse(expect, field: field + "expect")
        guard minSize >= 0 else {
            throw StashError.invalidArgument("\(field)min_size \(minSize) is negative")
        }
        guard minSize <= maxMinSize else {
            throw StashError.invalidArgument("\(field)min_size \(minSize) is beyond the limit of \(maxMinSize) bytes")
        }
        return (expectation?.description ?? "", minSize)
    }

    /// The files, each taking the download's rules where it has none of its own.
    package static func inheriting(_ files: [DownloadFile], expect: String, minSize: Int64) -> [DownloadFile] {
        guard !expect.isEmpty || minSize > 0 else { return files }
        return files.map { file in
            var file = file
            if file.expect.isEmpty { file.expect = expect }
            if file.minSize == 0 { file.minSize = minSize }
            return file
        }
    }
}
