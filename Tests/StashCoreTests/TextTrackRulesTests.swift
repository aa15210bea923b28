import StashCore
import XCTest

final class TextTrackRulesTests: XCTestCase {
    private func assertRefused(_ specs: [TextTrack], to existing: [TextTrack] = [], files: [DownloadFile] = [], mentioning parts: [String], line: UInt = #line) {
        XCTAssertThrowsError(try TextTrackRules.added(specs, to: existing, files: files), line: line) { error in
            guard let error = error as? StashError else { return XCTFail("\(error)", line: line) }
            XCTAssertEqual(error.code, .invalidArgument, line: line)
            for part in parts { XCTAssertTrue(error.message.contains(part), "'\(part)' not in: \(error.message)", line: line) }
        }
    }

    func testPathsFollowTheLanguageAndASecondTrackOfOneIsNumbered() throws {
        let tracks = try TextTrackRules.added([
            TextTrack(uri: "https://h/es.vtt", language: "es", title: "Español"),
            TextTrack(uri: "https://h/es-forced.srt", language: "es"),
            TextTrack(uri: "https://h/en.SRT?x=1", language: "pt-BR", type: "VTT"),
            TextTrack(uri: "https://h/sub", language: "en"),
        ], to: [], files: [DownloadFile(url: "https://h/movie.mp4", path: "movie.mp4")])
        XCTAssertEqual(tracks.map(\.path), ["subtitles/es.vtt", "subtitles/es-2.srt", "subtitles/pt-BR.vtt", "subtitles/en.vtt"])
        XCTAssertEqual(tracks.map(\.type), ["vtt", "srt", "vtt", "vtt"], "from the URI's extension, else vtt; a given type wins, in lowercase")
        XCTAssertEqual(tracks.map(\.stem), ["es", "es-2", "pt-BR", "en"])
        XCTAssertEqual(tracks[0].title, "Español")
    }

    func testATrackThereAlreadyIsSkippedAndNamesStayFree() throws {
        let existing = try TextTrackRules.added([TextTrack(uri: "https://h/es.vtt", language: "es")], to: [], files: [])
        let again = try TextTrackRules.added([
            TextTrack(uri: "https://h/es.vtt", language: "ES", title: "another title"),
            TextTrack(uri: "https://h/es.vtt", language: "es"),
        ], to: existing, files: existing.map(\.file))
        XCTAssertEqual(again, [], "the same file in the same language and format: nothing to add")
        // A bundle file (or a rendition's folder) where a track would go: the next name is taken.
        let files = existing.map(\.file) + [DownloadFile(url: "https://h/x", path: "subtitles/es-2.vtt"), DownloadFile(url: "https://h/y", path: "subtitles/es-3.vtt/z")]
        let more = try TextTrackRules.added([TextTrack(uri: "https://h/other.vtt", language: "es")], to: existing, files: files)
        XCTAssertEqual(more.map(\.path), ["subtitles/es-4.vtt"], "es-2.vtt is a file, es-3.vtt a folder")
        // Another track's name in another case is taken too: the files stay apart on any file system.
        let upper = try TextTrackRules.added([TextTrack(uri: "https://h/u.vtt", language: "ES")], to: existing, files: existing.map(\.file))
        XCTAssertEqual(upper.map(\.path), ["subtitles/ES-2.vtt"])
        assertRefused([TextTrack(uri: "https://h/o.vtt", language: "es")], files: [DownloadFile(url: "https://h/s", path: "subtitles")],
                      mentioning: ["'subtitles'"])
    }

