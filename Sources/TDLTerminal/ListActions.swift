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
            let urls = state.targets(manager)
            state.say(state.done("stopped", manager.stopTasks(urls).count, of: urls))
            return [.redraw, .save]
        case .restart: return restart()
        case .delete: return delete(inTrash: inTrash)
        case .deleteFile: return deleteFinishedFiles()
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
            let urls = state.targets(manager)
            let n = manager.restoreToDeleteTasks(urls).count
            state.say(state.done("restored", n, of: urls))
            state.rows.marked.removeAll()
            return .listEdited
        case .emptyTrash:
            guard !manager.toDeleteList.isEmpty else {
                state.say("the trash is empty")
                return .redraw
            }
            state.prompt = .question(.deleteFromTrash(manager.toDeleteList))
            guard inTrash else {
                // What is about to go is on the screen while the question is asked.
                state.view = .trash
                state.rows.marked.removeAll()
                state.rows.select(0)
                return [.redraw, .rebuildRows]
            }
            return .redraw
        case .cycleSort:
            // Manual order (nil), then each sort key; a sort keeps the order of the one before (ascending after manual).
            // The queue sort only once the session has queues (or is sorted so already).
            let byQueue = !manager.queues.isEmpty || manager.arrangement.sortKey == .queue
            let cycle: [SortKey?] = [nil] + SortKey.allCases.filter { $0 != .queue || byQueue }
            let next = cycle[(cycle.firstIndex(of: manager.arrangement.sortKey)! + 1) % cycle.count]
            // Titles a person gave are not dropped without a yes.
            if let next, manager.arrangement.isManual,
               manager.sectionCount > 1 || manager.titleForHeaderInSection(0).map({ $0 != "Downloads" }) == true {
                state.prompt = .question(.leaveManualOrder(for: next, sections: manager.sectionCount))
                return .redraw
            }
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
            guard let key = manager.arrangement.sortKey, key != .fileType, key != .queue else {
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
            if manager.maxDownloadCount > 0 { manager.maxDownloadCount = min(manager.maxDownloadCount + 1, SessionSettings.largestDownloadCount) }
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
        case .messages:
            // The newest at the bottom, in sight.
            state.view = .messages
            state.pager = TextPager()
            state.pager.perform(.last, lineCount: state.textLines(manager).count, height: state.pageHeight)
        case .moveToQueue:
            let urls = state.targets(manager)
            guard !urls.isEmpty, !inTrash else {
                state.say(inTrash ? "downloads in the trash stay where they are: restore them first (u)" : "no download selected")
                return .redraw
            }
            state.prompt = .text(TextEntry(purpose: .moveToQueue(urls, names: PromptKeys.queueNames(manager))))
        case .queues:
            state.view = .queues
            state.pager = TextPager()
        case .redraw: return [.redraw, .repaint]
        case .quit: return .quit
        }
        return .redraw
    }

    private func togglePause() -> Reaction {
        let urls = state.targets(manager)
        let active = urls.filter { manager.state(of: $0)?.isActive == true }
        if !active.isEmpty {
            state.say(state.done("paused", manager.pauseTasks(active).count, of: active))
        } else {
            let n = manager.resumeTasks(urls, queueIfFull: true).count
            state.say(n == 0 ? "nothing to resume" : state.done("resumed", n, of: urls))
        }
        return [.redraw, .save]
    }

    private func restart() -> Reaction {
        let urls = state.targets(manager)
        if urls.contains(where: { manager.state(of: $0) == .finished }) {
            state.prompt = .question(.restartFinished(urls))
            return .redraw
        }
        // Bytes already here go too: asked first, as for a finished file.
        let partial = urls.compactMap { manager.task($0) }.filter { !$0.state.isActive && $0.received > 0 }
        if !partial.isEmpty {
            state.prompt = .question(.restartPartial(urls, bytes: partial.reduce(0) { $0 + $1.received }))
            return .redraw
        }
        let n = manager.restartTasks(urls).count
        // A running download is not restarted under its own feet (SDE's rule).
        state.say(n > 0 ? state.done("restarted", n, of: urls) : "stop it first (x): a running download does not restart")
        state.sayDeleteFailures(manager)
        return .listEdited
    }

    private func delete(inTrash: Bool) -> Reaction {
        if state.rows.marked.isEmpty, case .section(let index, let title, _)? = state.rows.current { return deleteSection(index, title) }
        let urls = state.targets(manager)
        guard !urls.isEmpty else { return [] }
        if inTrash {
            state.prompt = .question(.deleteFromTrash(urls))
            return .redraw
        }
        let n = manager.deleteTasks(urls).count
        state.say(state.done("moved", n, of: urls) + " to the trash (t shows it, u restores)")
        state.rows.marked.subtract(urls)
        return .listEdited
    }

    /// D: a finished file off the disk, asked first with its path; its download stays, stopped.
    private func deleteFinishedFiles() -> Reaction {
        let finished = state.targets(manager).filter { manager.state(of: $0) == .finished }
        guard let first = finished.first, let path = manager.task(first)?.filePath else {
            state.say("D deletes a finished download's file: none is selected")
            return .redraw
        }
        state.prompt = .question(.deleteFinishedFiles(finished, firstPath: path))
        return .redraw
    }

    /// d on a section header: an empty section arranged by hand goes; one with tasks stays.
    private func deleteSection(_ index: Int, _ title: String) -> Reaction {
        let name = "\"\(ScreenText.clean(title))\""
        guard manager.arrangement.isManual else {
            state.say("a sort makes its own sections: they go when their tasks do")
            return .redraw
        }
        let count = manager.taskCountInSection(index)
        guard count == 0 else {
            state.say("section \(name) holds \(Phrase.downloads(count)): move them out (J/K) or delete them first")
            return .redraw
        }
        guard manager.removeEmptySection(index) else {
            state.say("the list keeps one section")
            return .redraw
        }
        state.say("deleted section " + name)
        return .listEdited
    }

    private func rename() {
        switch state.rows.current {
        case .section(let index, let title, _)?:
            guard manager.arrangement.isManual else { return state.say("section titles can be changed in manual sort") }
            state.prompt = .text(TextEntry(purpose: .sectionTitle(index), text: title))
        case .task(let url)?:
            // The whole file name, extension too, even where the list hides extensions.
            state.prompt = .text(TextEntry(purpose: .rename(url), text: manager.task(url)?.fileName ?? ""))
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
