/// What the desktop says that a download may wait for: a metered network (NetworkManager's
/// `Metered` is yes or guess-yes) and running on battery (UPower's `OnBattery`). A service that
/// is not there, or cannot tell, says neither: stash then behaves as it would without it.
package struct DesktopConditions: Equatable, Sendable {
    package var metered: Bool
    package var onBattery: Bool

    package init(metered: Bool = false, onBattery: Bool = false) {
        self.metered = metered
        self.onBattery = onBattery
    }
}
