import Foundation
import StashClient

extension Download {
    /// The public record of DESIGN.md as a JSON object: exactly its keys, nulls for unknowns.
    var publicRecord: [String: Any] {
        var errorValue: Any = NSNull()
        if let error {
            errorValue = ["code": error.kind.name, "message": error.message, "httpStatus": error.httpStatus] as [String: Any]
        }
        return [
            "id": id,
            "uri": uri,
            "title": title,
            "state": state.name,
            "progress": progressPercent,
            "downloadedBytes": downloadedBytes,
            "totalBytes": totalBytes.map { $0 as Any } ?? NSNull(),
            "speed": speed,
            "remainingTime": remainingTime.map { $0 as Any } ?? NSNull(),
            "quality": quality,
            "hasSubtitles": hasSubtitles,
            "hasDRM": hasDRM,
            "assetPath": assetPath,
            "error": errorValue,
            "createdAt": createdAt.ISO8601Format(),
            "completedAt": completedAt.map { $0.ISO8601Format() as Any } ?? NSNull(),
        ]
    }

    /// What `ls` shows in its last column.
    var label: String { title.isEmpty ? uri : title }
}
