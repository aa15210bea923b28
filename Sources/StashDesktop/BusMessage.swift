import CSDBus
import Glibc
import StashCore

/// Reads a received message one value at a time. Valid only while sd-bus lends it (a signal
/// handler, a reply being read), on the bus's thread.
package struct BusMessage {
    let pointer: OpaquePointer

    package var member: String { sd_bus_message_get_member(pointer).map { String(cString: $0) } ?? "" }
    package var path: String { sd_bus_message_get_path(pointer).map { String(cString: $0) } ?? "" }

    package func readString() throws -> String {
        var value: UnsafePointer<CChar>?
        try BusError.check("sd_bus_message_read_basic", "s in \(member)") { sd_bus_message_read_basic(pointer, CChar(UInt8(ascii: "s")), &value) }
        return value.map { String(cString: $0) } ?? ""
    }

    package func readBool() throws -> Bool {
        // sd-bus reads a D-Bus boolean into an int.
        var value: Int32 = 0
        try BusError.check("sd_bus_message_read_basic", "b in \(member)") { sd_bus_message_read_basic(pointer, CChar(UInt8(ascii: "b")), &value) }
        return value != 0
    }

    package func readUInt32() throws -> UInt32 {
        var value: UInt32 = 0
        try BusError.check("sd_bus_message_read_basic", "u in \(member)") { sd_bus_message_read_basic(pointer, CChar(UInt8(ascii: "u")), &value) }
        return value
    }

    /// A Unix descriptor of the message, duplicated (close-on-exec) so it outlives the message.
    package func readDescriptor() throws -> Int32 {
        var value: Int32 = -1
        try BusError.check("sd_bus_message_read_basic", "h in \(member)") { sd_bus_message_read_basic(pointer, CChar(UInt8(ascii: "h")), &value) }
        return try SystemCallError.check("fcntl", "a descriptor of \(member)") { fcntl(value, F_DUPFD_CLOEXEC, 0) }
    }

    /// A variant: its value when of a basic type stash reads, else its signature.
    package func readVariant() throws -> BusValue {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        try BusError.check("sd_bus_message_peek_type", "a variant in \(member)") { sd_bus_message_peek_type(pointer, &type, &contents) }
        guard type == CChar(UInt8(ascii: "v")), let contents else {
            throw BusError.unexpected(member, "a value of type \(Character(Unicode.Scalar(UInt8(bitPattern: type)))) where a variant was expected")
        }
        let signature = String(cString: contents)
        try BusError.check("sd_bus_message_enter_container", "a variant in \(member)") { sd_bus_message_enter_container(pointer, CChar(UInt8(ascii: "v")), contents) }
        let value: BusValue
        switch signature {
        case "b": value = .bool(try readBool())
        case "u": value = .uint32(try readUInt32())
        case "i":
            var number: Int32 = 0
            try BusError.check("sd_bus_message_read_basic", "i in \(member)") { sd_bus_message_read_basic(pointer, CChar(UInt8(ascii: "i")), &number) }
            value = .int32(number)
        case "s", "o": value = .string(try readString())
        default:
            try BusError.check("sd_bus_message_skip", "a variant in \(member)") { sd_bus_message_skip(pointer, contents) }
            value = .other(signature: signature)
        }
        try BusError.check("sd_bus_message_exit_container", "a variant in \(member)") { sd_bus_message_exit_container(pointer) }
        return value
    }

    /// An `a{sv}` of properties, as PropertiesChanged carries them.
    package func readProperties() throws -> [String: BusValue] {
        try BusError.check("sd_bus_message_enter_container", "a{sv} in \(member)") { sd_bus_message_enter_container(pointer, CChar(UInt8(ascii: "a")), "{sv}") }
        var properties: [String: BusValue] = [:]
        // 0: the array has no more entries.
        while try BusError.check("sd_bus_message_enter_container", "{sv} in \(member)", { sd_bus_message_enter_container(pointer, CChar(UInt8(ascii: "e")), "sv") }) > 0 {
            let name = try readString()
            properties[name] = try readVariant()
            try BusError.check("sd_bus_message_exit_container", "{sv} in \(member)") { sd_bus_message_exit_container(pointer) }
        }
        try BusError.check("sd_bus_message_exit_container", "a{sv} in \(member)") { sd_bus_message_exit_container(pointer) }
        return properties
    }
}
