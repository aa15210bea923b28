/// The elements of one kind (SegmentTemplate, SegmentList or SegmentBase) that apply to a
/// representation, its own first, then its adaptation set's and its period's: an attribute or
/// child absent from one is inherited from the next (ISO/IEC 23009-1 section 5.3.9.1).
struct SegmentLevels {
    let elements: [MPDElement]

    /// The nearest value of `name`, with the element it is on (for messages).
    func attribute(_ name: String) -> (value: String, element: MPDElement)? {
        for element in elements {
            if let value = element[name] { return (value, element) }
        }
        return nil
    }

    /// The nearest element that has `name` as an attribute, for the numeric readers.
    func owner(_ name: String) -> MPDElement? { attribute(name)?.element }

    func child(_ name: String) -> MPDElement? {
        for element in elements {
            if let child = element.first(name) { return child }
        }
        return nil
    }

    func unsigned(_ name: String, max: UInt64 = .max) throws -> UInt64? {
        guard let owner = owner(name) else { return nil }
        return try MPDValue.unsigned(owner, name, max: max)
    }
}
