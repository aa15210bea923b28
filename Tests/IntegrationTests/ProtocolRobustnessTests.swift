import Foundation
import NIOCore
import StashCore
import StashTestSupport
import StashWire
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// The daemon at the socket level, with raw bytes: bad input gets one answer and a close,
/// and never disturbs the daemon or other connections.
final class ProtocolRobustnessTests: XCTestCase {
    private var daemon: DaemonProcess!

    override func setUp() async throws {
        daemon = try await DaemonProcess.start()
    }

    override func tearDown() async throws {
        if let daemon, daemon.isRunning { daemon.terminate() }
        daemon = nil
    }

    // MARK: - Bad frames

    func testGarbageBytesAreRefusedAndOthersCarryOn() throws {
        let socket = try RawSocket(path: daemon.socketPath)
        socket.send(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let response = try socket.readResponse()
        XCTAssertEqual(response.id, 0)
        XCTAssertEqual(response.result.failure?.code, .resourceExhausted)
        XCTAssertEqual(try socket.readFrame(), .closed)
        try assertHelloWorks()
    }

    func testZeroLengthFrameIsInvalid() throws {
        let socket = try RawSocket(path: daemon.socketPath)
        socket.send([0, 0, 0, 0])
        let response = try socket.readResponse()
        XCTAssertEqual(response.id, 0)
        XCTAssertEqual(response.result.failure?.code, .invalidArgument)
        XCTAssertEqual(try socket.readFrame(), .closed)
        try assertHelloWorks()
    }

    func testOversizedFrameNamesLengthAndLimit() throws {
        let socket = try RawSocket(path: daemon.socketPath)
        let length = WireCodec.defaultMaxFrameLength + 1
        socket.send([UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF), 1, 2, 3])
        let response = try socket.readResponse()
        XCTAssertEqual(response.id, 0)
        let error = try XCTUnwrap(response.result.failure)
        XCTAssertEqual(error.code, .resourceExhausted)
        XCTAssertTrue(error.message.contains("\(length)"), error.message)
        XCTAssertTrue(error.message.contains("\(WireCodec.defaultMaxFrameLength)"), error.message)
        XCTAssertEqual(try socket.readFrame(), .closed)
        try assertHelloWorks()
    }

    func testTruncatedFrameThenEOFJustCloses() throws {
        let socket = try RawSocket(path: daemon.socketPath)
        socket.send([0, 0, 0, 100] + [UInt8](repeating: 7, count: 10))
        socket.shutdownWrite()
        XCTAssertEqual(try socket.readFrame(), .closed)
        try assertHelloWorks()
    }

    func testUndecodablePayloadIsInvalidArgument() throws {
        let socket = try RawSocket(path: daemon.socketPath)
        // Field 1 with wire type 7, which protobuf does not have.
        socket.sendFrame([0x0F, 0x01, 0x02])
        let response = try socket.readResponse()
        XCTAssertEqual(response.id, 0)
        let error = try XCTUnwrap(response.result.failure)
        XCTAssertEqual(error.code, .invalidArgument)
        XCTAssertTrue(error.message.hasPrefix("undecodable request"), error.message)
        XCTAssertEqual(try socket.readFrame(), .closed)
        try assertHelloWorks()
    }

    // MARK: - Session rules

    func testUnknownOperationIsUnimplementedAndConnectionStaysOpen() throws {
        let socket = try RawSocket(path: daemon.socketPath)
        socket.send(Request(id: 1, op: .hello(HelloRequest(clientName: "robustness"))))
        XCTAssertNotNil(try socket.readResponse().result.success)
        // Request { id = 7 (field 1 varint), field 99 length-delimited, empty }.
        socket.sendFrame([0x08, 0x07, 0x9A, 0x06, 0x00])
        let response = try socket.readResponse()
        XCTAssertEqual(response.id, 7)
        XCTAssertEqual(response.result.failure?.code, .unimplemented)
        socket.send(Request(id: 8, op: .getStats))
        let stats = try socket.readResponse()
        XCTAssertEqual(stats.id, 8)
        XCTAssertNotNil(stats.result.success)
    }

