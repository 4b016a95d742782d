/// Back-pressure for the writes handed to the worker. The loop never writes body bytes itself
/// while the worker keeps up: a `pwrite` can wait 30–200 ms while the kernel throttles writers
/// of dirty pages or writes back a finished file, and a key pressed meanwhile waited with it.
/// When the worker falls behind (`writeBacklogLimit` bytes queued) transfers pause, keeping
/// their bytes in libcurl, and go on once it has written half of them: it wakes the loop then.
extension CurlEngine {
    /// Whether transfers should stop taking bytes until the worker catches up.
    var writesAreBacklogged: Bool {
        queuedWriteBytes.value >= writeBacklogLimit
    }

    /// At or under this many queued bytes, connections paused for writes go on.
    var writeBacklogLowWater: Int { writeBacklogLimit / 2 }

    /// The most bytes queued before the loop writes itself: a transfer that cannot pause
    /// (file://) or many connections' last reads may go past `writeBacklogLimit`, but memory
    /// stays bounded.
    var writeQueueCap: Int { writeBacklogLimit * 2 }

    /// In a write callback: `connection` pauses until the worker has caught up.
    func pauseForWrites(_ connection: Connection) {
        connection.isPausedForWrites = true
        pausedForWrites.append(connection)
    }

    /// Before a turn's transfers: lets the connections paused for writes go on (those still
    /// running and not paused for another reason) once the worker is down to the low water.
    func resumeWritePaused() {
        guard !pausedForWrites.isEmpty, queuedWriteBytes.value <= writeBacklogLowWater else { return }
        let paused = pausedForWrites
        pausedForWrites = []
        resume(paused, clearing: \.isPausedForWrites)
    }
}
