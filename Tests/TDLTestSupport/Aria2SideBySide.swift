import Foundation
import XCTest

/// Debian's `aria2c --enable-rpc` and `tdl serve` started side by side on 127.0.0.1, each
/// downloading into a folder of its own, both with the secret `sesame`: the differential
/// tests send both the same calls. Stopped when `stop()` is called or it is released.
public final class Aria2SideBySide {
    public static let secret = "sesame"
    public let home = TemporaryDirectory(), tdlFolder = TemporaryDirectory(), aria2Folder = TemporaryDirectory()
    public let tdlPort = RefusingPort.make(), aria2Port = RefusingPort.make()
    private var processes: [Process] = []

    public var tdlEndpoint: String { "http://127.0.0.1:\(tdlPort)/jsonrpc" }
    public var aria2Endpoint: String { "http://127.0.0.1:\(aria2Port)/jsonrpc" }

    /// Skips the test when aria2c is not installed; `aria2Arguments` and `tdlEnvironment` are
    /// each side's own additions. Returns once both listen.
    public init(aria2Arguments: [String] = [], tdlEnvironment: [String: String] = [:]) throws {
        guard let aria2c = Processes.which("aria2c") else {
            throw XCTSkip("aria2c is not installed (scripts/install-deps.sh --test installs Debian's aria2): the differential test needs it")
        }
        let (aria2, _) = try Processes.start(aria2c, ["--enable-rpc", "--rpc-listen-port", String(aria2Port), "--rpc-secret", Self.secret,
                                                      "-d", aria2Folder.path, "--no-conf", "--quiet"] + aria2Arguments)
        processes.append(aria2)
        let (tdl, _) = try Processes.start(Processes.tdlBinary, ["serve", "-d", tdlFolder.path, "--rpc-listen-port", String(tdlPort),
                                                                 "--rpc-secret", Self.secret],
                                           environment: ["TDL_HOME": home.path].merging(tdlEnvironment) { $1 })
        processes.append(tdl)
        guard Processes.waitUntil(timeout: 10, { LoopbackNginx.canConnect(aria2Port) && LoopbackNginx.canConnect(tdlPort) }) else {
            stop()
            throw ServerError.failed("aria2c or tdl serve did not listen within 10 s")
        }
    }

    public func stop() {
        for process in processes where process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}
