/// A video size from a RESOLUTION attribute (`1280x720`).
package struct Resolution: Equatable, Hashable, Sendable {
    package var width: Int
    package var height: Int

    package init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}
