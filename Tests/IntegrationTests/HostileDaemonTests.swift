import Foundation
import NIOCore
import StashClient
import StashCore
import StashWire
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// StashClient against a peer that answers its Hello, then its call with a record that cannot
/// be or a string the protocol does not allow: the call fails INTERNAL naming the field and
/// the value, as the C and Python clients do.
final class HostileDaemonTests: XCTestCase {
    /// One connection on a real Unix socket, served on a thread of its own: Hello answered,
    /// then the next request answered with `answer(id)`, a ServerMessage payload.
    private final class Peer: @unchecked Sendable {
        // @unchecked: `listener` is set once in init and only read after; the thread owns the rest.
        let path: String
        private let listener: Int32
        private let done = DispatchSemaphore(value: 0)

        init(answer: @escaping @Sendable (UInt64) -> [UInt8]) throws {
            path = NSTemporaryDirectory() + "stash-hostile-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
            let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            self.listener = listener
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard bound == 0, listen(listener, 1) == 0 else { throw RawSocket.Failure(description: "cannot listen on \(path)") }
            let done = self.done
            Thread.detachNewThread {
                defer { done.signal() }
                let fd = accept(listener, nil, nil)
                guard fd >= 0 else { return }
                defer { close(fd) }
                guard let hello = Self.readRequestID(fd) else { return }
                var frame = ByteBuffer()
                WireCodec.encode(.response(Response(id: hello, result: .success(.hello(HelloResult(features: []))))), at: Date(), into: &frame)
                Self.write(fd, Array(frame.readableBytesView))
                guard let call = Self.readRequestID(fd) else { return }
                let payload = answer(call)
                Self.write(fd, [UInt8(payload.count >> 24), UInt8((payload.count >> 16) & 0xFF), UInt8((payload.count >> 8) & 0xFF), UInt8(payload.count & 0xFF)] + payload)
                var byte: UInt8 = 0
                while recv(fd, &byte, 1, 0) > 0 {}
            }
        }

        /// Waits for the connection to end; a peer nobody connected to stops accepting.
        func stop() {
            shutdown(listener, Int32(SHUT_RDWR))
            done.wait()
            close(listener)
            unlink(path)
        }

        private static func read(_ fd: Int32, _ count: Int) -> [UInt8]? {
            var bytes = [UInt8](repeating: 0, count: count)
            var offset = 0
            while offset < count {
                let got = bytes[offset...].withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if got <= 0 { return nil }
                offset += got
            }
            return bytes
        }

        private static func readRequestID(_ fd: Int32) -> UInt64? {
            guard let prefix = read(fd, 4) else { return nil }
            let length = Int(prefix[0]) << 24 | Int(prefix[1]) << 16 | Int(prefix[2]) << 8 | Int(prefix[3])
            guard let payload = read(fd, length) else { return nil }
            return try? WireCodec.decodeRequest(ByteBuffer(bytes: payload)).id
        }

        private static func write(_ fd: Int32, _ bytes: [UInt8]) {
            var offset = 0
            while offset < bytes.count {
                let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if sent <= 0 { return }
                offset += sent
            }
        }
    }

    private static func varint(_ value: UInt64) -> [UInt8] {
        var value = value
        var out: [UInt8] = []
        repeat {
            out.append(UInt8(value & 0x7F) | (value > 0x7F ? 0x80 : 0))
            value >>= 7
        } while value != 0
        return out
    }

    private static func field(_ number: Int, _ payload: [UInt8]) -> [UInt8] {
        varint(UInt64(number << 3 | 2)) + varint(UInt64(payload.count)) + payload
    }

    /// ServerMessage { response { id, download { download { id "x", state 3, extra } } } }
    private static func record(_ id: UInt64, _ extra: [UInt8]) -> [UInt8] {
        let download = field(1, Array("x".utf8)) + [0x20, 3] + extra
        return field(1, [0x08] + varint(id) + field(11, field(1, download)))
    }

    private func refusal(_ answer: @escaping @Sendable (UInt64) -> [UInt8]) async throws -> StashError? {
        let peer = try Peer(answer: answer)
        defer { peer.stop() }
        let client = try await StashClient.connect(socketPath: peer.path, clientName: "hostile-test")
        var refused: StashError?
        do {
            _ = try await client.getDownload(id: "x")
            XCTFail("an impossible record was read")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .internal, error.message)
            refused = error
        }
        await client.close()
        return refused
    }

    func testImpossibleRecordsAndBadStringsAreInternal() async throws {
        let cases: [([UInt8], [String])] = [
            ([0x28] + Self.varint(4_000_000_000), ["Download.progress", "4000000000"]),  // progress (5)
            ([0x38] + Self.varint(UInt64(bitPattern: .min)), ["Download.total_bytes", "\(Int64.min)"]),  // total_bytes (7)
            ([0xB0, 0x01, 7, 0xB8, 0x01, 5], ["Download.files_done", "7", "files_total 5"]),  // files_done (22), files_total (23)
            (Self.field(3, Array("nul1\0evil".utf8)),
             [#"ServerMessage.response.download.download.title: "nul1\0evil" (9 bytes) holds a NUL at byte 4"#]),
            (Self.field(3, [0x63, 0x61, 0x66, 0xC3]), [#"download.download.title: "caf\xc3" (4 bytes) is not UTF-8 at byte 3"#]),
        ]
        for (extra, parts) in cases {
            let error = try await refusal { Self.record($0, extra) }
            for part in parts {
                XCTAssertTrue(error?.message.contains(part) ?? false, "'\(error?.message ?? "")' should mention '\(part)'")
            }
        }
    }
}
