/// A video size from a RESOLUTION attribute (`1280x720`).
public struct Resolution: Equatable, Hashable, Sendable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}
