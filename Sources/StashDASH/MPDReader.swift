import CLibXML2

/// Reads an MPD's bytes into `MPDElement`s with libxml2's streaming reader. The document is
/// never built as a libxml2 tree (about 120 bytes a node, whatever the node): only the elements
/// the model reads are kept, the others are skipped with their subtrees.
///
/// A document type declaration is refused as soon as the reader meets it: an MPD has none, and
/// entity declarations are the one way XML multiplies its own size. Entities are not expanded
/// either way (no XML_PARSE_NOENT), external ones are never loaded (no XML_PARSE_DTDLOAD,
/// XML_PARSE_NONET), and the document is read as UTF-8 whatever its declaration says.
enum MPDReader {
    /// The most elements kept from one MPD: a bound on the memory a 16 MiB document of
    /// `<S d="1"/>` can make the daemon hold (1,000,000 of them took 307 MB at the peak in a
    /// debug build; 400,000 take about a third, as an HLS playlist at its limit does). An MPD
    /// within the other limits needs far fewer: a timeline's repeats are one `S`.
    static let maxElements = 400_000
    /// Elements deeper than this are skipped: an MPD's elements nest at most 6 deep.
    static let maxDepth = 16

    static let keptElements: Set<String> = [
        "MPD", "Period", "AdaptationSet", "Representation", "ContentComponent", "BaseURL", "SegmentTemplate",
        "SegmentTimeline", "S", "SegmentList", "SegmentURL", "SegmentBase", "Initialization", "RepresentationIndex",
        "Role", "ContentProtection", "EssentialProperty", "Label",
    ]

    /// libxml2's global state, set up once before any thread parses (xmlInitParser is not safe
    /// to race with itself).
    private static let initialized: Void = xmlInitParser()

    /// The error libxml2 reports first, kept by its structured error handler (which also keeps
    /// libxml2 from printing to the daemon's stderr).
    private final class ErrorBox {
        var message: String?
        var line = 0
    }

