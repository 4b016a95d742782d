import TDLCore

/// The columns of a task row for one screen width: marks, name (whatever is left), size and
/// status. Size and status have fixed widths, so they line up whatever each row says:
///
///     *↓ V movie.mp4                     360.0 MB  [####----------------]  21%    4.2 MB/s     1:02
///      ✓ D report.pdf                      2.4 MB  Done
///      ‖ Z photos.zip                    150.0 MB  Paused 41.6 MB/150.0 MB
///
/// A narrower screen first gets a shorter bar, then no bar, then no ETA, and only then loses
/// the size column, so the name keeps room to be read.
struct RowLayout {
    /// Cells of the progress bar; 0 shows none.
    let barWidth: Int
    let showsETA: Bool
    let showsSize: Bool
    let nameWidth: Int

    /// "*↓ V ": mark, state, type.
    static let markWidth = 5
    /// The widest ByteFormat answer ("999.9 MB").
    static let sizeWidth = 8
    static let gap = 2
    static let percentWidth = 4, speedWidth = 10, etaWidth = 7
    static let minimumNameWidth = 16

    init(width: Int) {
        typealias Choice = (bar: Int, eta: Bool, size: Bool)
        let choices: [Choice] = [(20, true, true), (10, true, true), (0, true, true), (0, false, true), (0, false, false)]
        let chosen = choices.first {
            Self.nameWidth(width: width, bar: $0.bar, eta: $0.eta, size: $0.size) >= Self.minimumNameWidth
        } ?? choices[choices.count - 1]
        barWidth = chosen.bar
        showsETA = chosen.eta
        showsSize = chosen.size
        nameWidth = max(1, Self.nameWidth(width: width, bar: chosen.bar, eta: chosen.eta, size: chosen.size))
    }

    static func statusWidth(bar: Int, eta: Bool) -> Int {
        (bar > 0 ? bar + 3 : 0) + percentWidth + gap + speedWidth + (eta ? gap + etaWidth : 0)
    }

    static func nameWidth(width: Int, bar: Int, eta: Bool, size: Bool) -> Int {
        width - markWidth - (size ? gap + sizeWidth : 0) - gap - statusWidth(bar: bar, eta: eta)
    }

    var statusWidth: Int { Self.statusWidth(bar: barWidth, eta: showsETA) }

    /// One row: every column padded or cut to its width.
    func line(marks: String, name: String, size: String, status: String) -> String {
        var line = ScreenText.pad(marks, Self.markWidth) + ScreenText.pad(name, nameWidth)
        if showsSize { line += String(repeating: " ", count: Self.gap) + ScreenText.pad(size, Self.sizeWidth, alignRight: true) }
        return line + String(repeating: " ", count: Self.gap) + ScreenText.pad(status, statusWidth)
    }

    /// "[#####---------------]  21%   4.2 MB/s     1:02", as much as the width allows.
    /// Without a known size the bar shows the bytes so far and the percent is "?%".
    func progress(_ fraction: Double?, received: Int64, speed: Int64, eta: Double?) -> String {
        var text = ""
        if barWidth > 0 {
            let inside = fraction.map { Self.bar($0, width: barWidth) } ?? ScreenText.pad(ByteFormat.string(received), barWidth)
            text = "[" + inside + "] "
        }
        text += ScreenText.pad(fraction.map { "\(Int($0 * 100))%" } ?? "?%", Self.percentWidth, alignRight: true)
        text += String(repeating: " ", count: Self.gap) + ScreenText.pad(ByteFormat.rate(speed), Self.speedWidth, alignRight: true)
        if showsETA {
            text += String(repeating: " ", count: Self.gap) + ScreenText.pad(Self.eta(eta), Self.etaWidth, alignRight: true)
        }
        return text
    }

    /// "4:05", or "—" when it cannot be known (no speed yet, a size not known): the row and
    /// the header say it alike.
    static func eta(_ seconds: Double?) -> String {
        seconds == nil ? "—" : ByteFormat.duration(seconds)
    }

    static func bar(_ fraction: Double, width: Int) -> String {
        let filled = Int((max(0, min(1, fraction)) * Double(width)).rounded(.down))
        return String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
    }
}
