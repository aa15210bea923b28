import NIOCore
import StashCore
import StashWire
import XCTest

/// Side-loaded text tracks on the wire: in AddDownload, AddSubtitles, the record and GetSubtitles.
final class TextTrackWireTests: XCTestCase {
    private let tracks = [
        TextTrack(uri: "https://h/es.vtt?sig=a,b", language: "es", title: "Español, forzados", type: "vtt", path: "subtitles/es.vtt"),
        TextTrack(uri: "https://h/x", language: "pt-BR"),
    ]

    func testRequestsWithTextTracksRoundTrip() throws {
        for op: StashWire.Operation in [
            .addDownload(AddDownloadRequest(id: "movie", uri: "https://h/movie.mp4", textTracks: tracks)),
            .addDownload(AddDownloadRequest(uri: "", files: [BundleFileSpec(url: "https://h/1.jpg")], textTracks: [tracks[1]])),
            .addSubtitles(id: "movie", languages: [], textTracks: tracks),
        ] {
            let request = Request(id: 4, op: op)
            XCTAssertEqual(try WireTestSupport.roundTrip(request), request, op.name)
        }
    }

    func testTheRecordAndGetSubtitlesCarryTheTracks() throws {
        var download = WireTestSupport.download()
        download.textTracks = tracks
        for result: ResponseResult in [
            .download(download, created: false),
            .subtitles([ManifestInfo.RenditionInfo(groupID: "subs", language: "en", name: "English", uri: "subtitles/en/index.m3u8")], textTracks: tracks),
            .subtitles([], textTracks: [tracks[0]]),
        ] {
            let message = ServerMessage.response(Response(id: 2, result: .success(result)))
            XCTAssertEqual(try WireTestSupport.roundTrip(message), message)
        }
    }

    /// RemoveSubtitles names tracks by language; tracks sent with it are refused under the
    /// request's own id rather than ignored.
    func testTextTracksInRemoveSubtitlesAreRefusedNamingTheField() throws {
        var request = ProtobufBytes()
        request.varint(1, 12)
        request.message(31) { remove in
            remove.string(1, "movie")
            remove.string(2, "es")
            remove.message(3) { track in
                track.string(1, "https://h/es.vtt")
                track.string(2, "es")
            }
        }
        let decoded = try WireCodec.decodeRequest(request.buffer)
        XCTAssertEqual(decoded.id, 12)
        guard case .invalid(let error) = decoded.op else { return XCTFail("\(decoded.op)") }
        XCTAssertEqual(error.code, .invalidArgument)
        XCTAssertTrue(error.message.contains("SubtitlesRequest.text_tracks"), error.message)
    }
}
