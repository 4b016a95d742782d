import Foundation
import TDLCore
import TDLTestSupport
import XCTest

/// A per-download option is read in one place (`DownloadOption`): the same mistake gives the
/// same message from the command line and from an input file, naming the option as each
/// spelled it.
final class OptionMessagesTests: XCTestCase {
    let home = TemporaryDirectory(), work = TemporaryDirectory()

    /// (option, the command line's spelling, the bad value)
    static let mistakes: [(DownloadOption, String, String)] = [
        (.checksum, "--checksum", "sha256=abc"),
        (.maxDownloadLimit, "--max-download-limit", "fast"),
        (.split, "-x", "33"),
        (.header, "-H", "NoColonHere"),
        (.userAgent, "--user-agent", "agent\rX-Evil: 1"),
    ]

    /// The table's message for `value`, naming the option as `name`.
    func message(_ option: DownloadOption, _ value: String, as name: String) throws -> String {
        var options = DownloadOptions()
        do {
            try option.read(value, into: &options, absolute: { $0 })
        } catch {
            return error.message(as: name)
        }
        throw XCTSkip("\(value) is no mistake for \(option.rawValue)")
    }

    func testTheSameMistakeGivesTheSameMessageFromEachSource() throws {
        let url = "http://127.0.0.1:9/never.bin"
        for (option, spelling, value) in Self.mistakes {
            let onCommandLine = try Processes.tdl(["get", "-q", "-d", work.path, spelling, value, url], home: home.path)
            XCTAssertNotEqual(onCommandLine.status, 0, spelling)
            XCTAssertTrue(onCommandLine.stderr.contains(try message(option, value, as: spelling)), onCommandLine.stderr)

            let input = work.file("\(option.rawValue).txt")
            try "\(url)\n  \(option.rawValue)=\(value)\n".write(toFile: input, atomically: true, encoding: .utf8)
            let inFile = try Processes.tdl(["add", "-i", input], home: home.path)
            XCTAssertTrue(inFile.stderr.contains("line 2: " + (try message(option, value, as: option.rawValue))), inFile.stderr)
        }
    }

    func testAnUnknownOptionIsNamed() throws {
        var options = DownloadOptions()
        XCTAssertThrowsError(try DownloadOption.read("colour", "blue", into: &options, absolute: { $0 })) { error in
            XCTAssertEqual((error as? DownloadOption.Mistake)?.message(as: "colour"), "unknown option \"colour\"")
        }
        XCTAssertNoThrow(try DownloadOption.read("max-connection-per-server", "4", into: &options, absolute: { $0 }))
        XCTAssertEqual(options.connections, 4, "aria2's name for split")
    }
}
