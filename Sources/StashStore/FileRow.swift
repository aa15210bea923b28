import GRDB
import StashCore

/// The mapping between a `DownloadFile` and a row of the `download_file` table. Only what the
/// disk cannot tell is stored: where the file comes from and goes, its expected size and
/// digest, the validators of its partial bytes and whether its URL changed since.
enum FileRow {
    static let upsertSQL = """
        INSERT INTO download_file (download_id, idx, url, path, size, sha256, etag, last_modified, range_offset, expect, min_size, new_url)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(download_id, idx) DO UPDATE SET
            url = excluded.url, path = excluded.path, size = excluded.size,
            sha256 = excluded.sha256, etag = excluded.etag, last_modified = excluded.last_modified,
            range_offset = excluded.range_offset, expect = excluded.expect, min_size = excluded.min_size, new_url = excluded.new_url
        """

    static let deleteAllSQL = "DELETE FROM download_file WHERE download_id = ?"

    /// In primary-key order, which is the table's own: a scan with no sort. Each download's
    /// files come together, by index.
    static let selectAllSQL = """
        SELECT download_id, idx, url, path, size, sha256, etag, last_modified, range_offset, expect, min_size, new_url
        FROM download_file ORDER BY download_id, idx
        """

    /// Binds the parameters of `upsertSQL`, in its order, and writes the row.
    static func write(downloadID: String, index: Int, file: DownloadFile, with upsert: inout RowStatement) throws {
        upsert.add(downloadID)
        upsert.add(index)
        upsert.add(file.url)
        upsert.add(file.path)
        upsert.add(file.size)
        upsert.add(file.sha256)
        upsert.add(file.etag)
        upsert.add(file.lastModified)
        upsert.add(file.rangeOffset)
        upsert.add(file.expect)
        upsert.add(file.minSize)
        upsert.add(file.newURL)
        try upsert.run()
    }

    /// One row, or nil with a problem when a required field is missing.
    static func decode(_ row: Row, problems: inout [String]) -> (downloadID: String, file: DownloadFile)? {
        do {
            let downloadID = try row.decode(String.self, atIndex: 0)
            let index = try row.decode(Int.self, atIndex: 1)
            guard let url = try row.decode(String?.self, atIndex: 2), let path = try row.decode(String?.self, atIndex: 3), !path.isEmpty else {
                problems.append("file \(index) of download '\(downloadID)' skipped: url or path is missing")
                return nil
            }
            var file = DownloadFile(
                url: url, path: path, size: try row.decode(Int64?.self, atIndex: 4),
                sha256: try row.decode(String?.self, atIndex: 5) ?? "",
                etag: try row.decode(String?.self, atIndex: 6), lastModified: try row.decode(String?.self, atIndex: 7),
                rangeOffset: try row.decode(Int64?.self, atIndex: 8))
            (file.expect, file.minSize) = ContentRow.decode(
                expect: try row.decode(String?.self, atIndex: 9), minSize: try row.decode(Int64?.self, atIndex: 10),
                label: "file \(index) of download '\(downloadID)'", problems: &problems)
            file.newURL = try row.decode(Bool?.self, atIndex: 11) ?? false
            return (downloadID, file)
        } catch {
            problems.append("a file row skipped: \(error)")
            return nil
        }
    }
}
