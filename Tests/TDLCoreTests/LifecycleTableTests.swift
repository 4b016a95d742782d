import Foundation
import XCTest
@testable import TDLCore

/// The lifecycle table (`Lifecycle`) as data, and the manager following it.
final class LifecycleTableTests: XCTestCase {
    func testEveryEventMovesSomethingAndNoPairHasTwoRules() {
        for event in LifecycleEvent.allCases {
            XCTAssertTrue(Lifecycle.rules.contains { $0.event == event }, "\(event) has no rule")
        }
        // Building the index checks that no (event, phase) pair has two rules.
        XCTAssertNotNil(Lifecycle.rule(for: .pause, from: .downloading))
    }

    func testNothingInTheTrashStartsAndNothingFinishingIsCutOff() {
        for phase in Phase.allCases {
            for event: LifecycleEvent in [.start, .restart, .askedAgainFileWrong] {
                XCTAssertNil(Lifecycle.rule(for: event, from: phase, inTrash: true), "\(event) from \(phase) in the trash")
            }
            if let rule = Lifecycle.rule(for: .start, from: phase) {
                XCTAssertEqual(rule.effects, [.startTransfer])
            }
        }
        // Its file is being made durable and renamed: only the engine's outcome moves it.
        let finishingMoves = LifecycleEvent.allCases.filter { Lifecycle.rule(for: $0, from: .finishing) != nil }
        XCTAssertEqual(Set(finishingMoves), [.checkFailedRetrying, .transferFinished, .transferFailed])
    }

    func testEveryMoveThatDiscardsFilesFromARunningDownloadStopsItFirst() {
        for rule in Lifecycle.rules where rule.from.contains(.downloading) && rule.target != .to(.downloading) {
            let external: Set<LifecycleEvent> = [.transferFinished, .transferFailed, .allBytesIn, .relaunchAfterCleanQuit,
                                                 .relaunchAfterCrash, .relaunchAfterCrashWaiting, .foundFinishedOnDisk,
                                                 .readWithoutDownloading]
            guard !external.contains(rule.event) else { continue }  // the transfer is over, or belongs to no process
            XCTAssertTrue(rule.effects.contains(.stopTransfer), "\(rule.event) leaves a transfer running")
        }
    }

    func testTheDesignDocumentShowsTheTableAsTheCodeDeclaresIt() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../docs/design.md").standardizedFileURL
        let text = try String(contentsOf: readme, encoding: .utf8)
        XCTAssertTrue(text.contains(Lifecycle.markdownTable), "docs/design.md's lifecycle table differs; paste Lifecycle.markdownTable:\n\(Lifecycle.markdownTable)")
    }

    /// Deleting the files of a download that is being renamed into place would pull the file
    /// from under the rename: the table has no such move, and the manager makes none.
    func testDeletingTheFilesOfAFinishingDownloadLeavesItToFinish() {
        let f = Fixture()
        let url = f.add(["a"])[0]
        f.engine.onEvent?(.finishing(url: url, started: true))
        XCTAssertEqual(f.manager.deleteFilesOfTasks([url]), [])
        XCTAssertEqual(f.engine.stopped, [])
        f.finish(url)
        XCTAssertEqual(f.manager.state(of: url), .finished)
        XCTAssertEqual(f.manager.deleteFilesOfTasks([url]), [url], "once finished, its file may go")
    }

    func testALateOutcomeForATaskNoLongerDownloadingChangesNothing() {
        let f = Fixture()
        let url = f.add(["a"])[0]
        f.manager.pauseTasks([url])
        f.engine.onEvent?(.failed(url: url, reason: .timeout, segments: [Segment(start: 0, end: 10, done: 5)]))
        XCTAssertEqual(f.manager.state(of: url), .paused)
        XCTAssertEqual(f.manager.task(url)?.received, 0, "its progress is not rewritten by a transfer that was stopped")
    }
}
