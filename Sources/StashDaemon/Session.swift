import StashCore
import StashWire

/// The protocol rules of one connection, as a value: who may talk, and that Hello comes first.
/// The connection handler does the I/O the actions ask for.
struct Session {
    enum Phase: Equatable {
        /// Connected, peer not yet checked.
        case connecting
        case awaitingHello
        case ready
        /// Refused or broken: the last answer is on its way and the connection is closing.
        case closing
    }

    enum ConnectAction: Equatable {
        case accept
        /// Send this error as response id 0, then close.
        case refuse(StashError)
    }

    enum RequestAction: Equatable {
        /// Pass to the request handler.
        case handle
        case subscribe(SubscribeRequest)
        /// Answer with this error without involving the handler.
        case reject(StashError)
        /// Drop: the connection is closing.
        case ignore
    }

    private(set) var phase: Phase = .connecting
    let ownerUID: UInt32
    /// The peer's uid once connected.
    private(set) var peerUID: UInt32?

    init(ownerUID: UInt32) {
        self.ownerUID = ownerUID
    }

    /// Root may always connect: it could read the socket anyway.
    mutating func onConnect(peer: PeerCredentials) -> ConnectAction {
        guard phase == .connecting else { return .accept }
        guard peer.uid == ownerUID || peer.uid == 0 else {
            phase = .closing
            return .refuse(StashError(.permissionDenied, "uid \(peer.uid) may not use this daemon (owner uid \(ownerUID))"))
        }
        phase = .awaitingHello
        peerUID = peer.uid
        return .accept
    }

    mutating func onRequest(_ op: Operation) -> RequestAction {
        switch phase {
        case .connecting, .closing:
            return .ignore
        case .awaitingHello, .ready:
            break
        }
        switch op {
        case .hello(let hello):
            guard hello.protocolVersion == StashVersion.protocolVersion else {
                return .reject(StashError(
                    .failedPrecondition,
                    "client speaks protocol \(hello.protocolVersion); this daemon speaks protocol \(StashVersion.protocolVersion)"))
            }
            phase = .ready
            return .handle
        case .unknown:
            return .reject(.unknownOperation)
        case .invalid(let error):
            return .reject(error)
        case .subscribe(let request):
            return phase == .ready ? .subscribe(request) : .reject(Self.helloFirst)
        case .getPlaybackKey where phase == .ready && peerUID != ownerUID, .export where phase == .ready && peerUID != ownerUID,
             .forget where phase == .ready && peerUID != ownerUID, .adopt where phase == .ready && peerUID != ownerUID:
            // Root may manage the daemon, but a content key goes only to the user it was licensed
            // to, an export carries the keys (or the media they decrypt), a forget hands the
            // files over to whoever asked, and an adopt takes files from wherever it is told.
            return .reject(StashError(
                .permissionDenied,
                "\(op.name) is answered only to processes of the daemon's user (uid \(ownerUID)); this peer is uid \(peerUID.map(String.init) ?? "?")"))
        default:
            return phase == .ready ? .handle : .reject(Self.helloFirst)
        }
    }

    /// Bad input: nothing more is read from this connection.
    mutating func onProtocolError() {
        phase = .closing
    }

    private static let helloFirst = StashError(.failedPrecondition, "send Hello first")
}
