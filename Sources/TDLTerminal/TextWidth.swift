import CNcursesw
import Foundation
import Synchronization
import TDLCore

/// Text that came from outside (names, URLs, errors) as it may appear on screen: no control
/// characters or escape sequences, cut by display width (wide characters count two columns).
enum ScreenText {
    /// False when the locale has no UTF-8 (LANG=C, POSIX, Latin-1): marks, rules and arrows are
    /// drawn in ASCII, and other characters as "?". Set once, when the screen starts.
    static var unicode: Bool {
        get { unicodeLocale.load(ordering: .relaxed) }
        set { unicodeLocale.store(newValue, ordering: .relaxed) }
    }
    /// What `unicode` says: an atomic, as it is global.
    private static let unicodeLocale = Atomic<Bool>(true)

    static var ellipsis: String { unicode ? "…" : "~" }

    /// ASCII stand-ins for the glyphs tdl draws; anything else outside ASCII becomes "?".
    static let asciiGlyphs: [Unicode.Scalar: String] = [
        "…": "~", "↓": "v", "↑": "^", "‖": "|", "■": "#", "✓": "+", "✗": "!", "·": "|", "─": "-",
        "–": "-", "—": "-", "≤": "<=", "∞": "inf", "×": "x",
    ]

    static func ascii(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.isASCII { result.unicodeScalars.append(scalar) } else { result += asciiGlyphs[scalar] ?? "?" }
        }
        return result
    }

    /// Removes C0/C1 controls (ESC included, so no escape sequence survives) and bidi overrides.
    static func clean(_ text: String) -> String { TerminalText.clean(text) }

    static func width(of scalar: Unicode.Scalar) -> Int {
        let w = Int(tdl_wcwidth(scalar.value))
        return w < 0 ? 1 : w
    }

    static func width(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + width(of: $1) }
    }

    /// At most `columns` wide; an ellipsis marks a cut.
    static func fit(_ text: String, _ columns: Int) -> String {
        guard columns > 0 else { return "" }
        if width(text) <= columns { return text }
        var result = String.UnicodeScalarView()
        var used = 0
        for scalar in text.unicodeScalars {
            let w = width(of: scalar)
            if used + w > columns - 1 { break }
            result.append(scalar)
            used += w
        }
        return String(result) + ellipsis
    }

    /// Exactly `columns` wide: cut, then padded with spaces.
    static func pad(_ text: String, _ columns: Int, alignRight: Bool = false) -> String {
        let fitted = fit(text, columns)
        let gap = String(repeating: " ", count: max(0, columns - width(fitted)))
        return alignRight ? gap + fitted : fitted + gap
    }
}
