import NIOCore
import NIOHTTP1

/// Reads one connection's requests whole (the pipeline handler serialises them) and writes
/// the answers `LicenseServer` decides, after their delay.
final class LicenseServerHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private weak var server: LicenseServer?
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    init(server: LicenseServer) {
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
            body = []
        case .body(var buffer):
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            guard let requestHead = head else { return }
            head = nil
            guard let server else {
                context.close(promise: nil)
                return
            }
            let path = String(requestHead.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            let answer = server.answer(method: requestHead.method, path: path, headers: requestHead.headers, body: body)
            body = []
            let keepAlive = requestHead.isKeepAlive
            guard answer.delay > 0 else {
                send(answer, keepAlive: keepAlive, context: context)
                return
            }
            context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(answer.delay * 1e9))) { [self] in
                // The client may have given up waiting.
                guard context.channel.isActive else { return }
                send(answer, keepAlive: keepAlive, context: context)
            }
        }
    }

    private func send(_ answer: LicenseServerAnswer, keepAlive: Bool, context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: answer.contentType)
        headers.add(name: "Content-Length", value: String(answer.body.count))
        headers.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        let status = HTTPResponseStatus(statusCode: answer.status)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: answer.body)))), promise: nil)
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive { written.assumeIsolated().whenComplete { _ in context.close(promise: nil) } }
    }
}
