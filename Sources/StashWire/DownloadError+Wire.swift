import CStashProto
import StashCore

extension DownloadError {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__DownloadError> {
        var message = Stash__V1__DownloadError()
        stash__v1__download_error__init(&message)
        message.kind = Stash__V1__ErrorKind(rawValue: numericCast(kind.rawValue))
        message.message = arena.cString(self.message)
        message.http_status = UInt32(clamping: httpStatus)
        return arena.store(message)
    }

    init(wire message: UnsafePointer<Stash__V1__DownloadError>) throws {
        let raw = Int32(truncatingIfNeeded: message.pointee.kind.rawValue)
        guard let kind = Kind(rawValue: Int(raw)) else {
            throw StashError.invalidArgument("DownloadError.kind: unknown ErrorKind value \(raw); known values are 0...5")
        }
        self.init(
            kind, try WireValue.string(message.pointee.message, field: "DownloadError.message"),
            httpStatus: Int(message.pointee.http_status))
    }
}
