import Foundation
import StashTestSupport
import XCTest

/// The test encryptor (scripts/cenc-encrypt.py, behind `DASHFixture.encrypted`) writes CENC
/// that ffmpeg's mov demuxer decrypts with the key to the very frames of the clear source, and
/// that does not decode without it: the stream the decryption tests stand on is conformant.
final class CENCEncryptorTests: XCTestCase {
    func testFFmpegDecryptsEveryStreamWithTheKeyToTheSourceFrames() throws {
        try XCTSkipUnless(HLSFixture.isAvailable, "ffmpeg and ffprobe are needed (make deps installs them)")
        let directory = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-cenc-encryptor")
        let key: [UInt8] = Array(0x40..<0x50)
        _ = try DASHFixture.encrypted(in: directory, key: key, keyID: Array(0x60..<0x70))
        for stream in 0..<4 {
            let segments = (1...DASHFixture.segmentsPerRepresentation).map { "chunk-stream\(stream)-0000\($0).m4s" }
            func hashes(_ prefix: String, key: [UInt8]? = nil) throws -> [String] {
                try DASHFixture.frameHashes(
                    initialization: directory + "/" + prefix + "init-stream\(stream).m4s", segments: segments.map { directory + "/" + prefix + $0 }, key: key)
            }
            let clear = try hashes("clear-")
            XCTAssertEqual(try hashes("", key: key), clear, "stream \(stream)")
            XCTAssertGreaterThan(clear.count, 0)
            // Without the key, the samples are noise (video) or refused (audio) by the decoders.
            let undecrypted = try? hashes("")
            XCTAssertNotEqual(undecrypted, clear, "stream \(stream)")
        }
    }
}
