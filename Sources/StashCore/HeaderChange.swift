/// SetDownload's change to a list of request headers (a download's, or its licence requests'):
/// `clear` empties the list first, then each header given replaces those of its name (in any
/// case) or is added at the end.
package struct HeaderChange: Equatable, Sendable {
    package var headers: [HTTPHeader]
    package var clear: Bool

    package init(headers: [HTTPHeader] = [], clear: Bool = false) {
        self.headers = headers
        self.clear = clear
    }

    /// Nothing given: neither headers nor a clear.
    package var isEmpty: Bool { headers.isEmpty && !clear }

    package func applied(to current: [HTTPHeader]) -> [HTTPHeader] {
        var result = clear ? [] : current
        for header in headers {
            let name = header.name.lowercased()
            if let first = result.firstIndex(where: { $0.name.lowercased() == name }) {
                result[first] = header
                // Several of one name: the given one takes the first's place, the rest go.
                result = result.enumerated().filter { $0.offset == first || $0.element.name.lowercased() != name }.map(\.element)
            } else {
                result.append(header)
            }
        }
        return result
    }

    /// Refuses what AddDownload refuses (`field`: the request's field, for the message), and a
    /// result over `limit` headers.
    package func validate(field: String, result: [HTTPHeader], limit: Int) throws {
        for (index, header) in headers.enumerated() {
            do {
                try header.validate()
            } catch let error as StashError {
                throw StashError.invalidArgument("\(field)[\(index)]: \(error.message)")
            }
        }
        guard result.count <= limit else {
            throw StashError.invalidArgument("\(field): the download would have \(result.count) of them; the limit is \(limit)")
        }
    }
}
