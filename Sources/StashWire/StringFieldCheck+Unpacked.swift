import CStashProto

extension StringFieldCheck {
    /// The first string field, in the schema's order, of a protobuf-c struct (one being packed)
    /// whose pointer is one of `targets`: its path from the message's name
    /// (`Request.add_download.files[1].path`) and the pointer; nil when no field holds one.
    /// Walked with the descriptors as the payload is, so it needs no list of fields either; a
    /// oneof member is read only when it is the one set.
    static func firstField(
        holding targets: Set<UnsafeRawPointer>, in message: UnsafeRawPointer, _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>
    ) -> (path: String, pointer: UnsafeRawPointer)? {
        fieldPath(to: targets, in: message, descriptor, depth: 0).map {
            (([String(cString: descriptor.pointee.short_name)] + $0.path).joined(separator: "."), $0.pointer)
        }
    }

    private static func fieldPath(
        to targets: Set<UnsafeRawPointer>, in message: UnsafeRawPointer, _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, depth: Int
    ) -> (path: [String], pointer: UnsafeRawPointer)? {
        guard depth < maxDepth else { return nil }
        let fields = UnsafeBufferPointer(start: descriptor.pointee.fields, count: Int(descriptor.pointee.n_fields))
        for field in fields where field.type == PROTOBUF_C_TYPE_STRING || field.type == PROTOBUF_C_TYPE_MESSAGE {
            if field.flags & UInt32(PROTOBUF_C_FIELD_FLAG_ONEOF.rawValue) != 0,
               message.load(fromByteOffset: Int(field.quantifier_offset), as: UInt32.self) != field.id {
                continue
            }
            let name = String(cString: field.name)
            var elements: [(name: String, pointer: UnsafeRawPointer?)]
            if field.label == PROTOBUF_C_LABEL_REPEATED {
                let count = message.load(fromByteOffset: Int(field.quantifier_offset), as: Int.self)
                let array = message.load(fromByteOffset: Int(field.offset), as: UnsafeRawPointer?.self)
                elements = (0..<count).map { index in
                    ("\(name)[\(index)]", array?.load(fromByteOffset: index * MemoryLayout<UnsafeRawPointer>.stride, as: UnsafeRawPointer?.self))
                }
            } else {
                elements = [(name, message.load(fromByteOffset: Int(field.offset), as: UnsafeRawPointer?.self))]
            }
            for element in elements {
                guard let pointer = element.pointer else { continue }
                if field.type == PROTOBUF_C_TYPE_STRING {
                    if targets.contains(pointer) { return ([element.name], pointer) }
                } else if let inner = fieldPath(
                    to: targets, in: pointer, field.descriptor.assumingMemoryBound(to: ProtobufCMessageDescriptor.self), depth: depth + 1) {
                    return ([element.name] + inner.path, inner.pointer)
                }
            }
        }
        return nil
    }
}
