import Foundation

extension StringProtocol {
    /// The text without the blanks around it, as `trimmingCharacters(in: .whitespaces)` leaves
    /// it, but looking only at the scalars at its ends: Foundation's trim makes an NSString of
    /// the whole text first, which was most of reading a list of 2,000 URLs.
    func trimmingBlanks() -> String {
        let scalars = unicodeScalars
        let blanks = CharacterSet.whitespaces
        guard let first = scalars.firstIndex(where: { !blanks.contains($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !blanks.contains($0) }) ?? first
        var trimmed = String.UnicodeScalarView()
        trimmed.append(contentsOf: scalars[first...last])
        return String(trimmed)
    }
}
