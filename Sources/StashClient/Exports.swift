// The client's API is made of the domain and wire value types; re-exporting them lets an app
// depend on the StashClient product alone.
@_exported import StashCore
@_exported import StashWire
