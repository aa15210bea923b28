import Foundation
import StashClient
import StashCore
import StashWire
import XCTest

/// A request string with a NUL inside, or bytes that are not UTF-8, is refused at the socket
/// as INVALID_ARGUMENT naming the field, under the request's own id, and nothing is done with
/// a cut copy of it: protobuf-c hands strings over cut at their first NUL, so before the check
/// `nul1\0evil` was stored as `nul1` and `Cancel{nul1\0other}` cancelled `nul1`.
final class RequestStringTests: DaemonTestCase {
    /// Protobuf fields by hand, since a Swift String sent through protobuf-c loses its NUL.
    private struct Fields {
        var bytes: [UInt8] = []

        private static func varint(_ value: UInt64) -> [UInt8] {
            var value = value
            var out: [UInt8] = []
            repeat {
                out.append(UInt8(value & 0x7F) | (value > 0x7F ? 0x80 : 0))
                value >>= 7
            } while value != 0
            return out
        }

        mutating func varint(_ field: Int, _ value: UInt64) {
            bytes += Self.varint(UInt64(field << 3)) + Self.varint(value)
        }

        mutating func raw(_ field: Int, _ payload: [UInt8]) {
            bytes += Self.varint(UInt64(field << 3 | 2)) + Self.varint(UInt64(payload.count)) + payload
        }

        mutating func string(_ field: Int, _ value: String) {
            raw(field, Array(value.utf8))
        }

        mutating func message(_ field: Int, _ build: (inout Fields) -> Void) {
            var inner = Fields()
            build(&inner)
            raw(field, inner.bytes)
        }
    }

    /// Request { id, add_download (11) { ... } }
    private func add(_ id: UInt64, _ build: (inout Fields) -> Void) -> [UInt8] {
        var request = Fields()
        request.varint(1, id)
        request.message(11, build)
        return request.bytes
    }

    func testStringsWithANULOrNotUTF8AreRefusedNamingTheFieldAndNothingIsCut() async throws {
        http.serve(path: "/a", size: 10)
        let url = http.url("/a")
        _ = try await client.addDownload(AddDownloadRequest(id: "nul1", uri: url))
        try await waitFor("nul1", .completed)

        let socket = try RawSocket(path: daemon.socketPath)
        socket.send(Request(id: 1, op: .hello(HelloRequest(clientName: "strings"))))
        XCTAssertNotNil(try socket.readResponse().result.success)
        let nul: (String) -> [UInt8] = { Array($0.utf8) }
        let cases: [(frame: [UInt8], field: String, problem: String)] = [
            (add(10) { $0.raw(1, nul("nul2\0evil")); $0.string(2, url) },
             "Request.add_download.id", #""nul2\0evil" (9 bytes) holds a NUL at byte 4"#),
            ({ var r = Fields(); r.varint(1, 11); r.message(17) { $0.raw(1, nul("nul1\0other")) }; return r.bytes }(),
             "Request.cancel.id", #""nul1\0other" (10 bytes) holds a NUL at byte 4"#),
            (add(12) { $0.string(1, "b1"); $0.message(6) { $0.string(1, url); $0.raw(2, nul("ok\0/../../x")) } },
             "Request.add_download.files[0].path", #""ok\0/../../x" (11 bytes) holds a NUL at byte 2"#),
            (add(13) { $0.string(1, "g1"); $0.string(2, url); $0.raw(11, nul("one-piece\0/x")) },
             "Request.add_download.group", #"holds a NUL at byte 9"#),
            (add(14) { $0.string(1, "t1"); $0.string(2, url); $0.raw(3, nul("A\0B")) },
             "Request.add_download.title", #""A\0B" (3 bytes) holds a NUL at byte 1"#),
            (add(15) { $0.string(1, "u1"); $0.raw(2, nul(url + "\0.m3u8")) },
             "Request.add_download.uri", "holds a NUL at byte \(url.utf8.count)"),
            (add(16) { $0.string(1, "l1"); $0.string(2, url); $0.message(13) { $0.string(1, url); $0.raw(2, nul("es\0../x")) } },
             "Request.add_download.text_tracks[0].lang", #""es\0../x" (7 bytes) holds a NUL at byte 2"#),
            (add(17) { $0.string(1, "y1"); $0.string(2, url); $0.message(13) { $0.string(1, url); $0.string(2, "es"); $0.raw(4, nul("vtt\0")) } },
             "Request.add_download.text_tracks[0].type", #""vtt\0" (4 bytes) holds a NUL at byte 3"#),
            (add(18) { $0.string(1, "v1"); $0.string(2, url); $0.raw(3, [0x43, 0x61, 0x66, 0xC3, 0x28]) },
             "Request.add_download.title", #""Caf\xc3(" (5 bytes) is not UTF-8 at byte 3"#),
            ({ var r = Fields(); r.varint(1, 19); r.message(42) { $0.raw(1, [0xED, 0xA0, 0x80]) }; return r.bytes }(),
             "Request.pause_group.group", #""\xed\xa0\x80" (3 bytes) is not UTF-8 at byte 0"#),
        ]
        for (frame, field, problem) in cases {
            socket.sendFrame(frame)
            let response = try socket.readResponse()
            XCTAssertEqual(response.id, UInt64(frame[1]), "answered under the request's id")
            let error = try XCTUnwrap(response.result.failure, "\(field) should be refused")
            XCTAssertEqual(error.code, .invalidArgument, error.message)
            XCTAssertTrue(error.message.hasPrefix("\(field): ") && error.message.contains(problem),
                          "'\(error.message)' should name \(field) and say \(problem)")
        }
        // The connection stays open, and nothing was added or cancelled under a cut name.
        socket.send(Request(id: 30, op: .getStats))
        XCTAssertEqual(try socket.readResponse().id, 30)
        let downloads = try await client.allDownloads()
        XCTAssertEqual(downloads.map(\.id), ["nul1"])
        XCTAssertEqual(downloads.first?.state, .completed)

        // The Swift client refuses to send such a string rather than send it cut.
        let refused = await assertFails(.invalidArgument) { try await self.client.cancel(id: "nul1\0other") }
        XCTAssertTrue(refused?.message.hasPrefix(#"Request.cancel.id: "nul1\0other""#) ?? false, refused?.message ?? "")
        let bundle = await assertFails(.invalidArgument) {
            try await self.client.addDownload(AddDownloadRequest(id: "b2", uri: "", files: [BundleFileSpec(url: url, path: "ok\0/../../x")]))
        }
        XCTAssertTrue(bundle?.message.hasPrefix("Request.add_download.files[0].path") ?? false, bundle?.message ?? "")
        let kept = try await client.getDownload(id: "nul1")
        XCTAssertEqual(kept.state, .completed)
    }
}
