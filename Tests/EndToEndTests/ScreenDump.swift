import Foundation

/// Reading saved screens: which lines are task rows, and where things are in display columns
/// (wide characters such as CJK count two, as on a terminal).
enum ScreenDump {
    static let stateMarks: Set<Character> = ["…", "↓", "‖", "■", "✓", "✗"]

    /// The saved rows; blank rows at the bottom were trimmed when saved.
    static func lines(_ screen: String) -> [String] {
        screen.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// One row of a screen `rows` high, counted from the bottom: 1 is the message line, 2 the key bar.
    static func row(fromBottom n: Int, of screen: String, rows: Int) -> String {
        let all = lines(screen)
        let index = rows - n
        return all.indices.contains(index) ? all[index] : ""
    }

    /// Rows that show a task: a mark column, then a state mark.
    static func taskRows(_ screen: String) -> [String] {
        lines(screen).filter { $0.count > 2 && stateMarks.contains(Array($0)[1]) }
    }

    static func width(_ text: some StringProtocol) -> Int {
        text.unicodeScalars.reduce(0) { $0 + (isWide($1) ? 2 : 1) }
    }

    static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// The display column where the size column ends ("… 48.0 MB  ["): the first size on the row.
    static func sizeEnd(_ row: String) -> Int? {
        guard let match = row.firstMatch(of: #/\d+(\.\d)? [KMGT]?B/#) else { return nil }
        return width(row[..<match.range.upperBound])
    }

    /// The display column where the status area starts, for rows whose status is a word or a bar.
    static func statusStart(_ row: String) -> Int? {
        guard let match = row.firstMatch(of: #/  (Done|Failed|Waiting|Paused|Stopped|Retrying|\[)/#) else { return nil }
        return width(row[..<match.range.lowerBound]) + 2
    }

    /// Anything a terminal would act on instead of showing: C0/C1 controls, DEL, bidi
    /// overrides, and curses' caret form of a control ("^[").
    static func controls(in screen: String) -> [String] {
        var found = screen.unicodeScalars.filter { s in
            let v = s.value
            return (v < 0x20 && v != 0x0A) || (v >= 0x7F && v < 0xA0) || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
        }.map { String(format: "U+%04X", $0.value) }
        if screen.contains("^[") { found.append("^[") }
        return found
    }
}
