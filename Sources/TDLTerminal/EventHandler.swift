import TDLCore

/// What the manager's news means for the screen: new rows, a message, or a new frame.
struct EventHandler {
    let manager: DownloadManager
    let state: ScreenState

    func handle(_ event: ManagerEvent) -> Reaction {
        // Any news of a task may be a new name (a rename, the server's name, the finished file's).
        switch event {
        case .taskChanged(let url), .taskSucceeded(let url, _), .taskFailed(let url, _), .deleted(let url, _, _, _):
            state.taskChanged(url)
        case .listChanged, .saveFailed, .deleteFailed, .allDownloadsOver:
            break
        }
        switch event {
        case .listChanged, .deleted:
            return [.redraw, .rebuildRows]
        case .saveFailed(let problem):  // no row of its own: the message line says it
            state.say(problem, error: true)
        case .deleteFailed(let failure):
            state.say(ScreenText.clean(failure.message), error: true)
        case .taskSucceeded:
            // A finished download can move in a sorted list (its size, its type); manual order keeps it.
            if !manager.arrangement.isManual { return [.redraw, .rebuildRows] }
        case .taskFailed(let url, let reason):
            state.say("\(ScreenText.clean(manager.displayName(of: url) ?? URLCheck.withoutPassword(url))): \(reason.message)", error: true)
        case .taskChanged, .allDownloadsOver:
            break
        }
        return .redraw
    }
}
