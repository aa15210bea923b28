import CSDBus
import Glibc

/// A failed sd-bus call: which call, what it was made on, the errno sd-bus returned (it returns
/// `-errno` rather than setting errno) and, for a method call the peer refused, the D-Bus
/// error's name and message (`org.freedesktop.DBus.Error.ServiceUnknown`, ...).
package struct BusError: Error, Equatable, Sendable, CustomStringConvertible {
    package var call: String
    /// The bus, object or member the call was made on.
    package var subject: String
    package var errnoCode: Int32
    package var name: String?
    package var message: String?

    package init(call: String, subject: String, errnoCode: Int32, name: String? = nil, message: String? = nil) {
        self.call = call
        self.subject = subject
        self.errnoCode = errnoCode
        self.name = name
        self.message = message
    }

    package var description: String {
        var text = "\(call)(\(subject)) failed: "
        if let name { text += name + (message.map { ": \($0)" } ?? "") } else { text += String(cString: strerror(errnoCode)) }
        return text + " (errno \(errnoCode))"
    }

    /// The one place sd-bus's return codes are checked: a negative result throws with the
    /// call's name, its subject, errno and what `error` names, and frees `error`. Returns the
    /// (non-negative) result.
    @discardableResult
    package static func check(_ call: String, _ subject: String, error: UnsafeMutablePointer<sd_bus_error>? = nil, _ body: () -> Int32) throws -> Int32 {
        let result = body()
        defer { if let error { sd_bus_error_free(error) } }
        guard result < 0 else { return result }
        let name = error.flatMap { $0.pointee.name.map { String(cString: $0) } }
        let message = error.flatMap { $0.pointee.message.map { String(cString: $0) } }
        throw BusError(call: call, subject: subject, errnoCode: -result, name: name, message: message)
    }

    /// A reply or value that is not what the interface promises: a hostile or broken service.
    package static func unexpected(_ subject: String, _ what: String) -> BusError {
        BusError(call: "read", subject: subject, errnoCode: EBADMSG, name: "unexpected reply", message: what)
    }

    /// The peer is not on the bus (no owner for its name).
    package var isServiceMissing: Bool {
        name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner"
    }
}
