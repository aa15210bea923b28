import Foundation
import StashClient

// Control-plane benchmark for `make bench`: GetDownload and HasDownload latency from one
// client and request throughput from many connections; with --wait-ready, only waits until a
// starting daemon answers; with --bundles, adds bundles and waits until they are COMPLETED.
// Output lines are `name value` so bench/run.sh can read them without parsing prose.

struct Options {
    var socket = StashPaths.defaultSocketPath()
    var id = "bench-probe"
    var uri = "http://127.0.0.1:9/bench-probe"
    var warmup = 2_000
    var calls = 20_000
    var clients = 16
    var depth = 8
    var seconds = 3.0
    /// Calls run on the connection's event loop thread (`StashClient.taskExecutor`), as a
    /// latency-sensitive app would; false measures tasks on the default cooperative pool.
    var onEventLoop = true
    /// `StashClient.connect(busyPollMicroseconds:)` for the latency client.
    var busyPoll = 0
    /// When set, the only job is to connect until the daemon answers, for at most this long.
    var waitReady: Double?
    /// When set, the only job is to add one bundle per `*.list` file in this folder.
    var bundles: String?

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var rest = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let next = rest.popFirst() else { throw StashError.invalidArgument("\(flag) needs a value") }
            return next
        }
        func integer(_ flag: String, _ range: ClosedRange<Int>) throws -> Int {
            let text = try value(flag)
            guard let number = Int(text), range.contains(number) else {
                throw StashError.invalidArgument("\(flag) '\(text)' is not an integer in \(range.lowerBound)...\(range.upperBound)")
            }
            return number
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--socket": options.socket = try value(flag)
            case "--id": options.id = try value(flag)
            case "--uri": options.uri = try value(flag)
            case "--warmup": options.warmup = try integer(flag, 0...10_000_000)
            case "--calls": options.calls = try integer(flag, 1...10_000_000)
            case "--clients": options.clients = try integer(flag, 1...1024)
            case "--depth": options.depth = try integer(flag, 1...1024)
            case "--seconds": options.seconds = Double(try integer(flag, 1...600))
            case "--pool": options.onEventLoop = false
            case "--busy-poll-us": options.busyPoll = try integer(flag, 0...100_000)
            case "--wait-ready": options.waitReady = Double(try integer(flag, 1...3600))
            case "--bundles": options.bundles = try value(flag)
            case "--help", "-h":
                print("""
                    usage: stash-bench [--socket PATH] [--id ID] [--uri URI] [--warmup N] [--calls N]
                                       [--clients N] [--depth N] [--seconds N] [--pool] [--busy-poll-us N]
                           stash-bench [--socket PATH] --wait-ready SECONDS
                           stash-bench [--socket PATH] --bundles DIR
                    Measures GetDownload and HasDownload latency (sequential calls on one
                    connection) and GetDownload throughput (--clients connections, each with
                    --depth calls in flight, for --seconds). The download --id is added with
                    --uri when it does not exist. Calls run on each connection's event loop
                    thread unless --pool is given, which runs them on the default cooperative
                    thread pool. --busy-poll-us makes the latency client watch its socket that
                    long for each answer instead of sleeping (StashClient's busy poll).
                    With --wait-ready, connects again and again until the daemon answers Hello and
                    one HasDownload (exit 0), or SECONDS pass (exit 1).
                    With --bundles, adds one bundle per DIR/NAME.list (id NAME; lines URL<TAB>path)
                    over one connection, all at once, and waits until every one is COMPLETED
                    (exit 0) or one ends otherwise (exit 1).
                    """)
                exit(0)
            default:
                throw StashError.invalidArgument("unknown argument '\(flag)'; see --help")
            }
        }
        return options
    }
}

/// Nanoseconds on a monotonic clock.
func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func percentile(_ sorted: [UInt64], _ fraction: Double) -> Double {
    let index = min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.down)))
    return Double(sorted[index]) / 1000
}

func ensureDownload(_ client: StashClient, _ options: Options) async throws {
    do {
        _ = try await client.getDownload(id: options.id)
    } catch let error as StashError where error.code == .notFound {
        // Forced: the probe's URL is one of the files a download of the workload holds.
        _ = try await client.addDownload(AddDownloadRequest(id: options.id, uri: options.uri, force: true))
    }
}

