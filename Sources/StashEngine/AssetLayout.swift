import Foundation
import StashCore

/// Where a download's files live under the data dir. Paths in the registry are relative, so
/// a data dir that is moved or restored from a backup still resolves.
struct AssetLayout: Sendable {
    let dataDir: String
    /// Kept rather than put together at each use: every download's paths start with it.
    let assetsDir: String

    init(dataDir: String) {
        self.dataDir = dataDir
        assetsDir = dataDir + "/assets"
    }

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

    /// Every file's part file (`<path>.part` under the asset folder) must fit in PATH_MAX;
    /// `label` names the entry of the request in the error.
    func checkPathLengths(_ files: [DownloadFile], id: String, label: (Int) -> String) throws {
        let folder = assetFolder(id: id)
        let limit = Int(PATH_MAX) - 1
        if let index = files.indices.first(where: { folder.utf8.count + 1 + files[$0].path.utf8.count + 5 > limit }) {
            throw StashError.invalidArgument("\(label(index)): path '\(files[index].path.prefix(200))' is too long: under \(folder) it would exceed the file system's \(limit) bytes")
        }
    }

    /// The record as clients see it: its asset path absolute. The files' resume validators
    /// stay in it: the wire encoding never carries them.
    func publicView(_ download: Download) -> Download {
        var view = download
        view.assetPath = absolute(download.assetPath)
        return view
    }

    /// The record in an event: without a bundle's file list (its counts stay), so a bundle of
    /// thousands of files does not make every state change a large frame.
    func eventView(_ download: Download) -> Download {
        var view = publicView(download)
        view.files = []
        return view
    }

    /// The last path component of the URL, reduced to a safe file name; `download` when the
    /// URL has none.
    static func fileName(from uri: String) -> String {
        fileName(percentEncodedPath: URLComponents(string: uri)?.percentEncodedPath ?? "")
    }

    /// As `fileName(from:)` for a URL's path as it is written in the URL.
    static func fileName(percentEncodedPath path: String) -> String {
        // The last segment that is not empty (`/a/b/` names `b`), found from the end: every
        // add names its file here, and splitting the whole path built an array to keep one.
        let slash = UInt8(ascii: "/")
        let utf8 = path.utf8
        guard let lastByte = utf8.lastIndex(where: { $0 != slash }) else { return safeFileName("") }
        let end = utf8.index(after: lastByte)
        let start = utf8[..<end].lastIndex(of: slash).map { utf8.index(after: $0) } ?? utf8.startIndex
        let last = String(path[start..<end])
        // Foundation's decoding goes through an NSString; a name without `%` has nothing to decode.
        guard utf8[start..<end].contains(UInt8(ascii: "%")) else { return safeFileName(last) }
        return safeFileName(last.removingPercentEncoding ?? last)
    }

    /// A name reduced to `A-Z a-z 0-9 . _ - +`, at most 200 characters, not hidden and not
    /// ending in `.part`; `download` when nothing is left.
    static func safeFileName(_ decoded: String) -> String {
        // By character, as a reader counts them: a multi-byte letter becomes one `_`. A name
        // of ASCII but for CR (CR LF is one character of two bytes) has a character a byte,
        // and is walked by byte: the walk by character cost 1 % of stashd's CPU per download.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(decoded.utf8.count, 200))
        if decoded.utf8.allSatisfy({ $0 < 0x80 && $0 != UInt8(ascii: "\r") }) {
            for byte in decoded.utf8.prefix(200) { bytes.append(Self.allowedInFileName(byte) ? byte : UInt8(ascii: "_")) }
        } else {
            for character in decoded.prefix(200) {
                let byte = character.utf8.count == 1 ? character.utf8.first ?? 0 : 0
                bytes.append(Self.allowedInFileName(byte) ? byte : UInt8(ascii: "_"))
            }
        }
        var name = String(decoding: bytes.drop { $0 == UInt8(ascii: ".") }, as: UTF8.self)
        if name.hasSuffix(".part") { name += "_" }
        return name.isEmpty ? "download" : name
    }

    private static func allowedInFileName(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "+"):
            return true
        default:
            return false
        }
    }
}
