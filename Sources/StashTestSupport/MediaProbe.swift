import Foundation

/// What ffprobe and ffmpeg say of a media file: its streams with their languages, its
/// duration, and the checksum of every decoded video frame (to tell a remux from a re-encode).
package enum MediaProbe {
    package struct Stream: Equatable, Sendable {
        /// `video`, `audio` or `subtitle`.
        package var type: String
        package var codec: String
        /// The `language` tag; nil when there is none.
        package var language: String?
        package var title: String?
        package var isDefault: Bool
    }

    package struct Summary: Equatable, Sendable {
        package var format: String
        package var streams: [Stream]
        /// Seconds.
        package var duration: Double

        package func streams(_ type: String) -> [Stream] { streams.filter { $0.type == type } }
    }

    /// `ffprobe -show_streams -show_format -of json`, read.
    package static func summary(of path: String) throws -> Summary {
        let output = try MediaTool.run(
            "ffprobe", ["-v", "error"] + HLSFixture.inputOptions(for: path) + ["-show_streams", "-show_format", "-of", "json", path])
        guard let json = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any],
            let streams = json["streams"] as? [[String: Any]], let format = json["format"] as? [String: Any]
        else { throw HLSFixtureError("ffprobe's JSON for \(path) has no streams or format:\n\(output)") }
        return Summary(
            format: format["format_name"] as? String ?? "",
            streams: streams.map { stream in
                let tags = stream["tags"] as? [String: Any] ?? [:]
                let disposition = stream["disposition"] as? [String: Any] ?? [:]
                return Stream(
                    type: stream["codec_type"] as? String ?? "", codec: stream["codec_name"] as? String ?? "",
                    language: tags["language"] as? String, title: tags["title"] as? String,
                    isDefault: (disposition["default"] as? Int ?? 0) == 1)
            },
            duration: Double(format["duration"] as? String ?? "") ?? 0)
    }

    /// The MD5 of each decoded frame of the first video stream, in order (`-f framemd5`),
    /// without the timestamps: the same list for two files means the same pictures.
    package static func videoFrameHashes(of path: String) throws -> [String] {
        let output = try MediaTool.run(
            "ffmpeg",
            ["-nostdin", "-hide_banner", "-v", "error"] + HLSFixture.inputOptions(for: path) + ["-i", path, "-map", "0:v:0", "-f", "framemd5", "-"],
            failOnStderr: true)
        return output.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("#") }.compactMap { line in
            line.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// The start time in seconds of each packet of stream `index` (`-show_packets`).
    package static func packetTimes(of path: String, stream index: Int) throws -> [Double] {
        let output = try MediaTool.run(
            "ffprobe", ["-v", "error", "-select_streams", String(index), "-show_entries", "packet=pts_time", "-of", "csv=p=0", path])
        return output.split(whereSeparator: \.isNewline).compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }
}
