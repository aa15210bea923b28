import StashFetch

/// The URL of a stream download answered with an MPD, not a playlist: `HLSPreparation` hands the
/// fetched body to `DASHPreparation` instead of reading it as HLS.
struct FoundMPD: Error {
    let body: FetchedBody
}
