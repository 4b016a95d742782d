import TDLCore

/// What each action does in the list and the trash: it acts on the manager or the screen's
/// state, says what it did on the message line, and returns what must follow.
struct ListActions {
    let manager: DownloadManager
    let state: ScreenState

    func perform(_ action: Action) -> Reaction {
        let inTrash = state.view == .trash
        switch action {
        case .moveUp: state.rows.move(by: -1)
        case .moveDown: state.rows.move(by: 1)
        case .pageUp: state.rows.move(by: -state.pageHeight)
        case .pageDown: state.rows.move(by: state.pageHeight)
        case .first: state.rows.select(0)
        case .last: state.rows.select(state.rows.entries.count - 1)
        case .add: state.prompt = .text(TextEntry(purpose: .addURLs))
        case .togglePause: return togglePause()
        case .pauseAll:
            manager.pauseAllTasks()
            state.say("paused all")
            return [.redraw, .save]
        case .resumeAll:
            manager.resumeAllTasks()
            state.say("resumed all")
            return [.redraw, .save]
        case .stop:
            state.say("stopped " + Phrase.downloads(manager.stopTasks(state.rows.targets).count))
            return [.redraw, .save]
        case .restart: return restart()
        case .delete: return delete(inTrash: inTrash)
        case .toggleTrash:
            state.view = inTrash ? .list : .trash
            state.rows.marked.removeAll()
            state.rows.select(0)
            return [.redraw, .rebuildRows]
        case .restore:
            guard inTrash else {
                state.say("u restores from the trash: press t to open it")
                return .redraw
            }
            let n = manager.restoreToDeleteTasks(state.rows.targets).count
            state.rows.marked.removeAll()
            state.say("restored " + Phrase.downloads(n))
            return .listEdited
        case .cycleSort:
            // Manual order (nil), then each sort key; a sort keeps the order of the one before (ascending after manual).
            let cycle: [SortKey?] = [nil] + SortKey.allCases
            let next = cycle[(cycle.firstIndex(of: manager.arrangement.sortKey)! + 1) % cycle.count]
            manager.arrange(next.map { .sorted($0, manager.arrangement.sortOrder ?? .ascending) } ?? .manual)
            state.say(next.map { "sorted by \($0.title)" } ?? "manual order")
            return .listEdited
        case .flipOrder:
            // Manual order is the user's own: there is nothing to turn around.
            guard case .sorted(let key, let order) = manager.arrangement else {
                state.say("manual order has no direction: J and K move a task")
                return .redraw
            }
            manager.sortListBy(type: key, order: order.flipped)
            return .listEdited
        case .toggleSectioning:
            guard let key = manager.arrangement.sortKey, key != .fileType else {
                state.say("this sort has fixed sections")
                return .redraw
            }
            let on = !manager.settings.sectioning.isOn(for: key)
            manager.setSectioning(on, for: key)
            state.say("sections \(on ? "on" : "off")")
            return .listEdited
        case .moveTaskDown, .moveTaskUp: return moveTask(down: action == .moveTaskDown)
        case .newSection:
            guard manager.arrangement.isManual else {
                state.say("sections can be added in manual sort (press s)")
                return .redraw
            }
            state.prompt = .text(TextEntry(purpose: .newSection))
        case .rename: rename()
        case .moreDownloads:
            // No limit (0) stays no limit: one more than unlimited is still unlimited.
            if manager.maxDownloadCount > 0 { manager.maxDownloadCount += 1 }
            state.say(manager.maxDownloadCount > 0 ? "at most \(manager.maxDownloadCount) at once" : "no limit on downloads at once")
            return [.redraw, .save]
        case .fewerDownloads:
            // From no limit, one fewer than what runs now.
            let current = manager.maxDownloadCount > 0 ? manager.maxDownloadCount : (manager.counts[.downloading] ?? 0)
            manager.maxDownloadCount = max(1, current - 1)
            state.say("at most \(manager.maxDownloadCount) at once")
            return [.redraw, .save]
        case .rateLimit: state.prompt = .text(TextEntry(purpose: .rateLimit))
        case .filter: state.prompt = .text(TextEntry(purpose: .filter, text: state.filterText))
        case .mark:
            guard let url = state.rows.currentURL else { return [] }
            state.rows.toggleMark(url)
            state.rows.move(by: 1)
        case .details:
            guard let url = state.rows.currentURL else { return [] }
            state.view = .details(url)
            state.pager = TextPager()
        case .help:
            state.view = .help
            state.pager = TextPager()
        case .redraw: return [.redraw, .repaint]
        case .quit: return .quit
        }
        return .redraw
    }

    private func togglePause() -> Reaction {
        let urls = state.rows.targets
        let active = urls.filter { manager.state(of: $0)?.isActive == true }
        if !active.isEmpty {
            state.say("paused " + Phrase.downloads(manager.pauseTasks(active).count))
        } else {
            let n = manager.resumeTasks(urls, queueIfFull: true).count
            state.say(n == 0 ? "nothing to resume" : "resumed " + Phrase.downloads(n))
        }
        return [.redraw, .save]
    }

    private func restart() -> Reaction {
        let urls = state.rows.targets
        if urls.contains(where: { manager.state(of: $0) == .finished }) {
            state.prompt = .question(.restartFinished(urls))
            return .redraw
        }
        let n = manager.restartTasks(urls).count
        // A running download is not restarted under its own feet (SDE's rule).
        state.say(n > 0 ? "restarted " + Phrase.downloads(n) : "stop it first (x): a running download does not restart")
        return .listEdited
    }

    private func delete(inTrash: Bool) -> Reaction {
        let urls = state.rows.targets
        guard !urls.isEmpty else { return [] }
        if inTrash {
            state.prompt = .question(.deleteFromTrash(urls))
            return .redraw
        }
        if !manager.isTrashOpened && urls.contains(where: { manager.state(of: $0) == .finished }) {
            state.prompt = .question(.deleteWithFiles(urls))
            return .redraw
        }
        let n = manager.deleteTasks(urls).count
        state.rows.marked.subtract(urls)
        state.say(manager.isTrashOpened ? "moved \(Phrase.downloads(n)) to the trash (t shows it, u restores)" : "deleted " + Phrase.downloads(n))
        return .listEdited
    }

    private func rename() {
        switch state.rows.current {
        case .section(let index, let title, _)?:
            guard manager.arrangement.isManual else { return state.say("section titles can be changed in manual sort") }
            state.prompt = .text(TextEntry(purpose: .sectionTitle(index), text: title))
        case .task(let url)?:
            state.prompt = .text(TextEntry(purpose: .rename(url), text: manager.displayName(of: url) ?? ""))
        case nil:
            break
        }
    }

    private func moveTask(down: Bool) -> Reaction {
        guard manager.arrangement.isManual else {
            state.say("tasks can be moved in manual sort (press s)")
            return .redraw
        }
        guard let url = state.rows.currentURL, let from = manager.indexPath(of: url) else { return [] }
        var to = from
        to.row += down ? 1 : -1
        if to.row < 0 || to.row >= manager.taskCountInSection(from.section) {
            // Past the edge of a section: into the next one.
            let next = from.section + (down ? 1 : -1)
            guard next >= 0, next < manager.sectionCount else { return [] }
            to = ListIndex(section: next, row: down ? 0 : manager.taskCountInSection(next))
        }
        manager.moveTask(at: from, to: to)
        return .listEdited
    }
}
