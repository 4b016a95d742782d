import Foundation
import TDLTestSupport
import XCTest

/// `tdl get URL` with a few options is read without ArgumentParser (start-up time): the
/// command it makes must be the one ArgumentParser makes, every other form goes to it.
final class QuickGetTests: XCTestCase {
    private func reading(_ arguments: [String]) throws -> (status: Int32, text: String) {
        let home = TemporaryDirectory()
        let result = try Processes.tdl(["debug", "quick-get"] + arguments, home: home.path)
        return (result.status, result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + result.stderr)
    }

    func testTheCommonFormsAreReadQuicklyAsArgumentParserReadsThem() throws {
        let url = "http://127.0.0.1:9/a.bin"
        let forms: [[String]] = [
            ["get", url],
            ["get", "--home", "/tmp/h", "-d", "/tmp/out", "-q", url],
            ["get", url, "-q", "--session", "other", "-o", "name.bin"],
            ["get", "--dir", "sub", url, "http://127.0.0.1:9/b.bin"],
            ["get", "-o", "sub/x.bin", "--home", "h", url],
            ["get", "--home", "h", "-d", "out", "-q", "-j", "16", "-i", "urls.txt"],
            ["get", "-i", "urls.txt", url, "-j", "3"],
        ]
        for form in forms {
            let check = try reading(form)
            XCTAssertEqual(check.status, 0, "\(form): \(check.text)")
            XCTAssertEqual(check.text, "quick", "\(form)")
        }
    }

    func testEveryOtherFormIsLeftToArgumentParser() throws {
        let url = "http://127.0.0.1:9/a.bin"
        let forms: [[String]] = [
            ["get"],
            ["get", "--help"],
            ["get", "help"],
            ["get", "-x", "4", url],
            ["get", "-j", "x", url],                // not a number: ArgumentParser says so
            ["get", "-j", "0", url],                // out of range: its check fails
            ["get", "-i", "-", url],
            ["get", "-j", "2", "-j", "3", url],
            ["get", "-i", "a", "-o", "b"],
            ["get", "-o", "-", url],
            ["get", "-qd", "d", url],
            ["get", "--home=h", url],
            ["get", "-q", "-q", url],
            ["get", "-d", "a", "-d", "b", url],
            ["get", "--", url],
            ["get", url, "-o"],
            ["get", "-o", "a", url, url],          // its check fails: ArgumentParser says why
            ["get", "--session", "../x", url],
            ["add", url],
            ["--home", "h", "get", url],
        ]
        for form in forms {
            let check = try reading(form)
            XCTAssertEqual(check.status, 0, "\(form): \(check.text)")
            XCTAssertEqual(check.text, "parser", "\(form)")
        }
    }

    /// Values that look like words ArgumentParser treats apart (help, an empty folder, a
    /// non-ASCII name, `-`, `--dir=`): each is read as ArgumentParser reads it, or left to it.
    func testEdgeFormsAreReadTheSameOrLeftToArgumentParser() throws {
        let url = "http://127.0.0.1:9/a.bin"
        let forms: [[String]] = [
            ["get", "-o", "help", url],
            ["get", "-d", "", url],
            ["get", "-o", "é.bin", url],
            ["get", "-", url],
            ["get", "--dir=x", url],
        ]
        for form in forms {
            let check = try reading(form)
            XCTAssertEqual(check.status, 0, "\(form) is read otherwise than ArgumentParser reads it: \(check.text)")
            XCTAssertTrue(["quick", "parser"].contains(check.text), "\(form): \(check.text)")
        }
        // Options given with `=` and a lone `-` are never read quickly.
        XCTAssertEqual(try reading(["get", "--dir=x", url]).text, "parser")
        XCTAssertEqual(try reading(["get", "-", url]).text, "parser")
    }

    /// A form that looks quick but fails a check gets ArgumentParser's message and status.
    func testAFailedCheckIsToldAsBefore() throws {
        let home = TemporaryDirectory()
        let result = try Processes.tdl(["get", "--session", ".hidden", "http://127.0.0.1:9/a.bin"], home: home.path)
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("a session name has up to 64 bytes"), result.stderr)
        XCTAssertTrue(result.stderr.contains("Usage: tdl get"), result.stderr)
    }
}
