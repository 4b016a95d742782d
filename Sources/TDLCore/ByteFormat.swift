import Foundation

/// Human sizes in decimal units, as SDE's detail text shows them ("41.6 MB/402.5 MB").
public enum ByteFormat {
    public static func string(_ bytes: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB", "PB"]
        var value = Double(max(bytes, 0))
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        if unit == 0 { return "\(Int(value)) B" }
        return formatOneDecimal(value) + " " + units[unit]
    }

    public static func rate(_ bytesPerSecond: Int64) -> String { string(bytesPerSecond) + "/s" }

    /// "1:02:03", "4:05", or "--:--" when unknown.
    public static func duration(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite, seconds >= 0, seconds < 100 * 86_400 else { return "--:--" }
        let total = Int(seconds.rounded(.up))
        let h = total / 3600, m = (total % 3600) / 60, s = total % 60
        let mm = m < 10 ? "0\(m)" : "\(m)", ss = s < 10 ? "0\(s)" : "\(s)"
        return h > 0 ? "\(h):\(mm):\(ss)" : "\(m):\(ss)"
    }

    static func formatOneDecimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// Parses "500K", "2M", "1.5G", "800" (bytes per second); nil when malformed.
    public static func parseRate(_ text: String) -> Int64? {
        var s = text.trimmingCharacters(in: .whitespaces).uppercased()
        if s.hasSuffix("/S") { s.removeLast(2) }
        if s.hasSuffix("B") { s.removeLast() }
        var multiplier: Double = 1
        if let last = s.last, let m = ["K": 1024.0, "M": 1_048_576.0, "G": 1_073_741_824.0][String(last)] {
            multiplier = m
            s.removeLast()
        }
        guard let number = Double(s), number >= 0, number.isFinite else { return nil }
        return Int64(number * multiplier)
    }
}