    static func read(_ bytes: [UInt8]) throws -> MPDElement {
        guard bytes.count <= DASHError.maxMPDBytes else {
            throw DASHError(.tooLarge, "the MPD is \(bytes.count) bytes; the limit is \(DASHError.maxMPDBytes)")
        }
        guard !bytes.isEmpty else { throw DASHError(.notXML, "the MPD is empty") }
        _ = initialized
        guard !declaresDocumentType(bytes) else { throw doctypeRefusal }
        // The buffer stays pinned for the whole read: libxml2 may read it in place.
        return try bytes.withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { chars in try read(chars) }
        }
    }

    private static func read(_ chars: UnsafeBufferPointer<CChar>) throws -> MPDElement {
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        // The size fits: maxMPDBytes is far below Int32.max.
        guard let reader = xmlReaderForMemory(chars.baseAddress, Int32(chars.count), nil, "UTF-8", options) else {
            throw DASHError(.notXML, "libxml2 could not start reading the MPD")
        }
        defer { xmlFreeTextReader(reader) }
        let box = ErrorBox()
        let unmanaged = Unmanaged.passRetained(box)
        defer { unmanaged.release() }
        xmlTextReaderSetStructuredErrorHandler(
            reader,
            { context, error in
                guard let context, let error else { return }
                let box = Unmanaged<ErrorBox>.fromOpaque(context).takeUnretainedValue()
                guard box.message == nil else { return }
                box.message = error.pointee.message.map { String(cString: $0) } ?? "malformed XML"
                box.line = Int(error.pointee.line)
            }, unmanaged.toOpaque())
        return try walk(reader, errors: box)
    }

    private static func walk(_ reader: xmlTextReaderPtr, errors: ErrorBox) throws -> MPDElement {
        var stack: [MPDElement] = []
        var root: MPDElement?
        var kept = 0
        func fail() -> DASHError {
            let message = (errors.message ?? "malformed XML").trimmingSpaces
            return DASHError(.notXML, errors.line > 0 ? "line \(errors.line): \(message)" : message)
        }
        // After xmlTextReaderNext skips a subtree the reader is already on the next node, which
        // is then handled without another Read.
        var read = true
        loop: while true {
            if read {
                let step = xmlTextReaderRead(reader)
                if step == 0 { break loop }
                guard step == 1 else { throw fail() }
            }
            read = true
            let type = xmlTextReaderNodeType(reader)
            let depth = Int(xmlTextReaderDepth(reader))
            switch type {
            case Int32(XML_READER_TYPE_DOCUMENT_TYPE.rawValue):
                throw doctypeRefusal
            case Int32(XML_READER_TYPE_ELEMENT.rawValue):
                let name = string(xmlTextReaderConstLocalName(reader))
                // An element is kept when its parent was (the stack is as deep as the element)
                // and the model reads it; the root is always kept, for the "not an MPD" message.
                guard depth == stack.count, depth < maxDepth, stack.isEmpty ? root == nil : keptElements.contains(name) else {
                    guard xmlTextReaderIsEmptyElement(reader) == 0 else { continue }
                    let step = xmlTextReaderNext(reader)
                    if step == 0 { break loop }
                    guard step == 1 else { throw fail() }
                    read = false
                    continue
                }
                kept += 1
                guard kept <= maxElements else {
                    throw DASHError(.tooMany, "the MPD has more than \(maxElements) elements that stash reads")
                }
                var element = MPDElement(name: name, line: Int(xmlTextReaderGetParserLineNumber(reader)), index: kept)
                while xmlTextReaderMoveToNextAttribute(reader) == 1 {
                    let local = string(xmlTextReaderConstLocalName(reader))
                    let prefix = xmlTextReaderConstPrefix(reader).map { String(cString: $0) }
                    element.attributes.append((prefix.map { "\($0):\(local)" } ?? local, string(xmlTextReaderConstValue(reader))))
                }
                xmlTextReaderMoveToElement(reader)
                if xmlTextReaderIsEmptyElement(reader) != 0 {
                    close(element, into: &stack, root: &root)
                } else {
                    stack.append(element)
                }
            case Int32(XML_READER_TYPE_END_ELEMENT.rawValue):
                guard depth == stack.count - 1, let element = stack.popLast() else { continue }
                close(element, into: &stack, root: &root)
            case Int32(XML_READER_TYPE_TEXT.rawValue), Int32(XML_READER_TYPE_CDATA.rawValue):
                guard depth == stack.count, !stack.isEmpty else { continue }
                stack[stack.count - 1].text += string(xmlTextReaderConstValue(reader))
            default:
                continue
            }
        }
        guard let root else { throw fail() }
        return root
    }

    private static let doctypeRefusal = DASHError(
        .notXML, "the MPD has a document type declaration (<!DOCTYPE>); an MPD needs none and none is read")

    /// Whether `<!DOCTYPE` comes before the first element's start tag. libxml2 reads ahead of
    /// the node it reports, so a small document's internal subset would be parsed (and its
    /// entities declared) before the reader reports the declaration; this check refuses it
    /// before libxml2 sees a byte. (A declaration after a comment that holds a `<` and a
    /// letter is refused when the reader reaches it instead.)
    private static func declaresDocumentType(_ bytes: [UInt8]) -> Bool {
        let marker = Array("<!DOCTYPE".utf8)
        var index = 0
        while index < bytes.count - 1 {
            if bytes[index] == 0x3C {
                let next = bytes[index + 1]
                if (next | 0x20) >= 0x61 && (next | 0x20) <= 0x7A || next == 0x5F || next == 0x3A { return false }
                if bytes.count - index >= marker.count, bytes[index..<index + marker.count].elementsEqual(marker) { return true }
            }
            index += 1
        }
        return false
    }

    private static func close(_ element: MPDElement, into stack: inout [MPDElement], root: inout MPDElement?) {
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }

    private static func string(_ pointer: UnsafePointer<xmlChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }
}

extension String {
    /// Without the XML white space around it (attribute values and BaseURL text).
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
