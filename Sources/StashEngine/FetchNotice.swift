import StashFetch

/// A fetch event tagged with the download, file and transfer it belongs to. `generation` is
/// the number `EngineState` gave the transfer when it decided to start it: an event of an
/// earlier transfer of the same file is told apart by it and ignored.
struct FetchNotice: Sendable {
    let id: String
    let index: Int
    let generation: UInt64
    let event: FetchEvent
}
