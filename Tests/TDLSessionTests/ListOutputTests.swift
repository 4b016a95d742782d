import Foundation
import TDLSession
import XCTest

/// `tdl list` writes its JSON and cleans its text by hand, for speed: the output must stay
/// byte for byte what Foundation's serializer and the scalar-by-scalar cleaning gave.
final class ListOutputTests: XCTestCase {
    static let texts = [
        "", "plain name.iso", "a/b/c?d=1&e", "quote \" and \\ backslash", "tab\there", "line\nbreak\r\n",
        "\u{1}\u{8}\u{C}\u{1F}\u{7F}", "C1 \u{80}\u{85}\u{9F} and \u{A0}\u{A9}", "é 東京 😀 \u{2028}", "Ωmega ü\u{308}",
    ]

    func testJSONObjectsAreWhatJSONSerializationWrites() throws {
        for text in Self.texts {
            for number: Int64? in [nil, 0, -5, 4_294_967_296] {
                var mine: [UInt8] = []
                JSONText.appendObject([("a", .string(text)), ("b", .number(number)), ("c", .string(nil)), ("d", .string("x"))], to: &mine)
                let object: [String: Any] = ["a": text, "b": number.map { $0 as Any } ?? NSNull(), "c": NSNull(), "d": "x"]
                let theirs = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
                XCTAssertEqual(String(decoding: mine, as: UTF8.self), String(decoding: theirs, as: UTF8.self), "for \(text.debugDescription)")
            }
        }
    }

    func testCleaningReplacesControlCharactersOnly() {
        for text in Self.texts {
            let expected = String(String.UnicodeScalarView(text.unicodeScalars.map { s in
                s.value < 0x20 || (s.value >= 0x7F && s.value < 0xA0) || (0x2028...0x202E).contains(s.value)
                    || (0x2066...0x2069).contains(s.value) ? "?" : s
            }))
            XCTAssertEqual(ScreenSafe.clean(text), expected, "for \(text.debugDescription)")
        }
        // A tab would move tdl list's columns; bidi overrides would make a name read backwards.
        XCTAssertEqual(ScreenSafe.clean("a\u{1B}[31mb\u{85}c\td"), "a?[31mb?c?d")
        XCTAssertEqual(ScreenSafe.clean("evil\u{202E}fdp.exe \u{2066}x\u{2069} \u{2028}"), "evil?fdp.exe ?x? ?")
    }
}
