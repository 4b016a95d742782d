import Foundation

/// Human sizes in decimal units, as SDE's detail text shows them ("41.6 MB/402.5 MB"); rates
/// are read in the same units (`RateText`).
public enum ByteFormat {
    public static func string(_ bytes: Int64) -> String {
        var text: [UInt8] = []
        append(bytes, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    private static let units = ["B", "KB", "MB", "GB", "TB", "PB"]

    /// `string(bytes)`'s UTF-8, appended: `tdl list` writes two for each of a million tasks.
    public static func append(_ bytes: Int64, to buffer: inout [UInt8]) {
        var value = Double(max(bytes, 0))
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        if unit == 0 {
            appendDecimal(Int(value), to: &buffer)
        } else {
            let tenths = Int((value * 10).rounded())
            appendDecimal(tenths / 10, to: &buffer)
            buffer.append(UInt8(ascii: "."))
            buffer.append(UInt8(ascii: "0") + UInt8(tenths % 10))
        }
        buffer.append(UInt8(ascii: " "))
        buffer.append(contentsOf: units[unit].utf8)
    }

    /// The digits of `number` (not negative).
    private static func appendDecimal(_ number: Int, to buffer: inout [UInt8]) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = number
        withUnsafeMutableBytes(of: &digits) { room in
            repeat {
                room[19 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            } while rest > 0
            buffer.append(contentsOf: room[(20 - count)...])
        }
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
}