    func testUnreadableValueIsAnsweredUnderItsIDAndConnectionStaysOpen() throws {
        let socket = try RawSocket(path: daemon.socketPath)
        socket.send(Request(id: 1, op: .hello(HelloRequest(clientName: "robustness"))))
        XCTAssertNotNil(try socket.readResponse().result.success)
        // Request { id = 9, list_downloads (field 13) = { states = [99] } }: no such state.
        socket.sendFrame([0x08, 0x09, 0x6A, 0x02, 0x08, 0x63])
        let response = try socket.readResponse()
        XCTAssertEqual(response.id, 9)
        let error = try XCTUnwrap(response.result.failure)
        XCTAssertEqual(error.code, .invalidArgument)
        XCTAssertTrue(error.message.contains("99"), error.message)
        socket.send(Request(id: 10, op: .getStats))
        let stats = try socket.readResponse()
        XCTAssertEqual(stats.id, 10)
        XCTAssertNotNil(stats.result.success)
    }

    func testRequestBeforeHelloIsRefusedButConnectionStaysOpen() throws {
        let socket = try RawSocket(path: daemon.socketPath)
        socket.send(Request(id: 3, op: .getDownload(id: "x")))
        let refused = try socket.readResponse()
        XCTAssertEqual(refused.id, 3)
        XCTAssertEqual(refused.result.failure?.code, .failedPrecondition)
        XCTAssertEqual(refused.result.failure?.message, "send Hello first")
        socket.send(Request(id: 4, op: .hello(HelloRequest(clientName: "late"))))
        let hello = try socket.readResponse()
        XCTAssertEqual(hello.id, 4)
        guard case .hello(let info)? = hello.result.success else { return XCTFail("expected a Hello result, got \(hello)") }
        XCTAssertEqual(info.protocolVersion, 1)
    }

    func testHelloWithAnotherProtocolVersionNamesBoth() throws {
        let socket = try RawSocket(path: daemon.socketPath)
        socket.send(Request(id: 5, op: .hello(HelloRequest(protocolVersion: 9, clientName: "future"))))
        let response = try socket.readResponse()
        XCTAssertEqual(response.id, 5)
        let error = try XCTUnwrap(response.result.failure)
        XCTAssertEqual(error.code, .failedPrecondition)
        XCTAssertTrue(error.message.contains("9") && error.message.contains("1"), error.message)
    }

    func testPipelinedRequestsAreAllAnswered() throws {
        let socket = try RawSocket(path: daemon.socketPath)
        var buffer = ByteBuffer()
        WireCodec.encode(Request(id: 1, op: .hello(HelloRequest(clientName: "pipeline"))), into: &buffer)
        for id in 2...50 {
            WireCodec.encode(Request(id: UInt64(id), op: .hasDownload(id: "missing-\(id)")), into: &buffer)
        }
        socket.send(Array(buffer.readableBytesView))
        var answered = Set<UInt64>()
        for _ in 1...50 {
            let response = try socket.readResponse()
            XCTAssertNotNil(response.result.success, "\(response)")
            answered.insert(response.id)
        }
        XCTAssertEqual(answered, Set(1...50))
    }

    /// A client that pipelines requests and never reads its answers: the daemon stops reading
    /// from it once the answers back up (it used to read on, holding every answer, until the
    /// kernel killed it), and other clients are served meanwhile.
    func testAClientThatNeverReadsIsNotReadFromEither() throws {
        let greedy = try RawSocket(path: daemon.socketPath)
        greedy.send(Request(id: 1, op: .hello(HelloRequest(clientName: "greedy"))))
        var burst = ByteBuffer()
        for id in 2...1_000 {
            WireCodec.encode(Request(id: UInt64(id), op: .getStats), into: &burst)
        }
        let written = greedy.writeUntilRefused(Array(burst.readableBytesView), limit: 512 << 20, quiet: 2)
        XCTAssertLessThan(written, 64 << 20, "the daemon read \(written) bytes of requests whose answers nobody read")

        let other = try RawSocket(path: daemon.socketPath)
        other.send(Request(id: 7, op: .hello(HelloRequest(clientName: "other"))))
        other.send(Request(id: 8, op: .getStats))
        // Answers may come out of order.
        XCTAssertEqual(Set([try other.readResponse().id, try other.readResponse().id]), [7, 8])
    }

