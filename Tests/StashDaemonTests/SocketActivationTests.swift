import Foundation
import StashCore
import XCTest

@testable import StashDaemon

/// LISTEN_PID and LISTEN_FDS read as sd_listen_fds reads them, and a passed descriptor held to
/// the rules of the socket stashd binds itself.
final class SocketActivationTests: XCTestCase {
    private func message(_ environment: [String: String], pid: Int32 = 42) -> String? {
        do {
            _ = try SocketActivation.take(environment: environment, pid: pid)
            return nil
        } catch let error as StashError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    func testVariablesThatSayNothingForThisProcessAreNotActivation() throws {
        XCTAssertEqual(try SocketActivation.take(environment: [:], pid: 42), .none)
        XCTAssertEqual(try SocketActivation.take(environment: ["LISTEN_FDS": "1"], pid: 42), .none, "no LISTEN_PID: not for us")
        XCTAssertEqual(try SocketActivation.take(environment: ["LISTEN_PID": "7", "LISTEN_FDS": "x"], pid: 42), .otherProcess(pid: 7))
        XCTAssertEqual(try SocketActivation.take(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "0"], pid: 42), .nothingPassed(listenFDS: "0"))
        XCTAssertEqual(try SocketActivation.take(environment: ["LISTEN_PID": "42"], pid: 42), .nothingPassed(listenFDS: nil), "sd_listen_fds: no LISTEN_FDS, no sockets")
    }

    func testBadValuesNameTheVariableTheValueAndTheLimit() {
        XCTAssertEqual(message(["LISTEN_PID": "0", "LISTEN_FDS": "1"]), "LISTEN_PID '0' is not a process id (a decimal number from 1 to 2147483647, digits only)")
        XCTAssertEqual(
            message(["LISTEN_PID": "99999999999", "LISTEN_FDS": "1"]), "LISTEN_PID '99999999999' is not a process id (a decimal number from 1 to 2147483647, digits only)")
        XCTAssertEqual(
            message(["LISTEN_PID": "42", "LISTEN_FDS": ""]),
            "LISTEN_FDS '' is not a number of descriptors (a decimal number from 0 to 2147483644, digits only: descriptors 3…2147483646 at most)")
        XCTAssertEqual(
            message(["LISTEN_PID": "42", "LISTEN_FDS": "-1"]),
            "LISTEN_FDS '-1' is not a number of descriptors (a decimal number from 0 to 2147483644, digits only: descriptors 3…2147483646 at most)")
        XCTAssertEqual(
            message(["LISTEN_PID": "42", "LISTEN_FDS": "2147483644"]),
            "LISTEN_FDS is 2147483644: stashd serves exactly 1 socket; give its socket unit one ListenStream= (descriptors 3…2147483646 passed)")
    }

    /// connect(2) needs write permission on the socket's file: only group and other write
    /// bits let others in.
    func testAListeningSocketOnlyItsOwnerMayWriteToIsServedAndOthersAreRefused() throws {
        let folder = NSTemporaryDirectory() + "stash-activation-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/s.sock"
        let descriptor = try ListeningSocket.bind(path: path)
        defer { SystemCallError.close(descriptor) }
        XCTAssertThrowsError(try SocketActivation.check(descriptor)) { error in
            XCTAssertTrue((error as? StashError)?.message.contains("listening false") ?? false, "\(error)")
        }
        try SystemCallError.check("listen", path) { listen(descriptor, 8) }
        XCTAssertEqual(try SocketActivation.check(descriptor), path)
        for mode in [mode_t(0o644), 0o755, 0o700, 0o400] {
            XCTAssertEqual(chmod(path, mode), 0)
            XCTAssertEqual(try SocketActivation.check(descriptor), path, "mode \(String(mode, radix: 8))")
        }
        for mode in [mode_t(0o660), 0o602, 0o620, 0o666] {
            XCTAssertEqual(chmod(path, mode), 0)
            XCTAssertThrowsError(try SocketActivation.check(descriptor)) { error in
                XCTAssertEqual(
                    (error as? StashError)?.message,
                    "the passed socket's file \(path) is mode \(String(mode, radix: 8)): its group or others may write to it, and so connect; "
                        + "stashd serves a socket only its owner may write to (SocketMode=0600)")
            }
        }
        let file = try SystemCallError.check("open", folder) { open(folder, O_RDONLY) }
        defer { SystemCallError.close(file) }
        XCTAssertThrowsError(try SocketActivation.check(file)) { error in
            XCTAssertEqual((error as? StashError)?.message, "LISTEN_FDS passed descriptor \(file), which is not a socket")
        }
    }
}
