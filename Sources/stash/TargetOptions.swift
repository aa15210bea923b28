import ArgumentParser
import StashClient

/// `ID`, `--all` or `--group G`, for pause, resume and cancel.
struct TargetOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The download's id.", valueName: "id"))
    var id: String?

    @Flag(help: "Every download instead of one.")
    var all = false

    @Option(help: ArgumentHelp("Every download of this group and the groups under it.", valueName: "group"))
    var group: String?

    func validate() throws {
        let given = (id != nil ? 1 : 0) + (all ? 1 : 0) + (group != nil ? 1 : 0)
        guard given == 1 else {
            throw ValidationError(given == 0 ? "give a download id, --all or --group" : "give one of a download id, --all and --group")
        }
        // An empty group would match every download (as a list filter does): --all says that.
        if group == "" {
            throw ValidationError("--group '' is empty; give a group path such as one-piece/chapter-12, or --all for every download")
        }
    }

    /// Whether the daemon pauses, resumes and cancels a group in one request (PauseGroup,
    /// ResumeGroup, CancelGroup); an older one is sent one request per download of the group.
    static func daemonActsOnGroups(_ client: StashClient) -> Bool {
        client.daemonInfo.features.contains("group-ops")
    }

    /// "--all" or "--group G": how the message of a command over many names what it covered.
    var many: String { group.map { "--group \($0)" } ?? "--all" }

    /// The downloads `--all` or `--group` covers whose state is one of `states` (every state
    /// when empty).
    func downloads(client: StashClient, states: [DownloadState] = []) async throws -> [Download] {
        try await client.allDownloads(states: states, group: group ?? "").downloads
    }

    /// Applies `change` to each of `downloads`, and returns how many it changed. One whose
    /// state moved on meanwhile (or that went) is skipped, as the daemon's own PauseAll,
    /// ResumeAll and CancelAll (and PauseGroup, ResumeGroup, CancelGroup) skip them.
    static func forEach(_ downloads: [Download], _ change: (String) async throws -> Void) async throws -> Int {
        var changed = 0
        for download in downloads {
            do {
                try await change(download.id)
                changed += 1
            } catch let error as StashError where error.code == .failedPrecondition || error.code == .notFound {
                continue
            }
        }
        return changed
    }
}
