import Foundation
import NIOCore
import StashCore
import StashWire
import XCTest

/// A record's licence time left is worked out at the time the encoder is given (the daemon's
/// injected clock's), not read from the machine's clock: the same bytes whenever they are made.
final class LicenseTimeLeftWireTests: XCTestCase {
    /// Sent 1,000 s after a licence of 3,600 s was acquired: 2,600 s are left, in a record
    /// answered, listed or carried by an event.
    func testARecordsLicenceTimeLeftIsWorkedOutAtTheGivenTime() throws {
        var download = WireTestSupport.download()
        download.license = LicenseWireTests.terms
        let now = LicenseWireTests.terms.acquiredAt.addingTimeInterval(1_000)
        let messages: [(String, ServerMessage, (ProtobufFields) throws -> ProtobufFields)] = [
            ("a record answered", .response(Response(id: 1, result: .success(.download(download, created: false)))),
             { try $0.message(1).message(11).message(1) }),
            ("a record listed", .response(Response(id: 2, result: .success(.list(DownloadPage(downloads: [download], nextPageToken: "", total: 1))))),
             { try $0.message(1).message(12).message(1) }),
            ("an event's record", .event(DownloadEvent(seq: 3, time: now, kind: .stateChanged(download, previous: .queued))),
             { try $0.message(2).message(10).message(1) }),
        ]
        for (what, message, record) in messages {
            var buffer = ByteBuffer()
            WireCodec.encode(message, at: now, into: &buffer)
            let payload = Array(try WireTestSupport.payload(of: buffer).readableBytesView)
            let status = try record(ProtobufFields(payload)).message(26)
            XCTAssertEqual(status.varint(4), 2_600, "license_seconds_left of \(what)")
            XCTAssertEqual(status.string(3), "valid", "verdict of \(what)")
        }
    }
}
