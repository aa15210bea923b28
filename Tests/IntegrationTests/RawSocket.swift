import Foundation
import NIOCore
import StashWire

#if canImport(Glibc)
import Glibc
#endif

/// A plain blocking Unix-socket client, so protocol tests see exactly the bytes on the wire
/// without the client library in between. Reads time out after 10 s instead of hanging a test.
final class RawSocket {
    enum ReadResult: Equatable {
        case frame([UInt8])
        case closed
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private var fd: Int32

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed: \(String(cString: strerror(errno)))") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "connect(\(path)) failed: \(message)")
        }
    }

    deinit { close(fd) }

    /// Writes all bytes; a peer that already closed is not an error here (the test reads
    /// what it answered).
    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { return }
            offset += written
        }
    }

    func send(_ request: Request) {
        var buffer = ByteBuffer()
        WireCodec.encode(request, into: &buffer)
        send(Array(buffer.readableBytesView))
    }

    /// Sends a u32 big-endian length prefix, then the payload.
    func sendFrame(_ payload: [UInt8]) {
        let length = UInt32(payload.count)
        send([UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)] + payload)
    }

    /// Writes `chunk` again and again without reading, until the peer has taken nothing for
    /// `quiet` seconds or `limit` bytes went out; returns the bytes written. A peer that keeps
    /// reading whatever it is sent never lets this stop before `limit`.
    func writeUntilRefused(_ chunk: [UInt8], limit: Int, quiet: TimeInterval) -> Int {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(fd, F_SETFL, flags) }
        var total = 0
        var offset = 0
        var lastProgress = ContinuousClock.now
        while total < limit, ContinuousClock.now - lastProgress < .seconds(quiet) {
            let written = chunk[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written > 0 {
                total += written
                offset = (offset + written) % chunk.count
                lastProgress = ContinuousClock.now
            } else if written < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                usleep(10_000)
            } else {
                break
            }
        }
        return total
    }

    func shutdownWrite() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// The next frame's payload, or `.closed` at end of stream.
    func readFrame() throws -> ReadResult {
        guard let prefix = try read(count: 4) else { return .closed }
        let length = Int(prefix[0]) << 24 | Int(prefix[1]) << 16 | Int(prefix[2]) << 8 | Int(prefix[3])
        guard let payload = try read(count: length) else { throw Failure(description: "stream ended inside a frame of \(length) bytes") }
        return .frame(payload)
    }

    /// The next message, decoded; throws at end of stream.
    func readMessage() throws -> ServerMessage {
        guard case .frame(let payload) = try readFrame() else { throw Failure(description: "connection closed, expected a frame") }
        return try WireCodec.decodeServerMessage(ByteBuffer(bytes: payload))
    }

    /// The next message, which must be a response.
    func readResponse() throws -> Response {
        let message = try readMessage()
        guard case .response(let response) = message else { throw Failure(description: "expected a response, got \(message)") }
        return response
    }

    private func read(count: Int) throws -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let received = bytes[offset...].withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if received == 0 {
                if offset == 0 { return nil }
                throw Failure(description: "stream ended after \(offset) of \(count) bytes")
            }
            if received < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "recv failed: \(String(cString: strerror(errno)))")
            }
            offset += received
        }
        return bytes
    }
}
