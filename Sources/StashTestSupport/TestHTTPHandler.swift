import NIOCore
import NIOHTTP1
import NIOPosix

/// Answers one connection's requests (the pipeline handler serialises them) by carrying out a
/// `TestResponsePlan`: body chunks are written only while the channel is writable, so a large
/// or slow body is never buffered whole.
final class TestHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private static let chunkSize = 64 * 1024

    private let server: TestHTTPServer
    private var head: HTTPRequestHead?
    private var context: ChannelHandlerContext?

    /// The response being sent.
    private var plan: TestResponsePlan?
    /// The Host header of the request being answered, for the server's per-host counts.
    private var host = ""
    private var sent = 0
    private var stalled = false
    /// A stall or throttle delay is running; pumping resumes when it ends.
    private var paused = false

    init(server: TestHTTPServer) {
        self.server = server
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
        case .body:
            break
        case .end:
            guard let requestHead = head else { return }
            head = nil
            host = requestHead.headers["Host"].first ?? ""
            begin(server.plan(for: requestHead), keepAlive: requestHead.isKeepAlive, context: context)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { pump() }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if plan != nil {
            plan = nil
            server.responseEnded(host: host)
        }
        self.context = nil
        context.fireChannelInactive()
    }

    private func begin(_ plan: TestResponsePlan, keepAlive: Bool, context: ChannelHandlerContext) {
        var headers = HTTPHeaders(plan.headers)
        headers.replaceOrAdd(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        let status = HTTPResponseStatus(statusCode: plan.status, reasonPhrase: plan.reason)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        self.plan = plan
        sent = 0
        stalled = false
        paused = false
        if !plan.sendBody { self.plan?.range = plan.range.lowerBound..<plan.range.lowerBound }
        pump()
    }

    /// Writes body chunks until the body ends, the channel pushes back, or the plan says stop.
    private func pump() {
        guard let context, let plan, !paused else { return }
        let remaining = plan.range.count - sent
        if remaining == 0, plan.overlong > 0 {
            // Bytes no header announced, sent once the client has had the whole body and put
            // the connection back in its pool: it reads them as the start of the answer to
            // its next request there.
            self.plan?.overlong = 0
            paused = true
            context.flush()
            let junk = Array(repeating: UInt8(ascii: "x"), count: plan.overlong)
            context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(50)) { [weak self] in
                guard let self, let context = self.context else { return }
                context.write(self.wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: junk)))), promise: nil)
                self.paused = false
                self.pump()
            }
            return
        }
        if remaining == 0 {
            self.plan = nil
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            server.responseEnded(host: host)
            return
        }
        if let resetAt = plan.resetAfter, sent >= resetAt {
            resetConnection(context)
            return
        }
        if let stallAt = plan.stallAfter, sent >= stallAt, !stalled {
            stalled = true
            paused = true
            context.flush()
            let resume = { [weak self] in
                self?.paused = false
                self?.pump()
            }
            if let seconds = plan.stallSeconds {
                context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) { resume() }
                return
            }
            if server.addStallWaiter(on: context.eventLoop, plannedAt: plan.releasesBefore, resume) { return }
            // Released since it was planned: it goes on as if released at its stall.
            paused = false
        }
        guard context.channel.isWritable else {
            context.flush()
            return
        }
        var count = min(Self.chunkSize, remaining)
        if let resetAt = plan.resetAfter { count = min(count, resetAt - sent) }
        if let stallAt = plan.stallAfter, !stalled { count = min(count, stallAt - sent) }
        if let rate = plan.bytesPerSecond { count = min(count, max(1, rate / 20)) }
        var buffer = context.channel.allocator.buffer(capacity: count)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { pointer in
            plan.body.fill(UnsafeMutableRawBufferPointer(rebasing: pointer[0..<count]), from: plan.range.lowerBound + sent)
            return count
        }
        sent += count
        if let rate = plan.bytesPerSecond {
            paused = true
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
            let delay = Int64(count) * 1_000_000_000 / Int64(max(1, rate))
            context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(delay)) { [weak self] in
                self?.paused = false
                self?.pump()
            }
            return
        }
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        // Going round the event loop keeps the stack flat and lets reads and other channels in.
        context.eventLoop.assumeIsolated().execute { [weak self] in self?.pump() }
    }

    /// Flushes what was written, then aborts the connection with a TCP RST (SO_LINGER 0) a
    /// moment later, so the client has read the bytes before the reset arrives.
    private func resetConnection(_ context: ChannelHandlerContext) {
        paused = true
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(channel.allocator.buffer(capacity: 0))))).whenComplete { _ in
            channel.eventLoop.scheduleTask(in: .milliseconds(100)) {
                guard let provider = channel as? SocketOptionProvider else {
                    channel.close(promise: nil)
                    return
                }
                provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in
                    channel.close(promise: nil)
                }
            }
        }
    }
}
