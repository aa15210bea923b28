import Foundation

extension TestHTTPServer {
    /// The Content-Type `serveDirectory` sends for a file, from its extension:
    /// application/octet-stream for extensions it does not know.
    package static func contentType(forPath path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "m3u8": return "application/vnd.apple.mpegurl"
        case "mpd": return "application/dash+xml"
        case "ts": return "video/mp2t"
        case "m4s", "mp4": return "video/mp4"
        case "m4a": return "audio/mp4"
        case "aac": return "audio/aac"
        case "vtt": return "text/vtt"
        case "txt", "srt": return "text/plain"
        case "json": return "application/json"
        default: return "application/octet-stream"
        }
    }

    /// "/a/b" for "a/b/", "/a/b" or "a/b"; "" for "/" or "".
    static func normalisedPrefix(_ prefix: String) -> String {
        let parts = prefix.split(separator: "/", omittingEmptySubsequences: true)
        return parts.isEmpty ? "" : "/" + parts.joined(separator: "/")
    }

    static func routesForFiles(under directory: String, at prefix: String) -> [(String, TestRoute)] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            preconditionFailure("serveDirectory: '\(directory)' is not a directory")
        }
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return [] }
        var found: [(String, TestRoute)] = []
        while let relative = walker.nextObject() as? String {
            guard let route = fileRoute(at: directory + "/" + relative) else { continue }
            found.append((prefix + "/" + relative, route))
        }
        return found
    }

    /// The route of the file a request path names under a served directory; nil when the path
    /// is not under `prefix`, leaves the directory (`..`) or names no regular file.
    static func fileRoute(requestPath: String, prefix: String, directory: String) -> TestRoute? {
        guard requestPath.hasPrefix(prefix + "/") else { return nil }
        let relative = requestPath.dropFirst(prefix.count + 1)
        guard let decoded = String(relative).removingPercentEncoding else { return nil }
        let components = decoded.split(separator: "/", omittingEmptySubsequences: false)
        guard !components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else { return nil }
        return fileRoute(at: directory + "/" + decoded)
    }

    private static func fileRoute(at path: String) -> TestRoute? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let size = (attributes[.size] as? NSNumber)?.intValue
        else { return nil }
        return TestRoute(body: .file(path: path, size: size), contentType: contentType(forPath: path))
    }
}
