import Foundation
import TDLTestSupport
import XCTest

/// The scale benchmark's checks at 20,000 tasks: what `add -i` keeps, what the one-URL
/// commands change, and that the rows the screen shows after a sort and a filter are the ones
/// `tdl list` prints, in its order. Timings are printed, not judged (`--check`).
final class ScaleCheckTests: XCTestCase {
    func testTwentyThousandTasksGiveTheSameRowsEverywhere() throws {
        let result = try Processes.run("/usr/bin/env", ["python3", Processes.packageRoot + "/scripts/bench-scale.py",
                                                        "--tdl", Processes.tdlBinary, "--tasks", "20000", "--check"],
                                       timeout: 600)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertFalse(result.stdout.contains("WRONG"), result.stdout)
    }
}
