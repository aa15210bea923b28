import StashCore

/// SetDownload and Move: decided by `EngineState+Queue` and `EngineState+Update`, answered with the record
/// once its change is committed.
extension Engine {
    package func setPriority(id: String, _ priority: DownloadPriority) async throws -> Download {
        try await change(.setPriority(id, priority), id: id)
    }

    package func setRateLimit(id: String, _ bytesPerSecond: Int64) async throws -> Download {
        try await change(.setRateLimit(id, bytesPerSecond), id: id)
    }

    /// `file`: the path of the bundle file that gets the URL; nil for a single-file download.
    package func setURI(id: String, _ uri: String, file: String? = nil) async throws -> Download {
        try await change(.setURI(id, uri, file: file), id: id)
    }

    package func setHeaders(id: String, _ headers: HeaderChange) async throws -> Download {
        try await change(.setHeaders(id, headers), id: id)
    }

    package func setLicenseHeaders(id: String, _ headers: HeaderChange) async throws -> Download {
        try await change(.setLicenseHeaders(id, headers), id: id)
    }

    /// A download's own network and on-battery rules; nil leaves one as it is.
    package func setDesktopRules(id: String, network: NetworkRequirement?, onBattery: BatteryPolicy?) async throws -> Download {
        try await change(.setDesktopRules(id, network: network, onBattery: onBattery), id: id)
    }

    package func move(id: String, _ move: QueueMove) async throws -> Download {
        try await change(.move(id, move), id: id)
    }

    private func change(_ input: EngineInput, id: String) async throws -> Download {
        let ticket = perform(try state.on(input))
        try await ticket?.wait()
        return try get(id: id)
    }
}
