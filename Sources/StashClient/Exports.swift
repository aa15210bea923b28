// An app depends on the StashClient product alone: the requests the client takes, the records
// and events it answers with and its errors are public in StashCore and StashWire, re-exported
// here. What the daemon's modules share among themselves there is `package`, out of an app's
// sight (docs/ARCHITECTURE.md, "What a module shows"; scripts/check-client-api.py checks it).
@_exported import StashCore
@_exported import StashWire
