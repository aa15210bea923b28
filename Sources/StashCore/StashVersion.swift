/// Versions the daemon and clients announce in Hello.
public enum StashVersion {
    public static let daemon = "0.11.0"
    /// The wire protocol version; PROTOCOL.md has the table of versions.
    public static let protocolVersion = 1
}
