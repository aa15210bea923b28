import ArgumentParser
import Foundation
import StashClient

// Runs the command and turns every way it can end into the documented exit status:
// 0 success, 1 a download failed or a daemon error, 2 usage, 3 daemon unreachable (130, Ctrl-C
// while waiting, is InterruptNotice's).
do {
    var command = try StashCommand.parseAsRoot()
    do {
        if var runnable = command as? AsyncParsableCommand {
            try await runAsync(&runnable)
        } else {
            // `stash help ...` and `--help`: ArgumentParser's own help command.
            try command.run()
        }
    } catch {
        exit(ExitStatus.report(runError: error))
    }
} catch {
    exit(ExitStatus.report(parseError: error))
}

/// Opens the existential so the async `run()` is chosen over ParsableCommand's sync one.
func runAsync<Command: AsyncParsableCommand>(_ command: inout Command) async throws {
    try await command.run()
}
