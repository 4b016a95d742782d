import Foundation
import TDLTestSupport
import XCTest

/// What the commands answer and how they exit, as `tdl --help` promises, without a server.
final class CommandLineTests: XCTestCase {
    let home = TemporaryDirectory()
    /// Nothing listens there: nothing added here downloads while a command runs.
    func url(_ name: String) -> String { "http://127.0.0.1:9/\(name)" }

    func tdl(_ arguments: [String]) throws -> Processes.Result { try Processes.tdl(arguments, home: home.path) }

    func testAnOptionValueIsBadInputAndAnUnknownOptionOrCommandAUsageError() throws {
        XCTAssertEqual(try tdl(["get", "-x", "0", url("a")]).status, 2, "out of range")
        XCTAssertEqual(try tdl(["get", "-x", "abc", url("a")]).status, 2, "not a number")
        XCTAssertEqual(try tdl(["get", "--limit-rate", "fast", url("a")]).status, 2)
        XCTAssertEqual(try tdl(["get", "--frob", url("a")]).status, 64)
        XCTAssertEqual(try tdl(["pause"]).status, 64, "a missing argument")
        let unknown = try tdl(["frob"])
        XCTAssertEqual(unknown.status, 64)
        XCTAssertTrue(unknown.stderr.contains("unknown command \"frob\"; the commands are ui, get, serve, add, list"), unknown.stderr)
        let bareURL = try tdl([url("a")])
        XCTAssertEqual(bareURL.status, 64)
        XCTAssertTrue(bareURL.stderr.contains("is not a command: tdl get URL downloads it"), bareURL.stderr)
    }

    /// A command given nothing to act on is a missing argument (64, as each help says), and
    /// help for a command that does not exist is not help.
    func testNoURLIsAUsageErrorAndHelpOfNothingFails() throws {
        for command in ["get", "add"] {
            let run = try tdl([command])
            XCTAssertEqual(run.status, 64, command + ": " + run.stderr)
            XCTAssertTrue(run.stderr.contains("give at least one URL"), run.stderr)
            let help = try tdl([command, "--help"])
            XCTAssertTrue(help.stdout.replacingOccurrences(of: "\n", with: " ").contains("64 unknown option or missing argument"), help.stdout)
        }
        let emptyInput = home.file("empty.txt")
        try "# nothing\n".write(toFile: emptyInput, atomically: true, encoding: .utf8)
        XCTAssertEqual(try tdl(["add", "-i", emptyInput]).status, 2, "a file that names nothing is bad input")
        let help = try tdl(["help", "nosuch"])
        XCTAssertEqual(help.status, 64, help.stdout)
        XCTAssertTrue(help.stderr.contains("no help for \"nosuch\""), help.stderr)
        XCTAssertEqual(try tdl(["help", "get"]).status, 0)
    }