    /// Each subscription holds up to 1,024 waiting events (and a replay up to 4,096 more): a
    /// connection holds at most 4, and the fifth Subscribe says so.
    func testAConnectionHoldsAtMostFourSubscriptions() throws {
        let socket = try RawSocket(path: daemon.socketPath)
        socket.send(Request(id: 1, op: .hello(HelloRequest(clientName: "subscriber"))))
        _ = try socket.readResponse()
        for id in 2...6 { socket.send(Request(id: UInt64(id), op: .subscribe(SubscribeRequest()))) }
        var answers: [UInt64: Result<ResponseResult, StashError>] = [:]
        while answers.count < 5 {
            guard case .response(let response) = try socket.readMessage() else { continue }
            answers[response.id] = response.result
        }
        XCTAssertEqual(answers.values.filter { $0.success != nil }.count, 4, "\(answers)")
        let refused = try XCTUnwrap(answers.values.compactMap(\.failure).first, "\(answers)")
        XCTAssertEqual(refused.code, .resourceExhausted)
        XCTAssertEqual(refused.message, "this connection has 4 subscriptions, the most one may hold; subscribe once per connection")
    }

    /// At the descriptor limit a queued client is not left waiting on a listening socket that
    /// stays readable, which kept the daemon spinning on accept: every client is either served
    /// or told at once that descriptors ran out, and the daemon serves again once they free.
    func testAcceptBacksOffAtTheDescriptorLimit() throws {
        let limit = Process()
        limit.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        limit.arguments = ["--pid", "\(daemon.pid)", "--nofile=48:48"]
        try limit.run()
        limit.waitUntilExit()
        XCTAssertEqual(limit.terminationStatus, 0)
        var sockets: [RawSocket] = []
        for _ in 0..<80 { sockets.append(try RawSocket(path: daemon.socketPath)) }
        var refused = 0
        for (index, socket) in sockets.enumerated() {
            socket.send(Request(id: UInt64(index + 1), op: .hello(HelloRequest(clientName: "crowd"))))
            let response: Response
            do {
                response = try socket.readResponse()
            } catch {
                // RawSocket's reads give up after 10 s.
                return XCTFail("client \(index + 1) of 80 got no answer, still queued on the listening socket: \(error)")
            }
            if let failure = response.result.failure {
                XCTAssertEqual(failure.code, .resourceExhausted, "\(failure)")
                XCTAssertEqual(response.id, 0)
                refused += 1
            } else {
                XCTAssertEqual(response.id, UInt64(index + 1))
            }
        }
        XCTAssertGreaterThan(refused, 0, "48 descriptors cannot hold 80 clients")
        sockets.removeAll()
        let fresh = try RawSocket(path: daemon.socketPath)
        fresh.send(Request(id: 1, op: .hello(HelloRequest(clientName: "after"))))
        XCTAssertEqual(try fresh.readResponse().id, 1)
    }

    // MARK: - Socket files and ownership

    func testSocketIsPrivateToItsOwner() throws {
        let socketMode = try mode(of: daemon.socketPath)
        XCTAssertEqual(socketMode & 0o777, 0o600, "socket mode \(String(socketMode, radix: 8))")
        let directoryMode = try mode(of: (daemon.socketPath as NSString).deletingLastPathComponent)
        XCTAssertEqual(directoryMode & 0o777, 0o700, "directory mode \(String(directoryMode, radix: 8))")
    }

    func testSecondDaemonOnTheSameSocketRefuses() throws {
        let otherDataDir = try DaemonProcess.makeTemporaryDirectory(prefix: "stashd-second")
        let second = try DaemonProcess.run(
            executable: DaemonProcess.executableURL(named: "stashd"),
            arguments: ["--socket", daemon.socketPath, "--data-dir", otherDataDir], timeout: 30)
        XCTAssertNotEqual(second.status, 0)
        XCTAssertTrue(second.stderr.contains("already running"), second.stderr)
        XCTAssertTrue(second.stderr.contains("pid \(daemon.pid)"), second.stderr)
        try assertHelloWorks()
    }

