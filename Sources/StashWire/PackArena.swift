import CStashProto
/// C memory for the structs, strings and arrays of one message while protobuf-c packs it.
///
/// protobuf-c reads raw pointers, so everything it is given must stay put until `pack` returns.
/// Rather than one allocation per string and struct, the arena hands out memory from a few
/// large blocks (usually one) and frees them all together when it is released, so nothing
/// it handed out can outlive the message being packed.
final class PackArena {
    /// Large enough for a Response carrying one Download with ordinary strings.
    private static let blockSize = 4096
    /// Each block starts with a pointer to the block allocated before it.
    private static let headerSize = MemoryLayout<UnsafeMutableRawPointer?>.stride
    private static let blockAlignment = 16

    private var block: UnsafeMutableRawPointer
    private var offset: Int
    private var capacity: Int
    /// Whether `cString` notes the strings that hold a NUL (a client's request: see
    /// `WireCodec.encodeRefusingNUL`); the daemon's answers do not pay for the scan.
    private let findsNUL: Bool
    /// The strings given to `cString` that hold a NUL, by the copy it handed out.
    private(set) var stringsWithNUL: [UnsafeRawPointer: String] = [:]

    init(findingNUL: Bool = false) {
        findsNUL = findingNUL
        block = Self.newBlock(size: Self.blockSize, previous: nil)
        offset = Self.headerSize
        capacity = Self.blockSize
    }

    deinit {
        var next: UnsafeMutableRawPointer? = block
        while let current = next {
            next = current.load(as: UnsafeMutableRawPointer?.self)
            current.deallocate()
        }
    }

    private static func newBlock(size: Int, previous: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer {
        let block = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: blockAlignment)
        block.storeBytes(of: previous, as: UnsafeMutableRawPointer?.self)
        return block
    }

    private func allocate(byteCount: Int, alignment: Int) -> UnsafeMutableRawPointer {
        precondition(alignment <= Self.blockAlignment && alignment & (alignment - 1) == 0)
        var start = (offset + alignment - 1) & ~(alignment - 1)
        if start + byteCount > capacity {
            let size = max(Self.blockSize, Self.headerSize + Self.blockAlignment + byteCount)
            block = Self.newBlock(size: size, previous: block)
            capacity = size
            start = (Self.headerSize + alignment - 1) & ~(alignment - 1)
        }
        offset = start + byteCount
        return block + start
    }

    /// Copies a C struct (a protobuf-c message already set up with its `__init`) into the arena.
    func store<T>(_ value: T) -> UnsafeMutablePointer<T> {
        let pointer = allocate(byteCount: MemoryLayout<T>.stride, alignment: MemoryLayout<T>.alignment)
            .bindMemory(to: T.self, capacity: 1)
        pointer.initialize(to: value)
        return pointer
    }

    /// A NUL-terminated UTF-8 copy of `string`. protobuf-c measures strings with `strlen`, so a
    /// string with an embedded NUL is sent up to that NUL.
    func cString(_ string: String) -> UnsafeMutablePointer<CChar> {
        // Read in place where the string's bytes are contiguous (every native string): a
        // mutable copy for `withUTF8` retained each string of every record encoded.
        if let copied = string.utf8.withContiguousStorageIfAvailable({ copy($0, of: string) }) { return copied }
        var contiguous = string
        return contiguous.withUTF8 { copy($0, of: string) }
    }

    private func copy(_ utf8: UnsafeBufferPointer<UInt8>, of string: String) -> UnsafeMutablePointer<CChar> {
        let raw = allocate(byteCount: utf8.count + 1, alignment: 1)
        if let base = utf8.baseAddress {
            raw.copyMemory(from: base, byteCount: utf8.count)
        }
        if findsNUL, utf8.contains(0) {
            stringsWithNUL[UnsafeRawPointer(raw)] = string
        }
        raw.storeBytes(of: 0, toByteOffset: utf8.count, as: UInt8.self)
        return raw.bindMemory(to: CChar.self, capacity: utf8.count + 1)
    }

    /// A copy of `bytes` for a `bytes` field.
    func bytes(_ bytes: [UInt8]) -> ProtobufCBinaryData {
        guard !bytes.isEmpty else { return ProtobufCBinaryData(len: 0, data: nil) }
        let raw = allocate(byteCount: bytes.count, alignment: 1)
        bytes.withUnsafeBytes { raw.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        return ProtobufCBinaryData(len: bytes.count, data: raw.bindMemory(to: UInt8.self, capacity: bytes.count))
    }

    /// A C array for a repeated field, or nil when there is nothing to repeat.
    func array<Source: Collection, Element>(
        _ source: Source, _ transform: (Source.Element) -> Element
    ) -> UnsafeMutablePointer<Element>? {
        let count = source.count
        guard count > 0 else { return nil }
        let elements = allocate(byteCount: MemoryLayout<Element>.stride * count, alignment: MemoryLayout<Element>.alignment)
            .bindMemory(to: Element.self, capacity: count)
        var next = elements
        for item in source {
            next.initialize(to: transform(item))
            next += 1
        }
        return elements
    }
}
