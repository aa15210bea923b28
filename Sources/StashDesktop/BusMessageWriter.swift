import CSDBus

/// Appends the arguments of a method call one value at a time (sd-bus's non-variadic calls).
package struct BusMessageWriter {
    let pointer: OpaquePointer
    let member: String

    package func append(_ value: String) throws {
        _ = try value.withCString { text in
            try BusError.check("sd_bus_message_append_basic", "s in \(member)") { sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "s")), text) }
        }
    }

    package func append(_ value: UInt32) throws {
        var value = value
        try BusError.check("sd_bus_message_append_basic", "u in \(member)") { sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "u")), &value) }
    }

    package func append(_ value: Int32) throws {
        var value = value
        try BusError.check("sd_bus_message_append_basic", "i in \(member)") { sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "i")), &value) }
    }

    /// An empty array whose elements have the signature `element` (`s`, `{sv}`).
    package func appendEmptyArray(of element: String) throws {
        try BusError.check("sd_bus_message_open_container", "a\(element) in \(member)") {
            sd_bus_message_open_container(pointer, CChar(UInt8(ascii: "a")), element)
        }
        try BusError.check("sd_bus_message_close_container", "a\(element) in \(member)") { sd_bus_message_close_container(pointer) }
    }
}