    func testStaleSocketFileIsReclaimed() async throws {
        daemon.terminate()
        let directory = try DaemonProcess.makeTemporaryDirectory(prefix: "stashd-stale")
        let socketPath = directory + "/stashd.sock"
        XCTAssertTrue(FileManager.default.createFile(atPath: socketPath, contents: Data("stale".utf8)))
        daemon = try await DaemonProcess.start(socketPath: socketPath)
        try assertHelloWorks()
    }

    func testSocketOfKilledDaemonIsReclaimed() async throws {
        daemon.kill(signal: SIGKILL)
        daemon.waitForExit()
        XCTAssertTrue(FileManager.default.fileExists(atPath: daemon.socketPath), "SIGKILL leaves the socket file behind")
        try await daemon.restart()
        try assertHelloWorks()
    }

    func testOtherUIDIsRefused() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root to run a client as another uid") }
        // Let uid 65534 reach the socket, so the refusal comes from the daemon's peer check.
        let socketDirectory = (daemon.socketPath as NSString).deletingLastPathComponent
        let base = (socketDirectory as NSString).deletingLastPathComponent
        XCTAssertEqual(chmod(base, 0o755), 0)
        XCTAssertEqual(chmod(socketDirectory, 0o777), 0)
        XCTAssertEqual(chmod(daemon.socketPath, 0o666), 0)
        defer {
            chmod(daemon.socketPath, 0o600)
            chmod(socketDirectory, 0o700)
        }
        var hello = ByteBuffer()
        WireCodec.encode(Request(id: 1, op: .hello(HelloRequest(clientName: "intruder"))), into: &hello)
        let helloHex = hello.readableBytesView.map { String(format: "%02x", $0) }.joined()
        let script = """
            import os, socket, sys
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            os.setgid(65534)
            os.setuid(65534)
            s.settimeout(10)
            s.connect(sys.argv[1])
            try:
                s.sendall(bytes.fromhex(sys.argv[2]))
            except OSError:
                pass
            data = b''
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            sys.stdout.write(data.hex())
            """
        let result = try DaemonProcess.run(
            executable: URL(fileURLWithPath: "/usr/bin/env"), arguments: ["python3", "-c", script, daemon.socketPath, helloHex], timeout: 30)
        XCTAssertEqual(result.status, 0, result.stderr)
        let bytes = try XCTUnwrap(hexBytes(result.stdout), "python printed \(result.stdout)")
        XCTAssertGreaterThan(bytes.count, 4)
        let message = try WireCodec.decodeServerMessage(ByteBuffer(bytes: bytes.dropFirst(4)))
        guard case .response(let response) = message else { return XCTFail("expected a response, got \(message)") }
        XCTAssertEqual(response.id, 0)
        let error = try XCTUnwrap(response.result.failure)
        XCTAssertEqual(error.code, .permissionDenied)
        XCTAssertTrue(error.message.contains("uid 65534"), error.message)
        try assertHelloWorks()
    }

    // MARK: - Helpers

    /// A well-behaved client still gets its Hello answered.
    private func assertHelloWorks(file: StaticString = #filePath, line: UInt = #line) throws {
        let socket = try RawSocket(path: daemon.socketPath)
        socket.send(Request(id: 42, op: .hello(HelloRequest(clientName: "well-behaved"))))
        let response = try socket.readResponse()
        XCTAssertEqual(response.id, 42, file: file, line: line)
        guard case .hello(let info)? = response.result.success else {
            return XCTFail("expected a Hello result, got \(response)", file: file, line: line)
        }
        XCTAssertEqual(info.protocolVersion, 1, file: file, line: line)
    }

    private func mode(of path: String) throws -> mode_t {
        var info = stat()
        guard stat(path, &info) == 0 else { throw RawSocket.Failure(description: "stat(\(path)) failed: \(String(cString: strerror(errno)))") }
        return info.st_mode
    }

    private func hexBytes(_ text: String) -> [UInt8]? {
        let characters = Array(text.trimmingCharacters(in: .whitespacesAndNewlines))
        guard characters.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: characters.count, by: 2) {
            guard let byte = UInt8(String(characters[index...index + 1]), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}
