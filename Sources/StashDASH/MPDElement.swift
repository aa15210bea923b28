/// One element of an MPD as the parser keeps it: its local name, its attributes and the
/// elements and text inside it. Only the elements the MPD model reads are kept
/// (`MPDReader.keptElements`); the rest are skipped with their subtrees.
struct MPDElement: Sendable {
    var name: String
    /// Attributes in document order; a namespaced one is keyed `prefix:name` (`cenc:default_KID`).
    var attributes: [(name: String, value: String)]
    var children: [MPDElement]
    /// The element's own text (a BaseURL's URL), without the text of its children.
    var text: String
    /// The 1-based line the element starts on, for messages.
    var line: Int
    /// The element's place among the kept elements of its document: an identity for caches (a
    /// minified MPD has all its elements on line 1).
    var index: Int

    init(name: String, line: Int, index: Int) {
        self.name = name
        self.index = index
        self.attributes = []
        self.children = []
        self.text = ""
        self.line = line
    }

    subscript(_ attribute: String) -> String? {
        for entry in attributes where entry.name == attribute { return entry.value }
        return nil
    }

    func first(_ name: String) -> MPDElement? { children.first { $0.name == name } }

    func all(_ name: String) -> [MPDElement] { children.filter { $0.name == name } }

    /// Names the element for a message: `SegmentTemplate (line 12)`.
    var label: String { "\(name) (line \(line))" }
}
