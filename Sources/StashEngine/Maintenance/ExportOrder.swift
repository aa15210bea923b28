import StashCore

/// What an Export request asks: a folder (`dir`: the package as a player opens it, with its
/// keys or `decrypt`ed) or one file (`file`: an HLS download remuxed into `format`, a single
/// file copied or, with `link`, hard-linked; `force` replaces a file there).
package struct ExportOrder: Equatable, Sendable {
    package var id: String
    package var dir: String
    package var decrypt: Bool
    package var file: String
    package var format: ExportFormat?
    package var force: Bool
    package var link: Bool

    package init(id: String, dir: String = "", decrypt: Bool = false, file: String = "", format: ExportFormat? = nil, force: Bool = false, link: Bool = false) {
        self.id = id
        self.dir = dir
        self.decrypt = decrypt
        self.file = file
        self.format = format
        self.force = force
        self.link = link
    }

    /// Refuses fields that do not go together, naming them.
    func validate() throws {
        if dir.isEmpty == file.isEmpty {
            throw StashError.invalidArgument(
                dir.isEmpty ? "an export names dir (a folder for the package) or file (one file); both are empty"
                    : "an export names dir (a folder for the package) or file (one file), not both")
        }
        if !dir.isEmpty {
            let fileOnly = [(format != nil, "format"), (force, "force"), (link, "link")].filter(\.0).map(\.1)
            if !fileOnly.isEmpty {
                throw StashError.invalidArgument("\(fileOnly.joined(separator: ", ")) apply to an export to one file (file), not to dir")
            }
        } else if decrypt {
            throw StashError.invalidArgument("decrypt applies to an export to dir; a file is always written decrypted")
        }
    }
}
