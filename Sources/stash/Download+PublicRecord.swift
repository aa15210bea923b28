import Foundation
import StashClient

extension Download {
    /// The public record of DESIGN.md as a JSON object: exactly its keys, nulls for unknowns.
    /// A bundle adds `bundle`, `filesDone`, `filesTotal` and (from `show`) `files`; an HLS
    /// download adds `hls` (its choice), `segmentsDone` and `segmentsTotal`; one with DRM adds
    /// `drm` (its licence server) and `license` (the licence held, as `stash license check`);
    /// one with side-loaded subtitles adds `textTracks`; one with content rules `expect` and
    /// `minSize` (and each file of a bundle its own); one with request headers `headers`
    /// ("Name: value" each; its licence requests' are the drm's `licenseHeaders`).
    var publicRecord: [String: Any] {
        var errorValue: Any = NSNull()
        if let error {
            errorValue = ["code": error.kind.name, "message": error.message, "httpStatus": error.httpStatus] as [String: Any]
        }
        var record: [String: Any] = [
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
        if isBundle {
            record["bundle"] = true
            record["filesDone"] = filesDone
            record["filesTotal"] = filesTotal
            if !files.isEmpty {
                record["files"] = files.map { file -> [String: Any] in
                    var entry: [String: Any] = [
                        "url": file.url, "path": file.path, "size": file.size.map { $0 as Any } ?? NSNull(),
                        "downloadedBytes": file.downloadedBytes, "done": file.done,
                    ]
                    if !file.expect.isEmpty { entry["expect"] = file.expect }
                    if file.minSize > 0 { entry["minSize"] = file.minSize }
                    return entry
                }
            }
        }
        if let hls {
            record["hls"] = hls.record
            record["segmentsDone"] = filesDone
            record["segmentsTotal"] = filesTotal
        }
        if let drm {
            record["drm"] = [
                "type": drm.kind.rawValue, "licenseServer": drm.licenseServer, "contentId": drm.contentID,
                "certificateUrl": drm.certificateURL, "licenseHeaders": drm.headers.map { "\($0.name): \($0.value)" },
            ] as [String: Any]
        }
        if license != nil {
            record["license"] = LicenseCommand.record(LicenseStatus(self, at: Date()))
        }
        if !headers.isEmpty { record["headers"] = headers.map { "\($0.name): \($0.value)" } }
        if !textTracks.isEmpty { record["textTracks"] = textTracks.map(\.record) }
        if !stateReason.isEmpty { record["stateReason"] = stateReason }
        if !group.isEmpty { record["group"] = group }
        if rateLimit != 0 { record["rateLimit"] = rateLimit }
        if let network { record["network"] = network.rawValue }
        if let onBattery { record["onBattery"] = onBattery.rawValue }
        if !expect.isEmpty { record["expect"] = expect }
        if minSize > 0 { record["minSize"] = minSize }
        record["priority"] = priority.name
        if !appData.isEmpty {
            // As text when it is text (the usual JSON of an app), else base64.
            if let text = String(validating: appData, as: UTF8.self) {
                record["appData"] = text
            } else {
                record["appDataBase64"] = Data(appData).base64EncodedString()
            }
        }
        return record
    }

    /// What `ls` shows in its last column.
    var label: String { title.isEmpty ? (isBundle ? "bundle of \(filesTotal) files" : uri) : title }
}
