import Foundation
import StashClient
import StashTestSupport
import XCTest

/// The Swift client library against a real stashd and a real HTTP server.
final class StashClientTests: DaemonTestCase {
    /// These tests read the daemon's defaults.
    override var fixtureConfig: [(key: String, value: String)] { [] }


    func testConnectingToNoDaemonIsUnavailableAndSaysHowToStartIt() async throws {
        let path = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-none") + "/stashd.sock"
        do {
            _ = try await StashClient.connect(socketPath: path)
            XCTFail("connected to nothing")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .unavailable)
            XCTAssertTrue(error.isConnectionFailure)
            XCTAssertTrue(error.message.contains(path), error.message)
            XCTAssertTrue(error.message.contains("start it with `stashd --socket \(path)`"), error.message)
        }
    }

    /// The daemon answers UNAVAILABLE too, for a server it could not use; that one is not a
    /// connection failure, so a client does not tell the user to start the daemon.
    func testUnavailableFromTheDaemonIsNoConnectionFailure() async throws {
        let error = await assertFails(.unavailable) { try await self.client.manifestInfo(uri: self.http.url("/none.m3u8")) }
        XCTAssertEqual(error?.isConnectionFailure, false)
        let answer = try await client.hasDownload(id: "x")
        XCTAssertFalse(answer.exists, "the connection is still up")
    }

    func testHelloAndReadOnlyCalls() async throws {
        let client = try await StashClient.connect(socketPath: daemon.socketPath, clientName: "client-tests")
        XCTAssertEqual(client.daemonInfo.protocolVersion, 1)
        XCTAssertEqual(client.daemonInfo.daemonVersion, StashVersion.daemon)
        let again = try await client.hello()
        XCTAssertEqual(again, client.daemonInfo)

        do {
            _ = try await client.getDownload(id: "missing")
            XCTFail("found a download that was never added")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .notFound)
        }
        let has = try await client.hasDownload(id: "missing")
        XCTAssertFalse(has.exists)

        let info = try await client.systemInfo()
        XCTAssertEqual(info.socketPath, daemon.socketPath)
        XCTAssertEqual(info.downloadCount, 0)
        let stats = try await client.stats()
        XCTAssertEqual(stats.activeTransfers, 0)
        let config = try await client.config()
        XCTAssertEqual(config, DaemonConfig())
        await client.close()
    }

    func testSetConfigAppliesAndRejectsOutOfRange() async throws {
        let client = try await StashClient.connect(socketPath: daemon.socketPath)
        let changed = try await client.setConfig([(key: "max-parallel", value: "7")])
        XCTAssertEqual(changed.maxParallel, 7)
        let reread = try await client.config()
        XCTAssertEqual(reread.maxParallel, 7)
        do {
            _ = try await client.setConfig([(key: "max-parallel", value: "1000")])
            XCTFail("accepted max-parallel 1000")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .invalidArgument)
            XCTAssertTrue(error.message.contains("max-parallel") && error.message.contains("1000"), error.message)
        }
    }

    func testManyConcurrentCallsOnOneClientGetTheirOwnAnswers() async throws {
        let client = try await StashClient.connect(socketPath: daemon.socketPath)
        http.serve(path: "/a", size: 1000)
        let ids = (0..<5).map { "concurrent-\($0)" }
        for id in ids {
            _ = try await client.addDownload(AddDownloadRequest(id: id, uri: http.url("/a"), force: true))
        }
        try await withThrowingTaskGroup(of: (String, String).self) { group in
            for round in 0..<400 {
                let id = ids[round % ids.count]
                group.addTask { (id, try await client.getDownload(id: id).id) }
            }
            var answered = 0
            for try await (asked, got) in group {
                XCTAssertEqual(asked, got)
                answered += 1
            }
            XCTAssertEqual(answered, 400)
        }
    }

    /// Both busy polls on: a daemon keeping a CPU awake after each request, a client watching
    /// its socket for each answer. Answers stay matched to their calls, sequential and
    /// concurrent, errors included, and closing the client ends its connection.
    func testBusyPollingDaemonAndClientAnswerEveryCall() async throws {
        let busy = try await DaemonProcess.start(extraArguments: ["--busy-poll-us", "2000"])
        defer { busy.terminate() }
        let client = try await StashClient.connect(socketPath: busy.socketPath, busyPollMicroseconds: 200)
        http.serve(path: "/b", size: 1000)
        _ = try await client.addDownload(AddDownloadRequest(id: "busy", uri: http.url("/b")))
        for _ in 0..<500 {
            let record = try await client.getDownload(id: "busy")
            XCTAssertEqual(record.id, "busy")
            let has = try await client.hasDownload(id: "busy")
            XCTAssertTrue(has.exists)
        }
        do {
            _ = try await client.getDownload(id: "no-such")
            XCTFail("an unknown id has no record")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .notFound)
        }
        let answers = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<200 { group.addTask { try await client.getDownload(id: "busy").id } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        XCTAssertEqual(answers, Array(repeating: "busy", count: 200))
        await client.close()
        do {
            _ = try await client.getDownload(id: "busy")
            XCTFail("a closed client answers nothing")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .unavailable)
        }
    }

    func testBusyPollOutsideItsRangeIsRefusedByStashd() throws {
        let result = try DaemonProcess.run(executable: DaemonProcess.executableURL(named: "stashd"), arguments: ["--busy-poll-us", "100001"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("--busy-poll-us 100001 is outside 0...100000"), result.stderr)
    }

    func testASocketPathTooLongIsUnavailableNamingIt() async throws {
        let path = "/tmp/" + String(repeating: "s", count: 120) + ".sock"
        do {
            _ = try await StashClient.connect(socketPath: path)
            XCTFail("connected through a path longer than a socket address holds")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .unavailable)
            XCTAssertTrue(error.message.contains(path) && error.message.contains("too long"), error.message)
        }
    }

    func testAllDownloadsFollowsPageTokens() async throws {
        let client = try await StashClient.connect(socketPath: daemon.socketPath)
        http.serve(path: "/p", size: 100)
        for index in 0..<5 {
            _ = try await client.addDownload(AddDownloadRequest(id: "page-\(index)", uri: http.url("/p"), force: true))
        }
        let first = try await client.listDownloads(pageSize: 2)
        XCTAssertEqual(first.downloads.count, 2)
        XCTAssertEqual(first.total, 5)
        XCTAssertFalse(first.nextPageToken.isEmpty)
        let all = try await client.allDownloads()
        XCTAssertEqual(Set(all.map(\.id)), Set((0..<5).map { "page-\($0)" }))
    }

    func testEventsFollowADownloadToCompletion() async throws {
        let client = try await StashClient.connect(socketPath: daemon.socketPath)
        http.serve(path: "/big", size: 2_000_000)
        let events = try await client.events(ids: ["evt"])
        let (added, created) = try await client.addDownload(AddDownloadRequest(id: "evt", uri: http.url("/big")))
        XCTAssertTrue(created)
        XCTAssertEqual(added.id, "evt")
        var states: [DownloadState] = []
        var lastSeq: UInt64 = 0
        for try await event in events {
            XCTAssertEqual(event.downloadID, "evt")
            XCTAssertGreaterThan(event.seq, lastSeq, "sequence numbers grow")
            lastSeq = event.seq
            if case .stateChanged(let download, _) = event.kind {
                states.append(download.state)
                if download.state.isTerminal {
                    XCTAssertEqual(download.state, .completed, "\(download)")
                    XCTAssertEqual(download.downloadedBytes, 2_000_000)
                    break
                }
            }
        }
        XCTAssertEqual(states.last, .completed)
        // The main connection is still usable after the event stream ended.
        let final = try await client.getDownload(id: "evt")
        XCTAssertEqual(final.state, .completed)
    }

    func testLostConnectionFailsCallsAndEndsEventStreams() async throws {
        let client = try await StashClient.connect(socketPath: daemon.socketPath)
        let events = try await client.events()
        daemon.terminate()
        do {
            for try await _ in events {}
            XCTFail("event stream ended without an error")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .unavailable)
            XCTAssertTrue(error.isConnectionFailure)
        }
        do {
            _ = try await client.stats()
            XCTFail("a call succeeded on a closed connection")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .unavailable)
            XCTAssertTrue(error.isConnectionFailure)
            XCTAssertEqual(error.message, "connection to stashd closed")
        }
    }
}
