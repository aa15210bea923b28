/// Linux's `struct ucred`, which Glibc's Swift module does not export (it needs _GNU_SOURCE);
/// same fields, same order, same sizes.
struct LinuxPeerCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}
