import NIOCore
import StashCore
import StashWire
import XCTest

/// A record whose numbers cannot be (a percent above 100, a count above its total, a size or a
/// time left below -1, the only negative value the protocol gives them) comes from a daemon the
/// client cannot trust: decoding refuses it naming the field and the value, and StashClient
/// reads that as INTERNAL.
final class ImpossibleRecordTests: XCTestCase {
    private static func negative(_ value: Int64) -> UInt64 { UInt64(bitPattern: value) }

    /// ServerMessage { response { id 4, download { download { id "x", fields } } } }
    private func record(_ fields: (inout ProtobufBytes) -> Void) -> ByteBuffer {
        var bytes = ProtobufBytes()
        bytes.message(1) {
            $0.varint(1, 4)
            $0.message(11) {
                $0.message(1) {
                    $0.string(1, "x")
                    $0.varint(4, 3)
                    $0.varint(7, Self.negative(-1))
                    $0.varint(9, Self.negative(-1))
                    fields(&$0)
                }
            }
        }
        return bytes.buffer
    }

    /// ServerMessage { event { seq 1, progress { id "x", fields } } }
    private func progress(_ fields: (inout ProtobufBytes) -> Void) -> ByteBuffer {
        var bytes = ProtobufBytes()
        bytes.message(2) {
            $0.varint(1, 1)
            $0.message(11) { $0.string(1, "x"); fields(&$0) }
        }
        return bytes.buffer
    }

    func testImpossibleNumbersInARecordAreRefused() {
        let cases: [((inout ProtobufBytes) -> Void, [String])] = [
            ({ $0.varint(5, 4_000_000_000) }, ["Download.progress", "4000000000", "100"]),
            ({ $0.varint(5, 101) }, ["Download.progress", "101"]),
            ({ $0.varint(7, Self.negative(.min)) }, ["Download.total_bytes", "\(Int64.min)", "-1"]),
            ({ $0.varint(9, Self.negative(-2)) }, ["Download.remaining_time", "-2"]),
            ({ $0.varint(22, 7); $0.varint(23, 5) }, ["Download.files_done", "7", "files_total 5"]),
            ({ $0.message(26) { $0.string(3, "valid"); $0.varint(4, Self.negative(-3)) } },
             ["LicenseStatus.license_seconds_left", "-3"]),
            ({ $0.message(26) { $0.string(3, "valid"); $0.varint(4, Self.negative(-1)); $0.varint(5, Self.negative(.min)) } },
             ["LicenseStatus.playback_seconds_left", "\(Int64.min)"]),
            ({ $0.message(26) { $0.string(3, "valid"); $0.varint(7, 1); $0.varint(11, Self.negative(-9)) } },
             ["LicenseStatus.playback_duration", "-9"]),
        ]
        for (fields, parts) in cases {
            WireTestSupport.assertInvalidArgument(try WireCodec.decodeServerMessage(record(fields)), mentioning: parts)
        }
    }

    func testImpossibleNumbersInAProgressEventAreRefused() {
        let cases: [((inout ProtobufBytes) -> Void, [String])] = [
            ({ $0.varint(4, 4_000_000_000) }, ["Progress.progress", "4000000000"]),
            ({ $0.varint(3, Self.negative(.min)) }, ["Progress.total_bytes", "\(Int64.min)"]),
            ({ $0.varint(6, Self.negative(-2)) }, ["Progress.remaining_time", "-2"]),
            ({ $0.varint(7, 2); $0.varint(8, 1) }, ["Progress.files_done", "2", "files_total 1"]),
        ]
        for (fields, parts) in cases {
            WireTestSupport.assertInvalidArgument(try WireCodec.decodeServerMessage(progress(fields)), mentioning: parts)
        }
    }

    func testImpossibleTotalsAndKeysAreRefused() {
        var totals = ProtobufBytes()
        totals.message(1) { $0.varint(1, 6); $0.message(12) { $0.message(4) { $0.varint(3, 3); $0.varint(4, 2) } } }
        WireTestSupport.assertInvalidArgument(
            try WireCodec.decodeServerMessage(totals.buffer), mentioning: ["GroupTotals.files_done", "3", "files_total 2"])
        var key = ProtobufBytes()
        key.message(1) { $0.varint(1, 6); $0.message(24) { $0.string(2, "a"); $0.varint(3, Self.negative(-2)) } }
        WireTestSupport.assertInvalidArgument(
            try WireCodec.decodeServerMessage(key.buffer), mentioning: ["PlaybackKeyResult.playback_seconds_left", "-2"])
    }

    func testWhatCanBeIsRead() throws {
        let possible = record {
            $0.varint(5, 100)
            $0.varint(22, 3)
            $0.varint(23, 3)
            $0.message(26) { $0.string(3, "valid"); $0.varint(4, Self.negative(-1)); $0.varint(5, Self.negative(-1)) }
        }
        guard case .response(let response) = try WireCodec.decodeServerMessage(possible),
              case .success(.download(let download, _)) = response.result else { return XCTFail("expected a record") }
        XCTAssertNil(download.totalBytes)
        XCTAssertEqual(download.filesDone, 3)
        guard case .event(let event) = try WireCodec.decodeServerMessage(progress { $0.varint(4, 100); $0.varint(3, Self.negative(-1)) }),
              case .progress(let update) = event.kind else { return XCTFail("expected progress") }
        XCTAssertEqual(update.progressPercent, 100)
        XCTAssertNil(update.totalBytes)
    }
}
