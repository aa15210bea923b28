import Foundation
import StashCore
import StashTestSupport
import XCTest
@testable import StashHLS

/// The playlist corpus (`Corpus/`, see `HLSCorpusEntry` for its `##` lines): RFC 8216's
/// examples and the quirks real packagers write. Each is planned or refused as its file says,
/// and each that stash plans and ffmpeg can read is served with real media and read by
/// ffprobe, which must find the same duration and fetch the same segments stash would.
final class PlaylistCorpusTests: XCTestCase {
    static let corpusDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Corpus").path

    private func corpus() throws -> [HLSCorpusEntry] {
        let entries = try HLSCorpusEntry.load(directory: Self.corpusDirectory)
        XCTAssertGreaterThanOrEqual(entries.count, 25, "the corpus is read from \(Self.corpusDirectory)")
        return entries
    }

    /// The plan as `stash add` makes it, from playlists by URL: the master's default choice, or
    /// the media playlist alone; and the warnings `stash plan` shows.
    private func plan(_ url: String, text: String, mediaText: (String) throws -> String?) throws -> (plan: PackagePlan, warnings: [String]) {
        switch try Playlist.parse(text, baseURL: url) {
        case .media(let playlist):
            return (try PackagePlan.make(masterURI: url, selection: nil, media: [url: playlist]), playlist.warnings)
        case .master(let master):
            let selection = try master.select(HLSOptions())
            var media: [String: MediaPlaylist] = [:]
            for uri in [selection.variant.uri] + selection.audio.compactMap(\.uri) + selection.subtitles.compactMap(\.uri) {
                guard let text = try mediaText(uri) else { continue }
                guard case .media(let playlist) = try Playlist.parse(text, baseURL: uri) else { throw HLSFixtureError("\(uri) is not a media playlist") }
                media[uri] = playlist
            }
            return (try PackagePlan.make(masterURI: url, selection: selection, media: media), master.warnings)
        }
    }

    func testEachPlaylistIsPlannedOrRefusedAsItsFileSays() throws {
        for entry in try corpus() {
            let url = "https://corpus.example.com/streams/" + entry.name
            // A master's media playlists are not in the corpus: any VOD playlist stands in.
            let stand = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n#EXT-X-ENDLIST\n"
            switch entry.expectation {
            case .accepted:
                do {
                    let (made, warnings) = try plan(url, text: entry.text) { _ in stand }
                    XCTAssertFalse(made.files.isEmpty, entry.name)
                    XCTAssertEqual(warnings.count, entry.warnings.count, "\(entry.name): \(warnings)")
                    for expected in entry.warnings {
                        XCTAssertTrue(warnings.contains { $0.contains(expected) }, "\(entry.name): no warning says '\(expected)' in \(warnings)")
                    }
                } catch {
                    XCTFail("\(entry.name) (\(entry.description)) is refused: \(error)")
                }
            case .refused(let code, let mentions):
                XCTAssertThrowsError(try plan(url, text: entry.text) { _ in stand }, entry.name) { error in
                    guard let error = error as? HLSError else { return XCTFail("\(entry.name): not an HLSError: \(error)") }
                    XCTAssertEqual(error.code.rawValue, code, "\(entry.name): \(error.message)")
                    XCTAssertTrue(error.message.contains(mentions), "\(entry.name): '\(error.message)' does not say '\(mentions)'")
                }
            }
        }
    }

    /// Every quirk the issue names is in the corpus, accepted.
    func testTheCorpusHoldsEveryQuirkAndEveryRefusal() throws {
        let names = Dictionary(uniqueKeysWithValues: try corpus().map { ($0.name, $0.expectation) })
        for name in ["quirk-no-targetduration", "quirk-stream-inf-space-after-comma", "quirk-key-space-after-comma",
                     "quirk-stream-inf-no-bandwidth", "quirk-negative-media-sequence", "quirk-stray-lines", "quirk-master-stray-lines",
                     "quirk-iptv-extinf", "quirk-skd-opaque-id"] {
            XCTAssertEqual(names[name + ".m3u8"], .accepted, name)
        }
        for section in ["8.1", "8.4", "8.5", "8.6", "8.7"] {
            XCTAssertEqual(names.first { $0.key.hasPrefix("rfc8216-\(section)-") }?.value, .accepted, section)
        }
        let refusals = names.values.compactMap { expectation -> String? in
            guard case .refused(let code, _) = expectation else { return nil }
            return code
        }
        XCTAssertEqual(Set(refusals), ["unsupported", "invalidURI", "tooLarge", "invalidIV", "invalidDuration"])
    }

