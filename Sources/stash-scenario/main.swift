// The shared scenario of clients/scenario/README.md through StashClient, the Swift client;
// clients/scenario/run.py runs it with the C and Python ones against one daemon.
//
// usage: stash-scenario SOCKET BASE_URL PREFIX
import Foundation
import StashClient

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: stash-scenario SOCKET BASE_URL PREFIX\n".utf8))
    exit(2)
}
let (socketPath, base, prefix) = (arguments[1], arguments[2], arguments[3])
let fileID = "\(prefix)-file", bundleID = "\(prefix)-bundle", nothingID = "\(prefix)-nothing"

/// The failure's code and whether its message names `named`, as the transcript prints it.
func refusal(_ what: String, named: String, _ call: () async throws -> Void) async {
    do {
        try await call()
        print("\(what): accepted")
    } catch let error as StashError where error.message.contains(named) {
        print("refused \(what): \(error.code.name) naming \(named)")
    } catch {
        print("\(what): \(error)")
    }
}

do {
    let client = try await StashClient.connect(socketPath: socketPath, clientName: "stash-scenario")
    let features = Set(client.daemonInfo.features)
    let hello = try await client.hello()
    print("hello: protocol \(hello.protocolVersion), features \(features.isSuperset(of: ["bundles", "events"]) ? "bundles and events" : "lacking")")
    let events = try await client.events(ids: [fileID, bundleID])
    print("subscribed: \(fileID) \(bundleID)")
    let added = try await client.addDownload(AddDownloadRequest(id: fileID, uri: "\(base)/slow/1048576/\(fileID).bin", title: "A file"))
    print("added \(added.download.id): \(added.created ? "created" : "not created") \(added.download.state.name)")
    let files = (1...3).map { BundleFileSpec(url: "\(base)/data/100000/\(prefix)-b\($0).bin") }
    let bundle = try await client.addDownload(AddDownloadRequest(id: bundleID, uri: "", title: "A bundle", files: files))
    print("added \(bundle.download.id): \(bundle.created ? "created" : "not created"), a bundle of \(bundle.download.filesTotal) files")

    var finished: [String: Download] = [:]
    var progressSeen = false
    var iterator = events.makeAsyncIterator()
    while finished.count < 2, let event = try await iterator.next() {
        switch event.kind {
        case .progress(let update) where update.id == fileID && finished[fileID] == nil:
            progressSeen = true
        case .stateChanged(let record, _) where record.state == .completed || record.state == .failed:
            finished[record.id] = record
        default:
            break
        }
    }
    print("progress \(fileID): \(progressSeen ? "seen before it completed" : "none")")
    if let done = finished[fileID], done.state == .completed {
        print("completed \(fileID): \(done.downloadedBytes) bytes")
    } else {
        print("\(fileID): \(finished[fileID]?.state.name ?? "no end")")
    }
    if let done = finished[bundleID], done.state == .completed {
        print("completed \(bundleID): \(done.filesDone) of \(done.filesTotal) files, \(done.downloadedBytes) bytes")
    } else {
        print("\(bundleID): \(finished[bundleID]?.state.name ?? "no end")")
    }
    var has = try await client.hasDownload(id: fileID)
    print("has \(fileID): \(has.exists) \(has.state.name)")
    let record = try await client.getDownload(id: bundleID)
    print("get \(bundleID): \(record.files.filter(\.done).count) files done")
    try await client.cancel(id: fileID)
    print("cancelled \(fileID)")
    while let event = try await iterator.next() {
        if case .removed(let id) = event.kind, id == fileID { break }
    }
    print("removed \(fileID)")
    has = try await client.hasDownload(id: fileID)
    print("has \(fileID): \(has.exists) \(has.state.name)")
    await refusal("add ../bad", named: "../bad") {
        _ = try await client.addDownload(AddDownloadRequest(id: "../bad", uri: "\(base)/data/10/\(prefix)-bad.bin"))
    }
    await refusal("get \(nothingID)", named: nothingID) { _ = try await client.getDownload(id: nothingID) }
    try await client.cancel(id: bundleID)
    print("cancelled \(bundleID)")
    await client.close()
} catch {
    print("failed: \(error)")
    exit(1)
}
