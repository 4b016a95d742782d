import Foundation

/// Carrying out the lifecycle table (`Lifecycle`): every state change of a task goes through
/// `move`, so the rules live in the table and their effects here, in one order.
extension DownloadManager {
    /// The move `event` makes for a task where it stands, or nil.
    func rule(for url: String, _ event: LifecycleEvent) -> Lifecycle.Rule? {
        // One lookup of the task: this runs for every task of every move.
        guard let task = tasks[url] else { return nil }
        let phase = Phase(task.state, finishing: scheduler.finishing.contains(url))
        return Lifecycle.rule(for: event, from: phase, inTrash: task.deletedAt != nil)
    }

    /// Moves each task that has a move for `event` from where it stands, with the move's
    /// effects; the others stay as they are. Files the moves discard are deleted first: a task
    /// whose file cannot be deleted does not move (see `deleteFilesFirst`). Returns the tasks
    /// that moved.
    @discardableResult
    func move(_ urls: [String], _ event: LifecycleEvent, reason: FailReason? = nil) -> [String] {
        let ruled = urls.compactMap { url in rule(for: url, event).map { (url: url, rule: $0) } }
        // Finished files stay on every purge path: deleting one is its own action (`D`).
        let undeletable = deleteFilesFirst(of: ruled, keepFinished: event == .purge)
        let moves = undeletable.isEmpty ? ruled : ruled.filter { !undeletable.contains($0.url) }
        for (url, rule) in moves { apply(rule, to: url, reason: reason) }
        // The session follows the files at once: a kill after this call finds no task that
        // needs a file already gone.
        if moves.contains(where: { $0.rule.effects.contains(.discardFiles) }) { flush() }
        return moves.map(\.url)
    }

    private func apply(_ rule: Lifecycle.Rule, to url: String, reason: FailReason?) {
        if rule.effects.contains(.stopTransfer) { engine?.stop(url: url) }
        if rule.effects.contains(.discardFiles) {
            resetProgress(url)
            // Its files go (or were another task's): the next download records a name again.
            tasks[url]?.finalURL = nil
        }
        switch rule.target {
        case .same:
            markDirty(url)
        case .removed:
            eraseRecord(url)
        case .to(.finishing):
            scheduler.setFinishing(url, true)
        case .to(let phase):
            if phase == .downloading && scheduler.finishing.contains(url) {
                scheduler.setFinishing(url, false)  // downloads again after a failed check
            } else {
                // A start or a finish changes no name: a commit of names need not carry it
                // (a launch after a crash finds a file renamed into place, `load`).
                setState(url, phase.state, reason: reason, mayWait: rule.event == .start || rule.event == .transferFinished)
            }
        }
        if rule.effects.contains(.startTransfer) { startTransfer(url) }
    }

    private func startTransfer(_ url: String) {
        guard let task = tasks[url] else { return }
        live.started(url, at: clock().timeIntervalSinceReferenceDate, received: task.received)
        saves.downloadStarted(url)
        engine?.start(TransferJob(task: task, connections: connectionsPerDownload, maxRetries: settings.maxRetries))
    }

    /// The state a launch gives a task read from the session file, by the same table.
    static func launchState(of state: TaskState, _ event: LifecycleEvent) -> TaskState {
        guard let rule = Lifecycle.rule(for: event, from: Phase(state, finishing: false), inTrash: true),
              case .to(let phase) = rule.target else { return state }
        return phase.state
    }
}
