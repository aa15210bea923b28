import Foundation
import StashCore

/// Where a download's files live under the data dir. Paths in the registry are relative, so
/// a data dir that is moved or restored from a backup still resolves.
struct AssetLayout: Sendable {
    let dataDir: String

    var assetsDir: String { dataDir + "/assets" }

    /// The relative path of a single-file download: `assets/<id>/<name from the URL>`.
    func relativeFilePath(id: String, uri: String) -> String {
        "assets/\(id)/\(Self.fileName(from: uri))"
    }

    /// The relative path of a bundle: its folder, `assets/<id>`.
    func relativeFolderPath(id: String) -> String { "assets/\(id)" }

    func absolute(_ relative: String) -> String { dataDir + "/" + relative }

    func assetFolder(id: String) -> String { assetsDir + "/" + id }

    /// Where a file of a download lands; its partial bytes are at this path plus `.part`.
    func filePath(id: String, _ file: DownloadFile) -> String { assetFolder(id: id) + "/" + file.path }

    /// The last path component of the URL, reduced to a safe file name; `download` when the
    /// URL has none.
    static func fileName(from uri: String) -> String {
        let path = URLComponents(string: uri)?.percentEncodedPath ?? ""
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        let decoded = last.removingPercentEncoding ?? last
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-+")
        var name = String(decoded.map { allowed.contains($0) ? $0 : "_" }.prefix(200))
        while name.hasPrefix(".") { name.removeFirst() }
        if name.hasSuffix(".part") { name += "_" }
        return name.isEmpty ? "download" : name
    }
}
