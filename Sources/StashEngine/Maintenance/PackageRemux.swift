import Foundation
import StashCore
import StashHLS
import StashRemux

/// An HLS download's package as the inputs of one file (`Remuxer`): the variant's playlist,
/// each audio rendition, each subtitle rendition, as its master lists them, then the
/// side-loaded text tracks. Each input reads its files in playlist order, an init section
/// before the first segment it applies to, every file decrypted in memory as it is read and
/// counted on the meter; nothing clear is written anywhere but into the file.
struct PackageRemux {
    let reader: PackageReader
    let textTracks: [TextTrack]
    let format: ExportFormat

    /// The job, with the meter started on the sizes of every file it will read.
    func job(meter: ExportMeter) throws -> RemuxJob {
        let reader = self.reader
        func source(_ pieces: [Piece]) -> ChunkSource {
            var next = 0
            return ChunkSource {
                guard next < pieces.count else { return nil }
                let piece = pieces[next]
                next += 1
                let data = try reader.read(piece.path)
                meter.add(data.count)
                return try reader.decrypted(data, of: piece.segment, in: piece.folder)
            }
        }
        let master = try reader.text(PackagePlan.masterPath)
        let contents: (variant: String, audio: [Rendition], subtitles: [Rendition])
        do {
            contents = try LocalMasterPlaylist.contents(master)
        } catch {
            throw StashError(.failedPrecondition, "the package's master \(reader.folder)/\(PackagePlan.masterPath) is damaged (\(error)); `stash verify --repair` rewrites it")
        }
        var total: Int64 = 0
        func pieces(_ playlist: String) throws -> [Piece] {
            let found = Self.pieces(of: try reader.mediaPlaylist(playlist), at: playlist)
            for piece in found { total = total.addingReportingOverflow(try reader.size(of: piece.path)).partialValue }
            return found
        }
        let variant = try reader.mediaPlaylist(contents.variant)
        var media = [
            MediaTrackInput(source: source(try pieces(contents.variant)), name: "the variant \(contents.variant)", role: .main)
        ]
        for rendition in contents.audio {
            guard let playlist = rendition.uri else { continue }
            media.append(MediaTrackInput(
                source: source(try pieces(playlist)), name: "the audio rendition \(playlist)", role: .audio,
                language: rendition.language, title: rendition.name, isDefault: rendition.isDefault))
        }
        var subtitles: [SubtitleTrackInput] = []
        for rendition in contents.subtitles {
            guard let playlist = rendition.uri else { continue }
            subtitles.append(SubtitleTrackInput(
                source: source(try pieces(playlist)), name: "the subtitle rendition \(playlist)", format: .webvtt,
                language: rendition.language, title: rendition.name, isDefault: rendition.isDefault, forced: rendition.forced,
                onMediaClock: true))
        }
        for track in textTracks {
            total = total.addingReportingOverflow(try reader.size(of: track.path)).partialValue
            let piece = Piece(path: track.path, segment: LocalSegment(path: track.path), folder: "")
            subtitles.append(SubtitleTrackInput(
                source: source([piece]), name: "the text track \(track.path)", format: track.type == "srt" ? .subrip : .webvtt,
                language: track.language, title: track.title, onMediaClock: false,
                startsAt: SegmentWindow.microseconds(variant.windowStart)))
        }
        meter.start(total: total)
        return RemuxJob(format: format, media: media, subtitles: subtitles)
    }

    /// One file an input reads: its path in the package, and what decrypts it.
    struct Piece {
        var path: String
        var segment: LocalSegment
        /// The playlist's folder, which the segment's paths are relative to.
        var folder: String
    }

    /// The files of `playlist` in reading order: each init section before the first segment
    /// read with it (again after a segment read with another).
    static func pieces(of playlist: LocalMediaPlaylist, at path: String) -> [Piece] {
        let folder = (path as NSString).deletingLastPathComponent
        var found: [Piece] = []
        var current: String?
        for segment in playlist.segments {
            if let map = segment.initSection, map != current, let section = playlist.initSections.first(where: { $0.path == map }) {
                found.append(Piece(path: PackageReader.join(folder, map), segment: section, folder: folder))
            }
            current = segment.initSection
            found.append(Piece(path: PackageReader.join(folder, segment.path), segment: segment, folder: folder))
        }
        return found
    }
}
