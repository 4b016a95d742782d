import Foundation
import TDLTestSupport
import XCTest

/// `tdl list` of a list long enough to be sorted, and its lines made, on two threads in
/// pieces (more than `ParallelLines.chunkRows` rows in a section).
final class LongListTests: XCTestCase {
    let home = TemporaryDirectory()

    /// Every task once, in the same order and sections in the text and in JSON, each
    /// section's title once before its rows; descending is ascending reversed.
    func testALongListIsWrittenWholeAndInOrder() throws {
        let count = 80_000
        XCTAssertEqual(try Processes.tdl(["debug", "populate", String(count)], home: home.path, timeout: 300).status, 0)
        let json = try Processes.tdl(["list", "--json", "--sort", "type"], home: home.path)
        XCTAssertEqual(json.status, 0, json.stderr)
        let tasks = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let urls = tasks.compactMap { $0["url"] as? String }
        XCTAssertEqual(urls.count, count)
        XCTAssertEqual(Set(urls).count, count, "each task once")

        let text = try Processes.tdl(["list", "--sort", "type"], home: home.path)
        XCTAssertEqual(text.status, 0, text.stderr)
        var titles: [String] = []
        var rows: [(section: String, url: String)] = []
        for line in text.stdout.split(separator: "\n").map(String.init) {
            if line.hasPrefix("== ") {
                titles.append(String(line.dropFirst(3)))
            } else {
                rows.append((titles.last ?? "", String(line.split(separator: "\t").last ?? "")))
            }
        }
        XCTAssertEqual(Set(titles).count, titles.count, "each section's title once")
        XCTAssertGreaterThan(titles.count, 1)
        XCTAssertEqual(rows.map(\.url), urls, "the text's rows are the JSON's, in its order")
        XCTAssertEqual(rows.map(\.section), tasks.map { $0["section"] as? String ?? "" })

        let ascending = try Processes.tdl(["list", "--sort", "name", "--order", "asc"], home: home.path).stdout
        let descending = try Processes.tdl(["list", "--sort", "name", "--order", "desc"], home: home.path).stdout
        XCTAssertEqual(descending.split(separator: "\n").map(String.init),
                       ascending.split(separator: "\n").reversed().map(String.init))
    }
}
