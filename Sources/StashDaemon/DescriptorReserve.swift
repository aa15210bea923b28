import Foundation
import Logging
import NIOCore
import StashCore
import StashWire

/// Keeps the daemon off a busy loop at the file descriptor limit. There accept(2) fails with
/// EMFILE while the connection stays queued, so the listening socket stays readable and
/// SwiftNIO's server channel, which keeps its read pending after such an error, asks again at
/// once, for ever. This handler holds one descriptor in reserve; on EMFILE or ENFILE it frees
/// it, accepts every queued connection itself, tells each that the daemon is out of
/// descriptors and closes it, then takes its reserve back. The socket is then quiet until a
/// new client comes, and a client learns why instead of waiting.
final class DescriptorReserve: ChannelInboundHandler {
    typealias InboundIn = Any

    private let listeningSocket: Int32
    private let logger: Logger
    private var reserve: Int32
    /// The answer every shed connection gets, encoded once.
    private let refusal: [UInt8]

    init(listeningSocket: Int32, clock: WallClock, logger: Logger) {
        self.listeningSocket = listeningSocket
        self.logger = logger
        self.reserve = Self.openReserve(logger: logger)
        var buffer = ByteBuffer()
        WireCodec.encode(ServerMessage.response(Response(id: 0, result: .failure(StashError(
            .resourceExhausted,
            "stashd has no file descriptor left for another connection (too many clients or open files); try again later")))),
            at: clock.now(), into: &buffer)
        self.refusal = Array(buffer.readableBytesView)
    }

    deinit {
        if reserve >= 0 { SystemCallError.close(reserve) }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        guard let ioError = error as? IOError, ioError.errnoCode == EMFILE || ioError.errnoCode == ENFILE else {
            context.fireErrorCaught(error)
            return
        }
        shed()
    }

    private func shed() {
        if reserve >= 0 {
            SystemCallError.close(reserve)
            reserve = -1
        }
        var shed = 0
        while true {
            // The listening socket is non-blocking (SwiftNIO's): this stops when none is queued.
            let listening = listeningSocket
            guard let connection = try? SystemCallError.checkNonBlocking("accept", "the daemon's socket", { accept(listening, nil, nil) }) else {
                break
            }
            // Best effort, never blocking: a peer that cannot take the refusal still loses
            // the connection, which tells it as much.
            _ = try? refusal.withUnsafeBytes { bytes in
                try SystemCallError.check("send", "a refused connection") {
                    send(connection, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                }
            }
            SystemCallError.close(connection)
            shed += 1
        }
        reserve = Self.openReserve(logger: logger)
        logger.warning("out of file descriptors; refused queued connections", metadata: ["refused": "\(shed)"])
    }

    /// The descriptor kept back for shedding; -1 (no reserve, so a burst at the limit is not
    /// answered, only refused by the kernel) when even /dev/null cannot be opened.
    private static func openReserve(logger: Logger) -> Int32 {
        do {
            return try SystemCallError.check("open", "/dev/null") { open("/dev/null", O_RDONLY | O_CLOEXEC) }
        } catch {
            logger.warning("no descriptor kept in reserve for refusing connections at the limit", metadata: ["error": "\(error)"])
            return -1
        }
    }
}
