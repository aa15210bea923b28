import Foundation
import NIOCore
import NIOPosix
import StashWire

/// A stashd from before some operations, made of today's: a proxy on its own socket in front of
/// a real daemon. Hello's answer loses `hiddenFeatures`, and a request for one of `unknownOps`
/// goes on with no op set, which the daemon answers UNIMPLEMENTED as an older one answers an
/// op it does not know (PROTOCOL.md). Every other frame passes through byte for byte.
final class OlderDaemonProxy: Sendable {
    let socketPath: String
    private let group: MultiThreadedEventLoopGroup
    private let listener: Channel

    init(
        upstream: String, socketPath: String, hiddenFeatures: Set<String>,
        unknownOps: @escaping @Sendable (StashWire.Operation) -> Bool
    ) throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let rewrite = Rewrite(hiddenFeatures: hiddenFeatures, unknownOps: unknownOps)
        let bootstrap = ServerBootstrap(group: group).childChannelInitializer { client in
            client.eventLoop.makeCompletedFuture {
                try client.pipeline.syncOperations.addHandlers(
                    ByteToMessageHandler(FrameDecoder()), ClientSide(upstream: upstream, rewrite: rewrite))
            }
        }
        do {
            listener = try bootstrap.bind(unixDomainSocketPath: socketPath).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
        self.group = group
        self.socketPath = socketPath
    }

    func stop() {
        try? listener.close().wait()
        try? group.syncShutdownGracefully()
    }

    /// What the proxy changes, frame by frame; each result is a whole frame, prefix included.
    struct Rewrite: Sendable {
        let hiddenFeatures: Set<String>
        let unknownOps: @Sendable (StashWire.Operation) -> Bool

        func request(_ payload: ByteBuffer) -> ByteBuffer {
            guard let request = try? WireCodec.decodeRequest(payload), unknownOps(request.op) else {
                return Self.framed(payload)
            }
            var frame = ByteBuffer()
            WireCodec.encode(Request(id: request.id, op: .unknown), into: &frame)
            return frame
        }

        func serverMessage(_ payload: ByteBuffer) -> ByteBuffer {
            guard case .response(var response)? = try? WireCodec.decodeServerMessage(payload),
                  case .success(.hello(var hello)) = response.result
            else { return Self.framed(payload) }
            hello.features.removeAll(where: hiddenFeatures.contains)
            response.result = .success(.hello(hello))
            var frame = ByteBuffer()
            WireCodec.encode(.response(response), at: Date(), into: &frame)
            return frame
        }

        static func framed(_ payload: ByteBuffer) -> ByteBuffer {
            var frame = ByteBuffer()
            frame.writeInteger(UInt32(payload.readableBytes), endianness: .big)
            frame.writeImmutableBuffer(payload)
            return frame
        }
    }

    /// The app's connection: opens one to the daemon and sends each request on, in order.
    private final class ClientSide: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer

        private let upstream: String
        private let rewrite: Rewrite
        private var daemon: EventLoopFuture<Channel>?

        init(upstream: String, rewrite: Rewrite) {
            self.upstream = upstream
            self.rewrite = rewrite
        }

        func channelActive(context: ChannelHandlerContext) {
            let client = context.channel
            let rewrite = self.rewrite
            let daemon = ClientBootstrap(group: context.eventLoop)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandlers(
                            ByteToMessageHandler(FrameDecoder()), DaemonSide(client: client, rewrite: rewrite))
                    }
                }
                .connect(unixDomainSocketPath: upstream)
            daemon.whenFailure { _ in client.close(promise: nil) }
            self.daemon = daemon
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = rewrite.request(unwrapInboundIn(data))
            // Callbacks on one future run in the order they were added: requests keep theirs.
            daemon?.whenSuccess { $0.writeAndFlush(frame, promise: nil) }
        }

        func channelInactive(context: ChannelHandlerContext) {
            daemon?.whenSuccess { $0.close(promise: nil) }
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: Error) {
            context.close(promise: nil)
        }
    }

    /// The daemon's answers and events, sent back to the app.
    private final class DaemonSide: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer

        private let client: Channel
        private let rewrite: Rewrite

        init(client: Channel, rewrite: Rewrite) {
            self.client = client
            self.rewrite = rewrite
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            client.writeAndFlush(rewrite.serverMessage(unwrapInboundIn(data)), promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            client.close(promise: nil)
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: Error) {
            context.close(promise: nil)
        }
    }
}
