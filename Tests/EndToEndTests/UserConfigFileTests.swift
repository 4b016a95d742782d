import Foundation
import TDLTestSupport
import XCTest

/// The user's tdl.conf in a real run: its plain keys take effect, the command line overrides
/// them, `tdl config` says where each value comes from, and a bad line stops the command.
final class UserConfigFileTests: FaultServerTestCase {
    let home = TemporaryDirectory(), downloads = TemporaryDirectory(), configHome = TemporaryDirectory()

    var configPath: String { configHome.path + "/tdl/tdl.conf" }

    func writeConfig(_ text: String) throws {
        try FileManager.default.createDirectory(atPath: configHome.path + "/tdl", withIntermediateDirectories: true)
        try text.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    func tdl(_ arguments: [String]) throws -> Processes.Result {
        try Processes.tdl(arguments, home: home.path, environment: ["XDG_CONFIG_HOME": configHome.path, "TDL_RETRY_BASE": "0.05"])
    }

    /// A file served only to an agent with "Mozilla" in it.
    func agentOnly(_ name: String, seed: Int) -> String {
        "http://127.0.0.1:\(server.port)/file/\(name)?size=200000&seed=\(seed)&need_agent=Mozilla"
    }

    func testTheFilesFolderAndAgentAreUsedByGet() throws {
        let elsewhere = TemporaryDirectory(), otherHome = TemporaryDirectory()
        let refused = try Processes.tdl(["get", "-q", "-d", elsewhere.path, agentOnly("refused.bin", seed: 1)], home: otherHome.path,
                                        environment: ["XDG_CONFIG_HOME": configHome.path, "TDL_RETRY_BASE": "0.05"])
        XCTAssertEqual(refused.status, 1, "without the agent the server refuses: \(refused.stderr)")
        try writeConfig("# mine\ndir = \(downloads.path)\nuser-agent=Mozilla/5.0 (X11)\n")
        let result = try tdl(["get", "-q", agentOnly("agent.bin", seed: 2)])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("agent.bin")), try server.sha256(name: "agent.bin", size: 200_000, seed: 2))
    }

    /// A category's folder from the file takes a matching download of no folder of its own;
    /// another file goes to the file's dir=.
    func testACategorysFolderTakesItsFiles() throws {
        let videos = TemporaryDirectory()
        try writeConfig("dir=\(downloads.path)\ncategory.video.dir=\(videos.path)\n")
        let clip = "http://127.0.0.1:\(server.port)/file/clip.mp4?size=100000&seed=4"
        let other = "http://127.0.0.1:\(server.port)/file/notes.bin?size=100000&seed=5"
        let result = try tdl(["get", "-q", clip, other])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: videos.file("clip.mp4")), "the video goes to its category's folder")
        XCTAssertTrue(FileManager.default.fileExists(atPath: downloads.file("notes.bin")), "the rest goes to dir=")
        XCTAssertFalse(FileManager.default.fileExists(atPath: downloads.file("clip.mp4")))
    }

    func testTheCommandLineOverridesTheFile() throws {
        let other = TemporaryDirectory()
        try writeConfig("dir=\(other.path)\nuser-agent=curl-like\n")
        let result = try tdl(["get", "-q", "-d", downloads.path, "--user-agent", "Mozilla/5.0", agentOnly("given.bin", seed: 3)])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: downloads.file("given.bin")), "-d wins over dir=")
        XCTAssertFalse(FileManager.default.fileExists(atPath: other.file("given.bin")))
    }

    func testConfigNamesFileAndLineOrDefault() throws {
        try writeConfig("\n# agent\nuser-agent=Mozilla/5.0\nmax-connections-per-host=4\n")
        let result = try tdl(["config"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("user-agent=Mozilla/5.0  # \(configPath):3"), result.stdout)
        XCTAssertTrue(result.stdout.contains("max-connections-per-host=4  # \(configPath):4"), result.stdout)
        XCTAssertTrue(result.stdout.contains("insecure=false  # default"), result.stdout)
    }

    func testABadLineExitsTwoNamingFileAndLine() throws {
        for (text, words) in [("dir=/tmp\nuser-agent=a\u{7}b\n", ":2: user-agent"),
                              ("# ok\n\nmax-connections-per-host=lots\n", ":3: max-connections-per-host"),
                              ("session=other\n", ":1: \"session\" is not a config key"),
                              ("header=no colon\n", ":1: header")] {
            try writeConfig(text)
            for command in [["get", "-q", agentOnly("never.bin", seed: 4)], ["config"]] {
                let result = try tdl(command)
                XCTAssertEqual(result.status, 2, "\(command) with \(text.debugDescription): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains(configPath + words), "\(text.debugDescription): \(result.stderr)")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: downloads.file("never.bin")))
    }
}
