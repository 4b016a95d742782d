import Foundation
import TDLCore
import XCTest
@testable import TDLTerminal

/// The add prompt takes an input file's `key=value` words after a URL, read by the same
/// parser; a mistake is the input file's message, and nothing is added.
final class AddPromptTests: XCTestCase {
    /// A screen with no downloads and the queues named (beside `default`).
    func emptyScreen(queues: [String] = []) throws -> ScreenFixture {
        let screen = try ScreenFixture([])
        for name in queues { screen.manager.setQueue(QueueDefinition(name: name)) }
        return screen
    }

    /// Opens the add prompt, types `line` and presses Enter.
    @discardableResult
    func add(_ line: String, on screen: ScreenFixture) -> Reaction {
        screen.press("a")
        screen.type(line)
        return screen.press("Enter")
    }

    func testOptionsAfterAURLApplyToThatURL() throws {
        let screen = try emptyScreen(queues: ["night"])
        let folder = screen.path("iso")
        XCTAssertEqual(add("https://example.com/a.iso out=name.iso dir=\(folder) queue=night https://example.com/b.iso split=4", on: screen),
                       .listEdited)
        XCTAssertEqual(screen.state.message, "added 2 downloads")
        let a = try XCTUnwrap(screen.manager.task("https://example.com/a.iso"))
        XCTAssertEqual(a.fileName, "name.iso")
        XCTAssertEqual(a.directory, folder)
        XCTAssertEqual(a.options.queue, "night")
        let b = try XCTUnwrap(screen.manager.task("https://example.com/b.iso"))
        XCTAssertEqual(b.options.connections, 4)
        XCTAssertNil(b.options.queue, "options belong to the URL before them")
    }

    func testAMistakeIsTheInputFilesMessageAndAddsNothing() throws {
        let screen = try emptyScreen()
        for (typed, key, value) in [("https://example.com/a.iso split=99", "split", "99"),
                                    ("https://example.com/a.iso queue=a/b", "queue", "a/b"),
                                    ("https://example.com/a.iso colour=blue", "colour", "blue")] {
            var options = DownloadOptions()
            var expected = ""
            do { try DownloadOption.read(key, value, into: &options, absolute: { $0 }) } catch { expected = error.message(as: key) }
            XCTAssertFalse(expected.isEmpty, typed)
            XCTAssertEqual(add(typed, on: screen), .redraw, typed)
            XCTAssertEqual(screen.state.message, expected, typed)
            XCTAssertTrue(screen.state.messageIsError, typed)
            XCTAssertEqual(screen.manager.taskCount, 0, typed)
        }
        XCTAssertEqual(add("out=x.iso https://example.com/a.iso", on: screen), .redraw)
        XCTAssertEqual(screen.state.message, "out=x.iso has no URL before it: nothing added")
        XCTAssertNil(screen.manager.task("https://example.com/a.iso"))
    }

    /// A queue no one defined is refused as the manager refuses it, named with the queues.
    func testAnUnknownQueueAddsNothing() throws {
        let screen = try emptyScreen(queues: ["night"])
        add("https://example.com/a.iso queue=nigth", on: screen)
        XCTAssertTrue(screen.state.message.contains("no queue named nigth (queues: default, night)"), screen.state.message)
        XCTAssertNil(screen.manager.task("https://example.com/a.iso"))
    }

    /// A URL's query has '=' in it after its scheme's ':': it stays a URL.
    func testAURLWithAQueryIsAURL() throws {
        let screen = try emptyScreen()
        XCTAssertEqual(add("https://example.com/get?file=a.iso https://example.com/get?a=1&file=b.iso", on: screen), .listEdited)
        XCTAssertEqual(screen.state.message, "added 2 downloads")
    }

    /// A value typed with a space: the word after it is no URL, so the line is a mistake and
    /// nothing is added (not a download named "My" and a refused "File.iso").
    func testAWordAfterAnOptionThatIsNoURLIsAMistake() throws {
        let screen = try emptyScreen()
        XCTAssertEqual(add("https://example.com/a.iso out=My File.iso", on: screen), .redraw)
        XCTAssertEqual(screen.state.message, "File.iso is not a URL; a value cannot hold spaces at the prompt: nothing added")
        XCTAssertTrue(screen.state.messageIsError)
        XCTAssertEqual(screen.manager.taskCount, 0)
        // A URL or a Metalink file after an option is the next download.
        XCTAssertEqual(try AddLine.requests(["https://example.com/a.iso", "out=a", "https://example.com/b.iso", "split=2", "list.meta4"]).get().map(\.url),
                       ["https://example.com/a.iso", "https://example.com/b.iso", "list.meta4"])
    }
}
