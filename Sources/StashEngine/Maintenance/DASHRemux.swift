import Foundation
import StashCore
import StashRemux

/// A DASH package remuxed into one file: each folder of the package (`video`, `audio/<lang>`,
/// `subtitles/<lang>`) read as one stream, its initialization segment first and then its
/// segments, in the order the download's record lists them (the local MPD's order).
struct DASHRemux {
    /// One folder of the package and its files in reading order.
    struct Track: Sendable {
        var folder: String
        var paths: [String]
    }

    let reader: PackageReader
    let tracks: [Track]
    let textTracks: [TextTrack]
    let format: ExportFormat
    /// Whether the package is CENC-encrypted: its segments are decrypted as they are read.
    var encrypted = false

    /// The package's tracks from `download`'s files (its side-loaded text tracks apart). A
    /// package of several periods is refused: each period starts its own timeline.
    static func tracks(of download: Download) throws -> [Track] {
        let sideLoaded = Set(download.textTracks.map(\.path))
        var tracks: [Track] = []
        for file in download.files where !sideLoaded.contains(file.path) {
            let folder = (file.path as NSString).deletingLastPathComponent
            guard !folder.hasPrefix("period") else {
                throw StashError(.failedPrecondition, "download '\(download.id)' is a DASH presentation of several periods, which one file does not join yet; export it to a folder")
            }
            if let index = tracks.firstIndex(where: { $0.folder == folder }) {
                tracks[index].paths.append(file.path)
            } else {
                tracks.append(Track(folder: folder, paths: [file.path]))
            }
        }
        return tracks
    }

    /// The job, with the meter started on the sizes of every file it will read.
    func job(meter: ExportMeter) throws -> RemuxJob {
        let reader = self.reader
        let decryption = encrypted ? CENCDecryption(reader: reader) : nil
        var total: Int64 = 0
        func source(_ paths: [String]) throws -> ChunkSource {
            for path in paths { total = total.addingReportingOverflow(try reader.size(of: path)).partialValue }
            var next = 0
            return ChunkSource {
                guard next < paths.count else { return nil }
                var data = try reader.read(paths[next])
                if let decryption { data = try decryption.clear(data, path: paths[next]) }
                next += 1
                meter.add(data.count)
                return data
            }
        }
        // The video is the main input; an audio-only package's first audio is.
        let main = tracks.first { $0.folder == "video" } ?? tracks.first { $0.folder.hasPrefix("audio/") }
        var media: [MediaTrackInput] = []
        var subtitles: [SubtitleTrackInput] = []
        for track in tracks {
            let tag = track.folder.split(separator: "/").dropFirst().first.map { Self.language(ofFolder: String($0)) }
            let language = tag == "und" ? nil : tag
            if track.folder == main?.folder {
                media.insert(MediaTrackInput(source: try source(track.paths), name: track.folder, role: .main, language: language), at: 0)
            } else if track.folder.hasPrefix("audio/") {
                media.append(MediaTrackInput(source: try source(track.paths), name: track.folder, role: .audio, language: language))
            } else if track.folder.hasPrefix("subtitles/"), track.paths.allSatisfy({ $0.hasSuffix(".vtt") }) {
                // A WebVTT file of a DASH text track counts from the presentation's start.
                subtitles.append(SubtitleTrackInput(source: try source(track.paths), name: track.folder, format: .webvtt,
                                                    language: language, onMediaClock: false))
            }
        }
        guard main != nil else {
            throw StashError(.failedPrecondition, "the DASH package in \(reader.folder) has no video or audio to write")
        }
        for track in textTracks {
            subtitles.append(SubtitleTrackInput(
                source: try source([track.path]), name: "the text track \(track.path)", format: track.type == "srt" ? .subrip : .webvtt,
                language: track.language, title: track.title, onMediaClock: false))
        }
        meter.start(total: total)
        return RemuxJob(format: format, media: media, subtitles: subtitles)
    }

    /// `fr` of the folder `fr` or `fr-2` (a second set of one language).
    static func language(ofFolder name: String) -> String {
        guard let dash = name.lastIndex(of: "-"), name[name.index(after: dash)...].allSatisfy(\.isNumber) else { return name }
        return String(name[..<dash])
    }
}