/// Runs `body` on the client's event loop thread, or where it is when `onEventLoop` is false.
func onClientThread<T: Sendable>(
    _ client: StashClient, _ onEventLoop: Bool, _ body: @Sendable () async throws -> T
) async throws -> T {
    guard onEventLoop, #available(macOS 15.0, *) else { return try await body() }
    return try await withTaskExecutorPreference(client.taskExecutor, operation: body)
}

/// Latency of `call`, made `options.calls` times in sequence on one connection after
/// `options.warmup` untimed calls, so each sample is one round trip and nothing else.
func measureLatency(
    _ options: Options, _ call: @escaping @Sendable (StashClient) async throws -> Void
) async throws -> (p50: Double, p99: Double) {
    let client = try await StashClient.connect(socketPath: options.socket, clientName: "stash-bench", busyPollMicroseconds: options.busyPoll)
    try await ensureDownload(client, options)
    var samples = try await onClientThread(client, options.onEventLoop) {
        for _ in 0..<options.warmup {
            try await call(client)
        }
        var samples = [UInt64](repeating: 0, count: options.calls)
        for index in 0..<options.calls {
            let start = now()
            try await call(client)
            samples[index] = now() - start
        }
        return samples
    }
    await client.close()
    samples.sort()
    return (percentile(samples, 0.50), percentile(samples, 0.99))
}

func measureThroughput(_ options: Options) async throws -> (requests: Int, seconds: Double) {
    var clients: [StashClient] = []
    for _ in 0..<options.clients {
        clients.append(try await StashClient.connect(socketPath: options.socket, clientName: "stash-bench"))
    }
    let id = options.id
    let onEventLoop = options.onEventLoop
    let start = now()
    let deadline = start + UInt64(options.seconds * 1e9)
    let requests = try await withThrowingTaskGroup(of: Int.self) { group in
        for client in clients {
            for _ in 0..<options.depth {
                group.addTask {
                    try await onClientThread(client, onEventLoop) {
                        var count = 0
                        while now() < deadline {
                            _ = try await client.getDownload(id: id)
                            count += 1
                        }
                        return count
                    }
                }
            }
        }
        return try await group.reduce(0, +)
    }
    let elapsed = Double(now() - start) / 1e9
    for client in clients { await client.close() }
    return (requests, elapsed)
}

/// Connects until the daemon answers; returns how many attempts it took. A daemon that is
/// still starting has no socket yet (or refuses), so a failed attempt is retried after 1 ms:
/// short enough not to add to the measured start, long enough not to steal its CPU.
func waitUntilReady(_ options: Options, within seconds: Double) async throws -> Int {
    let deadline = now() + UInt64(seconds * 1e9)
    var attempts = 0
    while true {
        attempts += 1
        do {
            let client = try await StashClient.connect(socketPath: options.socket, clientName: "stash-bench")
            // Hello is answered by the server alone; a HasDownload goes through the engine too.
            _ = try await client.hasDownload(id: options.id)
            await client.close()
            return attempts
        } catch {
            if now() >= deadline { throw error }
            try await Task.sleep(nanoseconds: 1_000_000)
        }
    }
}

/// The bundles of `dir`: one per `NAME.list`, whose lines are `URL` or `URL<TAB>path`.
func readBundles(_ dir: String) throws -> [AddDownloadRequest] {
    let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".list") }.sorted()
    guard !names.isEmpty else { throw StashError.invalidArgument("no *.list files in \(dir)") }
    return try names.map { name in
        let text = try String(contentsOfFile: dir + "/" + name, encoding: .utf8)
        let files = text.split(separator: "\n").map { line in
            let columns = line.split(separator: "\t", maxSplits: 1).map(String.init)
            return BundleFileSpec(url: columns[0], path: columns.count > 1 ? columns[1] : "")
        }
        return AddDownloadRequest(id: String(name.dropLast(".list".count)), uri: "", files: files)
    }
}

