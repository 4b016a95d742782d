import Foundation

/// While the session cannot be written (a full home, a read-only file), downloads hold still:
/// a file may appear under a name only after the session knows it (see `TransferJob`), so
/// nothing new starts, and a running download goes back to waiting at its next checkpoint,
/// its bytes and recorded name kept for the run after space returns. A save that succeeds
/// again lets them start.
extension DownloadManager {
    /// True from a failed save until one succeeds.
    public var isUnsaved: Bool { lastError != nil }

    /// A checkpoint arrived while the session cannot be written: the download stops there.
    /// (`limitLowered` is the move that sends a running download back to the waiting queue.)
    func holdStillIfUnsaved(_ url: String) {
        guard isUnsaved, rule(for: url, .limitLowered) != nil else { return }
        move([url], .limitLowered)
    }

    /// The engine refused to create a file under a name the session did not take: the task
    /// waits to start again, not failed, since nothing went wrong with it.
    func holdStillAfterRefusal(_ url: String, segments: [Segment]) {
        guard rule(for: url, .limitLowered) != nil else { return }
        tasks[url]?.segments = segments
        tasks[url]?.received = segments.reduce(0) { $0 + $1.done }
        move([url], .limitLowered)
        finishBatch()
    }
}