    func testEachFieldIsCheckedNamingTheEntryTheValueAndTheLimit() {
        let good = TextTrack(uri: "https://h/ok.vtt", language: "en")
        let cases: [(TextTrack, [String])] = [
            (TextTrack(uri: "ftp://h/x.vtt", language: "es"), ["text_tracks[1]", "ftp"]),
            (TextTrack(uri: "", language: "es"), ["text_tracks[1]", "uri is empty"]),
            (TextTrack(uri: "https://h/x.vtt", language: ""), ["text_tracks[1].lang", "empty"]),
            (TextTrack(uri: "https://h/x.vtt", language: "e s"), ["text_tracks[1].lang", "'e s'", "not a language tag"]),
            (TextTrack(uri: "https://h/x.vtt", language: "es--MX"), ["text_tracks[1].lang", "'es--MX'"]),
            (TextTrack(uri: "https://h/x.vtt", language: "1es"), ["text_tracks[1].lang", "'1es'"]),
            (TextTrack(uri: "https://h/x.vtt", language: "../es"), ["text_tracks[1].lang", "'../es'"]),
            (TextTrack(uri: "https://h/x.vtt", language: "abcdefghi"), ["text_tracks[1].lang", "'abcdefghi'"]),
            (TextTrack(uri: "https://h/x.vtt", language: "en-" + String(repeating: "a-", count: 17)), ["text_tracks[1].lang", "37 bytes", "limit is 35"]),
            (TextTrack(uri: "https://h/x.vtt", language: "es", title: String(repeating: "t", count: 257)), ["text_tracks[1].title", "257 characters", "limit is 256"]),
            (TextTrack(uri: "https://h/x.vtt", language: "es", title: "a\nb"), ["text_tracks[1].title", "control"]),
            (TextTrack(uri: "https://h/x.vtt", language: "es", type: "ass"), ["text_tracks[1].type", "'ass'", "vtt, srt"]),
        ]
        for (bad, parts) in cases { assertRefused([good, bad], mentioning: parts) }
    }

    func testTheCountLimitIsThatOfTheDownloadsTracksTogether() throws {
        let thirty = try TextTrackRules.added((0..<30).map { TextTrack(uri: "https://h/\($0).vtt", language: "l\(UnicodeScalar(97 + $0 % 26)!)") }, to: [], files: [])
        XCTAssertEqual(thirty.count, 30)
        let more = (0..<3).map { TextTrack(uri: "https://h/more\($0).vtt", language: "es") }
        assertRefused(more, to: thirty, mentioning: ["33 text tracks", "30 held", "3 added", "limit is \(TextTrackRules.maxTracks)"])
        XCTAssertEqual(try TextTrackRules.added(Array(more.prefix(2)), to: thirty, files: []).count, 2, "exactly at the limit")
        // A request of thousands is refused by its count before any is looked at.
        let flood = Array(repeating: TextTrack(uri: "https://h/a.vtt", language: "es"), count: 100_000)
        assertRefused(flood, mentioning: ["100000 entries", "limit is \(TextTrackRules.maxTracks)"])
    }

    func testStoredTracksMustBeWhatTheDaemonWrites() throws {
        try TextTrackRules.validateStored(TextTrack(uri: "https://h/a.vtt", language: "es", type: "vtt", path: "subtitles/es.vtt"))
        try TextTrackRules.validateStored(TextTrack(uri: "https://h/a.srt", language: "pt-BR", type: "srt", path: "subtitles/pt-BR-12.srt"))
        let bad = [
            TextTrack(uri: "https://h/a.vtt", language: "es", type: "vtt", path: "../es.vtt"),
            TextTrack(uri: "https://h/a.vtt", language: "es", type: "vtt", path: "subtitles/fr.vtt"),
            TextTrack(uri: "https://h/a.vtt", language: "es", type: "vtt", path: "subtitles/es-.vtt"),
            TextTrack(uri: "https://h/a.vtt", language: "es", type: "vtt", path: "subtitles/es.srt"),
            TextTrack(uri: "https://h/a.vtt", language: "es", type: "", path: "subtitles/es.vtt"),
            TextTrack(uri: "https://h/a.vtt", language: "es", type: "vtt", path: "subtitles/x/es.vtt"),
            TextTrack(uri: "file:///etc/passwd", language: "es", type: "vtt", path: "subtitles/es.vtt"),
        ]
        for track in bad { XCTAssertThrowsError(try TextTrackRules.validateStored(track), track.path) }
    }

    func testRemovalNamesATrackByLanguageOrByFileName() {
        let es = TextTrack(uri: "https://h/1", language: "es", type: "vtt", path: "subtitles/es.vtt")
        let es2 = TextTrack(uri: "https://h/2", language: "es", type: "vtt", path: "subtitles/es-2.vtt")
        let mx = TextTrack(uri: "https://h/3", language: "es-MX", type: "vtt", path: "subtitles/es-MX.vtt")
        XCTAssertEqual([es, es2, mx].filter { TextTrackRules.names("es", $0) }, [es, es2, mx], "a bare language takes its regional forms")
        XCTAssertEqual([es, es2, mx].filter { TextTrackRules.names("ES-2", $0) }, [es2], "a file name takes that one track")
        XCTAssertEqual([es, es2, mx].filter { TextTrackRules.names("es-mx", $0) }, [mx])
        XCTAssertEqual([es, es2, mx].filter { TextTrackRules.names("fr", $0) }, [])
    }
}
