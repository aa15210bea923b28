import Foundation
import XCTest

/// PROTOCOL.md is the normative copy of the protocol: it must name every operation and result
/// the schema has, under its field number, and count them right. Both files are read from the
/// package root, so a field added to the schema without its documentation fails here.
final class ProtocolDocumentTests: XCTestCase {
    /// One member of a `oneof`: `IdRequest get_download = 12;`.
    private struct Member: Equatable {
        var type: String
        var name: String
        var number: Int

        /// `get_download` -> `GetDownload`, as the document names operations.
        var operationName: String {
            name.split(separator: "_").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        }
    }

    private var packageRoot: URL {
        // Tests/StashWireTests/ProtocolDocumentTests.swift
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    private func read(_ path: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// The members of `oneof <oneof>` inside `message <message>`.
    private func members(of message: String, oneof: String, in schema: String) throws -> [Member] {
        let start = try XCTUnwrap(schema.range(of: "message \(message) {"), "no message \(message) in the schema")
        let body = schema[start.upperBound...]
        let open = try XCTUnwrap(body.range(of: "oneof \(oneof) {"), "no oneof \(oneof) in \(message)")
        let close = try XCTUnwrap(body[open.upperBound...].firstIndex(of: "}"))
        return body[open.upperBound..<close].split(separator: "\n").compactMap { line in
            let words = line.split(whereSeparator: { $0 == " " || $0 == "=" || $0 == ";" })
            guard words.count >= 3, let number = Int(words[2]) else { return nil }
            return Member(type: String(words[0]), name: String(words[1]), number: number)
        }
    }

    /// The rows `| N | Name | ...` of section 5's table of operations.
    private func operationRows(in document: String) throws -> [Int: String] {
        let start = try XCTUnwrap(document.range(of: "## 5. Operations"))
        // The table ends where the section's first operation begins.
        let end = try XCTUnwrap(document.range(of: "\n### ", range: start.upperBound..<document.endIndex))
        var rows: [Int: String] = [:]
        for line in document[start.upperBound..<end.lowerBound].split(separator: "\n") where line.hasPrefix("|") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.count >= 2, let number = Int(cells[0]) { rows[number] = cells[1] }
        }
        return rows
    }

    func testEveryOperationOfTheSchemaIsDocumentedUnderItsNumber() throws {
        let schema = try read("proto/stash/v1/stash.proto")
        let document = try read("PROTOCOL.md")
        let operations = try members(of: "Request", oneof: "op", in: schema)
        XCTAssertGreaterThan(operations.count, 30, "the schema parsed: \(operations)")
        let rows = try operationRows(in: document)
        for operation in operations {
            XCTAssertEqual(rows[operation.number], operation.operationName,
                           "PROTOCOL.md section 5 lacks `| \(operation.number) | \(operation.operationName) |`")
            XCTAssertTrue(document.contains("`\(operation.type)`"), "PROTOCOL.md never names \(operation.type), the request of \(operation.operationName)")
        }
        let numbers = Set(operations.map(\.number))
        XCTAssertEqual(rows.keys.filter { !numbers.contains($0) }.sorted(), [], "section 5 lists operations the schema does not have")
    }

    func testEveryResultIsDocumented() throws {
        let schema = try read("proto/stash/v1/stash.proto")
        let document = try read("PROTOCOL.md")
        for result in try members(of: "Response", oneof: "result", in: schema) {
            XCTAssertTrue(document.contains("`\(result.name)`: `\(result.type)`"),
                          "PROTOCOL.md section 5 never gives `\(result.name)`: `\(result.type)` as a result")
        }
    }

    /// Section 3's summary says how many operations and results there are, and their fields.
    func testTheSummaryCountsMatchTheSchema() throws {
        let schema = try read("proto/stash/v1/stash.proto")
        let document = try read("PROTOCOL.md")
        for (message, oneof, noun) in [("Request", "op", "operations"), ("Response", "result", "results")] {
            let numbers = try members(of: message, oneof: oneof, in: schema).map(\.number)
            let summary = "\(numbers.count) \(noun), fields \(numbers.min() ?? 0)-\(numbers.max() ?? 0)"
            XCTAssertTrue(document.contains(summary), "PROTOCOL.md section 3 should say '\(summary)'")
        }
    }
}