/// The bundles still awaited and the state events seen for them, shared by the wait and its
/// watchdog.
actor BundleWait {
    private(set) var pending: Set<String>
    private var seen: [String: [String]] = [:]
    private var lastEvent = now()

    init(ids: [String]) { pending = Set(ids) }

    /// Notes a record (from an add answer or a state event); true when none is pending any more.
    func settle(_ download: Download, seq: UInt64? = nil) throws -> Bool {
        if let seq {
            lastEvent = now()
            seen[download.id, default: []].append("\(download.state.name)@\(seq)")
        }
        if download.state.isTerminal {
            guard download.state == .completed else {
                throw StashError(.internal, "bundle \(download.id) ended \(download.state.name)")
            }
            pending.remove(download.id)
        }
        return pending.isEmpty
    }

    func heard() { lastEvent = now() }

    var silentSeconds: Double { Double(now() - lastEvent) / 1e9 }

    func events(of id: String) -> [String] { seen[id] ?? [] }
}

/// Adds every bundle over one connection, all requests in flight at once as an app adding a
/// batch would, and follows their state events until all are COMPLETED.
func addBundlesAndWait(_ options: Options, _ dir: String) async throws -> Int {
    let requests = try readBundles(dir)
    let client = try await StashClient.connect(socketPath: options.socket, clientName: "stash-bench")
    // Subscribed before the adds, so a bundle that completes at once is still seen; progress
    // events are thinned out because only state changes matter here.
    let events = try await client.events(ids: requests.map(\.id), minProgressStep: 100, minIntervalMs: 60_000)
    let wait = BundleWait(ids: requests.map(\.id))
    let watchdog = Task { try await watch(wait, client) }
    defer { watchdog.cancel() }
    let added = try await withThrowingTaskGroup(of: Download.self) { group in
        for request in requests {
            group.addTask { try await client.addDownload(request).download }
        }
        return try await group.reduce(into: [Download]()) { $0.append($1) }
    }
    var done = false
    for download in added { done = try await wait.settle(download) }
    if !done {
        for try await event in events {
            switch event.kind {
            case .stateChanged(let download, _): done = try await wait.settle(download, seq: event.seq)
            case .removed(let id): throw StashError(.internal, "bundle \(id) was removed")
            case .progress, .license, .eventsLost, .exportProgress, .settingsChanged: await wait.heard()
            }
            if done { break }
        }
    }
    await client.close()
    guard done else { throw StashError(.unavailable, "event stream ended with \(await wait.pending.count) bundles pending") }
    return requests.count
}

/// A bundle the daemon reports finished while its state event has not come would leave the
/// wait hanging for ever; after 5 s without events this asks GetDownload, and names such
/// bundles and the events seen for them before exiting 1.
func watch(_ wait: BundleWait, _ client: StashClient) async throws {
    while true {
        try await Task.sleep(nanoseconds: 1_000_000_000)
        guard await wait.silentSeconds > 5 else { continue }
        var missed: [String] = []
        for id in await wait.pending.sorted() {
            let state = try await client.getDownload(id: id).state
            if state.isTerminal {
                missed.append("\(id) is \(state.name); state events received: [\(await wait.events(of: id).joined(separator: ", "))]")
            }
        }
        if !missed.isEmpty {
            FileHandle.standardError.write(Data("stash-bench: state events missed:\n  \(missed.joined(separator: "\n  "))\n".utf8))
            exit(1)
        }
    }
}

do {
    let options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
    if let seconds = options.waitReady {
        print("ready_attempts \(try await waitUntilReady(options, within: seconds))")
        exit(0)
    }
    if let dir = options.bundles {
        print("bundles_completed \(try await addBundlesAndWait(options, dir))")
        exit(0)
    }
    let id = options.id
    let get = try await measureLatency(options) { client in _ = try await client.getDownload(id: id) }
    print(String(format: "getdownload_p50_us %.1f", get.p50))
    print(String(format: "getdownload_p99_us %.1f", get.p99))
    let has = try await measureLatency(options) { client in _ = try await client.hasDownload(id: id) }
    print(String(format: "hasdownload_p50_us %.1f", has.p50))
    print(String(format: "hasdownload_p99_us %.1f", has.p99))
    let throughput = try await measureThroughput(options)
    print(String(format: "getdownload_rps %.0f", Double(throughput.requests) / throughput.seconds))
    print("getdownload_clients \(options.clients)")
    print("getdownload_in_flight_per_client \(options.depth)")
} catch {
    FileHandle.standardError.write(Data("stash-bench: \(error)\n".utf8))
    exit(1)
}
