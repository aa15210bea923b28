import StashCore
import StashWire
import XCTest

@testable import StashDaemon

final class SessionTests: XCTestCase {
    private let owner: UInt32 = 1000

    private func connected() -> Session {
        var session = Session(ownerUID: owner)
        XCTAssertEqual(session.onConnect(peer: PeerCredentials(pid: 1, uid: owner, gid: owner)), .accept)
        return session
    }

    func testOwnerAndRootAreAcceptedOthersRefused() {
        var root = Session(ownerUID: owner)
        XCTAssertEqual(root.onConnect(peer: PeerCredentials(pid: 1, uid: 0, gid: 0)), .accept)
        var stranger = Session(ownerUID: owner)
        guard case .refuse(let error) = stranger.onConnect(peer: PeerCredentials(pid: 2, uid: 1001, gid: 1001)) else {
            return XCTFail("a peer of another uid must be refused")
        }
        XCTAssertEqual(error.code, .permissionDenied)
        XCTAssertTrue(error.message.contains("1001") && error.message.contains("1000"), error.message)
        XCTAssertEqual(stranger.phase, .closing)
        XCTAssertEqual(stranger.onRequest(.hello(HelloRequest(clientName: "x"))), .ignore, "nothing from a refused peer is processed")
    }

    func testHelloComesFirst() {
        var session = connected()
        guard case .reject(let error) = session.onRequest(.getStats) else { return XCTFail("expected a rejection") }
        XCTAssertEqual(error.code, .failedPrecondition)
        XCTAssertEqual(session.onRequest(.hello(HelloRequest(clientName: "x"))), .handle)
        XCTAssertEqual(session.phase, .ready)
        XCTAssertEqual(session.onRequest(.getStats), .handle)
        XCTAssertEqual(session.onRequest(.subscribe(SubscribeRequest())), .subscribe(SubscribeRequest()))
    }

    func testAnotherProtocolVersionIsRefusedNamingBoth() {
        var session = connected()
        guard case .reject(let error) = session.onRequest(.hello(HelloRequest(protocolVersion: 9, clientName: "future"))) else {
            return XCTFail("expected a rejection")
        }
        XCTAssertEqual(error.code, .failedPrecondition)
        XCTAssertTrue(error.message.contains("9") && error.message.contains("1"), error.message)
        XCTAssertEqual(session.phase, .awaitingHello)
    }

    func testUnknownAndInvalidOperationsAreAnsweredEvenBeforeHello() {
        var session = connected()
        guard case .reject(let unknown) = session.onRequest(.unknown) else { return XCTFail("expected a rejection") }
        XCTAssertEqual(unknown.code, .unimplemented)
        let bad = StashError.invalidArgument("ListDownloadsRequest.states: 99 is not a state")
        XCTAssertEqual(session.onRequest(.invalid(bad)), .reject(bad))
    }

    func testNothingIsProcessedAfterAProtocolError() {
        var session = connected()
        _ = session.onRequest(.hello(HelloRequest(clientName: "x")))
        session.onProtocolError()
        XCTAssertEqual(session.onRequest(.getStats), .ignore)
    }

    func testPlaybackKeysGoOnlyToTheOwnersProcessesNotToRoot() {
        var owner = connected()
        _ = owner.onRequest(.hello(HelloRequest(clientName: "player")))
        XCTAssertEqual(owner.onRequest(.getPlaybackKey(id: "film", keyID: "")), .handle)

        var root = Session(ownerUID: self.owner)
        XCTAssertEqual(root.onConnect(peer: PeerCredentials(pid: 3, uid: 0, gid: 0)), .accept)
        _ = root.onRequest(.hello(HelloRequest(clientName: "admin")))
        XCTAssertEqual(root.onRequest(.checkLicense(id: "film")), .handle, "root may manage licences")
        guard case .reject(let error) = root.onRequest(.getPlaybackKey(id: "film", keyID: "")) else {
            return XCTFail("a content key is not handed to another uid, root included")
        }
        XCTAssertEqual(error.code, .permissionDenied)
        XCTAssertTrue(error.message.contains("uid 0"), error.message)
        let export = ExportRequest(id: "film", dir: "/tmp/out", decrypt: true)
        guard case .reject(let refused) = root.onRequest(.export(export)) else {
            return XCTFail("an export carries the keys (or what they decrypt): the same rule as GetPlaybackKey")
        }
        XCTAssertEqual(refused.code, .permissionDenied)
        XCTAssertTrue(refused.message.hasPrefix("Export is answered only"), refused.message)
        XCTAssertEqual(owner.onRequest(.export(export)), .handle)
    }
}