    /// `HTTP://HOST/x`, a default port or a `#fragment` name the download `http://host/x` is.
    func testSpellingsOfOneURLAreOneDownload() throws {
        XCTAssertEqual(try tdl(["add", "HTTP://127.0.0.1:9/One.bin"]).status, 0)
        let again = try tdl(["add", "http://127.0.0.1:9/One.bin#section"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertFalse(again.stdout.contains("added"), again.stdout)
        let pause = try tdl(["pause", "Http://127.0.0.1:9/One.bin"])
        XCTAssertEqual(pause.status, 0, pause.stderr)
        let list = try tdl(["list"])
        XCTAssertEqual(list.stdout.split(separator: "\n").count, 1, list.stdout)
        XCTAssertTrue(list.stdout.contains("\thttp://127.0.0.1:9/One.bin\n"), list.stdout)
    }

    func testEachCommandsHelpListsOnlyWhatAppliesToIt() throws {
        let pause = try tdl(["pause", "--help"]).stdout
        XCTAssertFalse(pause.contains("--dir"), pause)
        XCTAssertFalse(pause.contains("a download failed"), pause)
        XCTAssertTrue(pause.contains("1 one was left as it was"), pause)
        let list = try tdl(["list", "--help"]).stdout
        XCTAssertFalse(list.contains("--dir"), list)
        XCTAssertTrue(list.contains("Exit status: 0 printed"), list)
        XCTAssertTrue(try tdl(["get", "--help"]).stdout.contains("-d, --dir"))
        XCTAssertTrue(try tdl(["add", "--help"]).stdout.contains("the rest is added"))
    }

    func testPauseAndResumeAllAndAnActionThatChangesNothingFails() throws {
        XCTAssertEqual(try tdl(["add", url("a"), url("b")]).status, 0)
        let pause = try tdl(["pause", "--all"])
        XCTAssertEqual(pause.status, 0, pause.stderr)
        XCTAssertEqual(Set(pause.stdout.split(separator: "\n")), ["paused \(url("a"))", "paused \(url("b"))"])
        let again = try tdl(["pause", "--all"])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("nothing to pause"), again.stderr)
        let one = try tdl(["pause", url("a")])
        XCTAssertEqual(one.status, 1, "already paused")
        XCTAssertEqual(one.stdout, "unchanged (paused) \(url("a"))\n")
        let resume = try tdl(["resume", "--all"])
        XCTAssertEqual(resume.status, 0, resume.stderr)
        XCTAssertEqual(resume.stdout.split(separator: "\n").count, 2)
        XCTAssertEqual(try tdl(["pause", "--all", url("a")]).status, 2, "URLs or --all, not both")
    }

    func testPurgeForgetsFromTheListAndFromTheTrash() throws {
        XCTAssertEqual(try tdl(["add", url("a"), url("b")]).status, 0)
        XCTAssertEqual(try tdl(["rm", url("b")]).stdout, "moved to the trash \(url("b"))\n")
        let purge = try tdl(["rm", "--purge", url("a"), url("b")])
        XCTAssertEqual(purge.status, 0, purge.stderr)
        XCTAssertEqual(purge.stdout, "deleted for good \(url("a"))\ndeleted for good \(url("b"))\n")
        XCTAssertEqual(try tdl(["list"]).stdout, "")
        XCTAssertEqual(try tdl(["list", "--trash"]).stdout, "")
        XCTAssertEqual(try tdl(["rm", "--purge", url("a")]).status, 2, "no longer in the session")
    }

    func testAnInputFileLineThatCannotBeUsedFailsAddAfterTheRestIsAdded() throws {
        let input = home.file("urls.txt")
        try "  dir=/nowhere\n\(url("a"))\n".write(toFile: input, atomically: true, encoding: .utf8)
        let add = try tdl(["add", "-i", input])
        XCTAssertEqual(add.status, 2)
        XCTAssertTrue(add.stderr.contains("line 1: an option line with no URL above it"), add.stderr)
        XCTAssertEqual(add.stdout, "added \(url("a"))\n")
    }
}

/// `make install` and `make uninstall`, into a folder of the test's own.
final class InstallTests: XCTestCase {
    func testInstallPutsTheBinaryManPageAndCompletionsInPlaceAndUninstallTakesThemAway() throws {
        let prefix = TemporaryDirectory()
        let root = Processes.packageRoot
        func make(_ target: String) throws -> Processes.Result {
            try Processes.run("/usr/bin/make", ["-s", "-C", root, target, "PREFIX=\(prefix.path)", "TDL_BIN=\(Processes.tdlBinary)"])
        }
        let install = try make("install-files")
        XCTAssertEqual(install.status, 0, install.stderr)
        let files = ["bin/tdl", "share/man/man1/tdl.1", "share/bash-completion/completions/tdl",
                     "share/zsh/site-functions/_tdl", "share/fish/vendor_completions.d/tdl.fish"]
        for file in files {
            let size = (try? FileManager.default.attributesOfItem(atPath: prefix.file(file))[.size] as? Int) ?? 0
            XCTAssertGreaterThan(size, 100, "\(file) is missing or empty")
        }
        XCTAssertTrue(try String(contentsOfFile: prefix.file("share/bash-completion/completions/tdl"), encoding: .utf8).contains("get"))
        let version = try Processes.run(prefix.file("bin/tdl"), ["--version"])
        XCTAssertEqual(version.status, 0)
        let uninstall = try make("uninstall")
        XCTAssertEqual(uninstall.status, 0, uninstall.stderr)
        for file in files { XCTAssertFalse(FileManager.default.fileExists(atPath: prefix.file(file)), "\(file) is left") }
    }
}
