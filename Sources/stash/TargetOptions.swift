import ArgumentParser

/// `ID` or `--all`, for pause, resume and cancel.
struct TargetOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The download's id.", valueName: "id"))
    var id: String?

    @Flag(help: "Every download instead of one.")
    var all = false

    func validate() throws {
        switch (id, all) {
        case (nil, false): throw ValidationError("give a download id or --all")
        case (.some, true): throw ValidationError("give either a download id or --all, not both")
        default: break
        }
    }
}