    /// ffprobe plays each accepted playlist from the test server, fetching every segment, and
    /// reads the same duration and the same segments as stash. For a master, ffmpeg reads every
    /// variant and rendition: stash must name the same media playlists, and their segments.
    func testFFprobeReadsTheSameDurationAndSegmentsAsStash() throws {
        try XCTSkipUnless(HLSFixture.isAvailable, "ffmpeg and ffprobe are needed (make deps installs them)")
        let root = try DaemonProcess.makeTemporaryDirectory(prefix: "hls-corpus")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let segment = try HLSCorpusSite.makeSegment(in: root)
        let server = try TestHTTPServer.start()
        defer { server.stop() }
        var compared: [String] = []
        for entry in try corpus() where entry.expectation == .accepted && entry.ffprobeSkipped == nil {
            let prefix = "/c/" + entry.name.replacingOccurrences(of: ".m3u8", with: "")
            let site = try HLSCorpusSite.make(entry, in: root + prefix, origin: server.url(""), prefix: prefix, segment: segment)
            server.serveDirectory(site.directory, at: prefix)
            let url = server.url(prefix + "/" + site.playlistPath)
            let seconds = try ffprobeDuration(url, entry: entry)
            let fetched = server.requests.map(\.path).filter { $0.hasPrefix(prefix + "/") }.map { String($0.dropFirst(prefix.count + 1)) }
            try compare(entry, site: site, url: url, prefix: prefix, server: server, ffprobe: (seconds, fetched))
            compared.append(entry.name)
        }
        XCTAssertGreaterThanOrEqual(compared.count, 15, "\(compared)")
    }

    private func ffprobeDuration(_ url: String, entry: HLSCorpusEntry) throws -> Double {
        do {
            return try HLSCorpusSite.ffprobeDuration(url)
        } catch {
            throw HLSFixtureError("ffprobe could not read \(entry.name) (\(entry.description)): \(error)")
        }
    }

    private func compare(_ entry: HLSCorpusEntry, site: HLSCorpusSite, url: String, prefix: String, server: TestHTTPServer,
                         ffprobe: (seconds: Double, fetched: [String])) throws {
        let local = { (absolute: String) -> String? in
            let base = server.url(prefix + "/")
            return absolute.hasPrefix(base) ? String(absolute.dropFirst(base.count)) : nil
        }
        let read = { (path: String) in try String(contentsOfFile: site.directory + "/" + path, encoding: .utf8) }
        let text = try read(site.playlistPath)
        // Planned as stash plans it: the corpus playlist must give a package.
        _ = try plan(url, text: text) { uri in try local(uri).map(read) }

        let fetchedSegments = ffprobe.fetched.filter(site.segmentPaths.contains)
        switch try Playlist.parse(text, baseURL: url) {
        case .media(let playlist):
            XCTAssertEqual(playlist.totalDuration, ffprobe.seconds, accuracy: 0.000_001 * Double(playlist.segments.count + 1), entry.name)
            XCTAssertEqual(playlist.segments.compactMap { local($0.uri) }, fetchedSegments,
                           "\(entry.name): ffmpeg fetched these segments, in this order")
        case .master(let master):
            let playlists = Set((master.variants.map(\.uri) + master.renditions.compactMap(\.uri)).compactMap(local))
            let fetchedPlaylists = Set(ffprobe.fetched.filter { $0 != site.playlistPath && site.playlistPaths.contains($0) })
            XCTAssertEqual(playlists, fetchedPlaylists, "\(entry.name): ffmpeg read these media playlists")
            var media: [String: MediaPlaylist] = [:]
            var segments = Set<String>()
            for path in playlists {
                let uri = server.url(prefix + "/" + path)
                guard case .media(let playlist) = try Playlist.parse(try read(path), baseURL: uri) else { continue }
                media[uri] = playlist
                segments.formUnion(playlist.segments.compactMap { local($0.uri) })
            }
            let info = ManifestInfo(master: master, media: media)
            XCTAssertEqual(info.duration, ffprobe.seconds, accuracy: 0.000_01, "\(entry.name): the first variant's duration")
            XCTAssertEqual(segments, Set(fetchedSegments), "\(entry.name): ffmpeg fetched the segments of these playlists")
        }
    }
}
