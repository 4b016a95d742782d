import Foundation
import TDLCore
#if canImport(Glibc)
import Glibc
#endif

/// Set from signal handlers; read by the loop.
nonisolated(unsafe) private var receivedSignal: Int32 = 0

/// The full-screen list: one loop that waits on the network and the keyboard at once, draws
/// only when something changed (at most ten frames a second), and restores the terminal on
/// every way out.
public final class TerminalApp {
    public struct Options {
        /// A script of keys and commands (TDL_SCRIPT) instead of a keyboard, on a headless screen.
        public var scriptPath: String?
        public var headlessSize = (rows: 24, columns: 80)
        public var colors = true
        /// Shown once on the message line at start ("restored 2 interrupted downloads").
        public var startMessage: String?
        /// Descriptors the loop also waits on, asked anew on each turn (the control socket and
        /// its connections come and go), and what to do on each turn with the ready ones
        /// among them: it runs when none is ready too, so that what waited too long can be
        /// dropped. The returned lines, one per change made, go to the message line.
        public var watchedFDs: () -> [WatchedFD] = { [] }
        public var onTurn: ((Set<Int32>) -> [String])?

        public init() {}
    }

    enum View: Equatable {
        case list
        case trash
        case details(String)
        case help
    }

    enum PromptPurpose: Equatable {
        case addURLs
        case rename(String)
        case sectionTitle(Int)
        case newSection
        case filter
        case rateLimit
        /// y/n questions: each says what a yes does.
        case confirmDelete([String])
        case confirmCleanup([String])
        case confirmRestart([String])

        /// The tasks a y/n question is about; nil for a prompt that takes text.
        var confirming: [String]? {
            switch self {
            case .confirmDelete(let urls), .confirmCleanup(let urls), .confirmRestart(let urls): return urls
            default: return nil
            }
        }
    }

    struct Prompt {
        var purpose: PromptPurpose
        var label: String
        var text: String = ""
    }

    let manager: DownloadManager
    let options: Options
    var curses: Curses!
    var view: View = .list
    var prompt: Prompt?
    var message = ""
    var messageIsError = false
    var entries: [ListEntry] = []
    var entriesStale = true
    var selected = 0
    var top = 0
    var marked: Set<String> = []
    var filterText = ""
    /// The scroll position of the help and details views.
    var pager = TextPager()
    var needsDraw = true
    var lastDraw: Double = 0
    var quitting = false
    var script: ScriptRunner?

    public init(manager: DownloadManager, options: Options) {
        self.manager = manager
        self.options = options
    }

    /// Runs until the user quits; the terminal is restored on return.
    public func run() {
        if let path = options.scriptPath {
            script = ScriptRunner(path: path)
            curses = Curses(headless: options.headlessSize, colors: options.colors)
        } else {
            curses = Curses(headless: nil, colors: options.colors)
        }
        installSignalHandlers()
        defer { curses.end() }
        if let startMessage = options.startMessage { say(startMessage) }
        let observer = manager.observe { [weak self] event in self?.handle(event) }
        var stdinOpen = script == nil
        while !quitting {
            let frameDue = needsDraw || manager.isBusy
            let timeout = frameDue ? 100 : 1000
            var fds = options.watchedFDs()
            if stdinOpen { fds.append(.reading(0)) }
            let ready = manager.runOnce(timeoutMs: script != nil ? 10 : timeout, watching: fds)
            if ready.contains(0) {
                var gotKey = false
                while let key = curses.readKey() {
                    gotKey = true
                    handleKey(key)
                }
                // Readable without a key means end of input: stop polling it, or it spins.
                if !gotKey && isStdinClosed() { stdinOpen = false }
            }
            if let notes = options.onTurn?(ready), !notes.isEmpty {
                say(notes.joined(separator: "; "))
                entriesStale = true
            }
            if receivedSignal != 0 { quitting = true }
            if let script { runScript(script) }
            if manager.isBusy { needsDraw = true }
            drawIfDue()
        }
        manager.stopObserving(observer)
        manager.flush()
    }

    func isStdinClosed() -> Bool {
        var pfd = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        return poll(&pfd, 1, 0) > 0 && (pfd.revents & Int16(POLLHUP | POLLERR | POLLNVAL)) != 0
    }

    func installSignalHandlers() {
        let handler: @convention(c) (Int32) -> Void = { signal in receivedSignal = signal }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
        signal(SIGHUP, handler)
        // A crash must not leave the terminal raw: restore it, then die as we would have.
        let fatal: @convention(c) (Int32) -> Void = { sig in
            Curses.restore()
            signal(sig, SIG_DFL)
            raise(sig)
        }
        for sig in [SIGSEGV, SIGABRT, SIGBUS, SIGILL, SIGFPE, SIGTRAP] { signal(sig, fatal) }
    }

    // MARK: - Events

    func handle(_ event: ManagerEvent) {
        switch event {
        case .listChanged, .deleted:
            entriesStale = true
        case .saveFailed(let problem):  // no row of its own: the message line says it
            say(problem, error: true)
        case .taskSucceeded(let url, _):
            if !manager.arrangement.isManual { entriesStale = true }
            _ = url
        case .taskFailed(let url, let reason):
            say("\(ScreenText.clean(manager.displayName(of: url) ?? URLCheck.withoutPassword(url))): \(reason.message)", error: true)
        case .taskChanged, .allDownloadsOver:
            break
        }
        needsDraw = true
    }

    func say(_ text: String, error: Bool = false) {
        message = ScreenText.clean(text)
        messageIsError = error
        needsDraw = true
    }

    // MARK: - Selection

    func refreshEntries() {
        guard entriesStale else { return }
        let selectedURL = currentURL
        if view == .trash {
            entries = manager.toDeleteList.map(ListEntry.task)
        } else {
            entries = ListRenderer(manager: manager).entries(filter: filterText)
        }
        entriesStale = false
        if let selectedURL, let index = entries.firstIndex(of: .task(selectedURL)) {
            selected = index
        }
        selected = min(max(0, selected), max(0, entries.count - 1))
    }

    var currentURL: String? {
        entries.indices.contains(selected) ? entries[selected].url : nil
    }

    /// The marked rows, or the selected one when nothing is marked.
    var targets: [String] {
        if !marked.isEmpty { return entries.compactMap(\.url).filter { marked.contains($0) } }
        return currentURL.map { [$0] } ?? []
    }

    /// The selected section (the header itself or the task's section).
    var currentSection: Int? {
        guard entries.indices.contains(selected) else { return nil }
        switch entries[selected] {
        case .section(let index, _, _): return index
        case .task(let url): return manager.indexPath(of: url)?.section
        }
    }

    var listHeight: Int { max(1, curses.rows - 3) }

    func move(by delta: Int) {
        refreshEntries()
        guard !entries.isEmpty else { return }
        selected = min(max(0, selected + delta), entries.count - 1)
    }

    // MARK: - Drawing

    func drawIfDue() {
        let now = Date().timeIntervalSinceReferenceDate
        guard needsDraw, now - lastDraw >= 0.1 || !manager.isBusy else { return }
        draw()
        lastDraw = now
        needsDraw = false
    }

    static let minimumSize = (rows: 6, columns: 30)

    func draw() {
        refreshEntries()
        curses.erase()
        let rows = curses.rows, columns = curses.columns
        if rows < Self.minimumSize.rows || columns < Self.minimumSize.columns {
            curses.draw("terminal too small", row: 0, column: 0, style: .bold)
            curses.draw("need \(Self.minimumSize.columns)x\(Self.minimumSize.rows)", row: 1, column: 0)
            curses.refresh()
            return
        }
        let renderer = ListRenderer(manager: manager)
        let title: String
        switch view {
        case .list: title = filterText.isEmpty ? "Downloads" : "Downloads matching \"\(ScreenText.clean(filterText))\""
        case .trash: title = "Trash"
        case .details: title = "Details"
        case .help: title = "Help"
        }
        curses.fillRow(0, style: .header)
        curses.draw(renderer.header(view: title, inTrash: view == .trash).text(width: columns), row: 0, column: 0, style: .header)
        switch view {
        case .list, .trash: drawList(renderer)
        case .details, .help: drawText(textLines(renderer))
        }
        drawFooter()
        curses.refresh()
    }

    func drawList(_ renderer: ListRenderer) {
        let height = listHeight
        if entries.isEmpty {
            let text = view == .trash ? "The trash is empty. Press t to go back." : "No downloads yet. Press a to add a URL."
            curses.draw(text, row: 2, column: 2, style: .dim)
            return
        }
        if selected < top { top = selected }
        if selected >= top + height { top = selected - height + 1 }
        top = max(0, min(top, max(0, entries.count - height)))
        let layout = RowLayout(width: curses.columns)
        for (offset, entry) in entries[top..<min(entries.count, top + height)].enumerated() {
            let row = 1 + offset
            let isSelected = top + offset == selected
            switch entry {
            case let .section(_, title, count):
                let text = "── \(ScreenText.clean(title)) (\(count)) "
                curses.draw(text + String(repeating: "─", count: max(0, curses.columns - ScreenText.width(text))),
                            row: row, column: 0, style: isSelected ? .selected : .sectionTitle)
            case .task(let url):
                let line = renderer.taskLine(url, layout: layout, marked: marked.contains(url))
                let state = manager.state(of: url) ?? .waiting
                curses.draw(line, row: row, column: 0, style: isSelected ? .selected : ListRenderer.style(state))
            }
        }
    }

    /// The lines of the help or details view, whichever is open.
    func textLines(_ renderer: ListRenderer) -> [String] {
        if case .details(let url) = view { return renderer.detailLines(url) }
        return helpLines()
    }

    func drawText(_ lines: [String]) {
        pager.clamp(lineCount: lines.count, height: listHeight)
        for (k, line) in lines.dropFirst(pager.top).prefix(listHeight).enumerated() {
            curses.draw(line, row: 1 + k, column: 1)
        }
    }

    func helpLines() -> [String] {
        Action.allCases.map { action in
            ScreenText.pad(action.keys.joined(separator: " "), 14) + action.help
        } + ["", "Press q or Esc to close."]
    }

    func drawFooter() {
        let rows = curses.rows
        if let prompt {
            let text = prompt.label + prompt.text
            let visible = ScreenText.width(text) > curses.columns - 1
                ? "…" + String(text.suffix(curses.columns - 2)) : text
            curses.draw(visible, row: rows - 1, column: 0, style: .bold)
            curses.fillRow(rows - 2, style: .header)
            curses.draw("Enter confirm · Esc cancel", row: rows - 2, column: 0, style: .header)
            return
        }
        let keys: String
        switch view {
        case .list:
            keys = Self.keyHints(["a Add", "p Pause/Resume", "x Stop", "d Trash", "t Trash view", "s Sort", "Enter Details"],
                                 always: ["? Help", "q Quit"], width: curses.columns)
        case .trash:
            keys = Self.keyHints(["u Restore", "d Delete for good", "t Back"], always: ["? Help", "q Quit"], width: curses.columns)
        case .details, .help:
            let lineCount = textLines(ListRenderer(manager: manager)).count
            let position = TextPager.position(top: pager.top, lineCount: lineCount, height: listHeight)
            keys = "Esc/q Back" + (position.map { "  j/k PgUp/PgDn Scroll  · " + $0 } ?? "")
        }
        curses.fillRow(rows - 2, style: .header)
        curses.draw(keys, row: rows - 2, column: 0, style: .header)
        curses.draw(message, row: rows - 1, column: 0, style: messageIsError ? .failed : .normal)
    }

    /// As many hints as fit, dropped from the end, and always the way to help and out.
    static func keyHints(_ hints: [String], always: [String], width: Int) -> String {
        var shown = hints
        while !shown.isEmpty && ScreenText.width((shown + always).joined(separator: "  ")) > width { shown.removeLast() }
        return (shown + always).joined(separator: "  ")
    }

    // MARK: - Keys

    func handleKey(_ key: Key) {
        needsDraw = true
        if case .special(Curses.keyResize) = key {
            curses.forceRedraw()
            return
        }
        // A message answers the last key: the next one clears it (as in tig and htop).
        message = ""
        messageIsError = false
        if prompt != nil { return handlePromptKey(key) }
        if case let .mouse(row, _, buttons) = key { return handleMouse(row: row, buttons: buttons) }
        guard let name = KeyName.name(of: key) else { return }
        switch view {
        case .details, .help:
            if name == "q" || name == "Esc" || name == "Enter" { view = .list; entriesStale = true; return }
            guard let action = Action.byKey[name] else { return }
            if action == .help || action == .redraw { return perform(action) }
            pager.perform(action, lineCount: textLines(ListRenderer(manager: manager)).count, height: listHeight)
            return
        default:
            break
        }
        if name == "Esc" { marked.removeAll(); return }
        guard let action = Action.byKey[name] else { return }
        perform(action)
    }

    func handleMouse(row: Int, buttons: UInt) {
        if Mouse.isWheelUp(buttons) { return move(by: -3) }
        if Mouse.isWheelDown(buttons) { return move(by: 3) }
        let index = top + row - 1
        if row >= 1, entries.indices.contains(index) { selected = index }
    }

    func perform(_ action: Action) {
        refreshEntries()
        let inTrash = view == .trash
        switch action {
        case .moveUp: move(by: -1)
        case .moveDown: move(by: 1)
        case .pageUp: move(by: -listHeight)
        case .pageDown: move(by: listHeight)
        case .first: selected = 0
        case .last: selected = max(0, entries.count - 1)
        case .add: prompt = Prompt(purpose: .addURLs, label: "Add URL(s): ")
        case .togglePause:
            let urls = targets
            let active = urls.filter { manager.state(of: $0)?.isActive == true }
            if !active.isEmpty {
                say("paused " + Phrase.downloads(manager.pauseTasks(active).count))
            } else {
                let n = manager.resumeTasks(urls, queueIfFull: true).count
                say(n == 0 ? "nothing to resume" : "resumed " + Phrase.downloads(n))
            }
        case .pauseAll: manager.pauseAllTasks(); say("paused all")
        case .resumeAll: manager.resumeAllTasks(); say("resumed all")
        case .stop: say("stopped " + Phrase.downloads(manager.stopTasks(targets).count))
        case .restart:
            let finished = targets.filter { manager.state(of: $0) == .finished }
            if finished.isEmpty {
                let n = manager.restartTasks(targets).count
                // A running download is not restarted under its own feet (SDE's rule).
                say(n > 0 ? "restarted " + Phrase.downloads(n) : "stop it first (x): a running download does not restart")
            } else {
                prompt = Prompt(purpose: .confirmRestart(targets), label: "Restart deletes the downloaded file. Restart \(Phrase.downloads(targets.count))? (y/n) ")
            }
        case .delete:
            let urls = targets
            guard !urls.isEmpty else { return }
            if inTrash {
                prompt = Prompt(purpose: .confirmCleanup(urls), label: "Delete \(Phrase.downloads(urls.count)) for good, with their files? (y/n) ")
            } else if !manager.isTrashOpened && urls.contains(where: { manager.state(of: $0) == .finished }) {
                prompt = Prompt(purpose: .confirmDelete(urls), label: "Delete \(Phrase.downloads(urls.count)) with their finished files? (y/n) ")
            } else {
                let n = manager.deleteTasks(urls).count
                marked.subtract(urls)
                say(manager.isTrashOpened ? "moved \(Phrase.downloads(n)) to the trash (t shows it, u restores)" : "deleted " + Phrase.downloads(n))
            }
        case .toggleTrash:
            view = inTrash ? .list : .trash
            marked.removeAll()
            selected = 0
            entriesStale = true
        case .restore:
            guard inTrash else { return say("u restores from the trash: press t to open it") }
            let n = manager.restoreToDeleteTasks(targets).count
            marked.removeAll()
            say("restored " + Phrase.downloads(n))
        case .cycleSort:
            // Manual order (nil), then each sort key; a sort keeps the order of the one before (ascending after manual).
            let cycle: [SortKey?] = [nil] + SortKey.allCases
            let next = cycle[(cycle.firstIndex(of: manager.arrangement.sortKey)! + 1) % cycle.count]
            manager.arrange(next.map { .sorted($0, manager.arrangement.sortOrder ?? .ascending) } ?? .manual)
            say(next.map { "sorted by \($0.title)" } ?? "manual order")
        case .flipOrder:
            // Manual order is the user's own: there is nothing to turn around.
            guard case .sorted(let key, let order) = manager.arrangement else { return say("manual order has no direction: J and K move a task") }
            manager.sortListBy(type: key, order: order.flipped)
        case .toggleSectioning:
            guard let key = manager.arrangement.sortKey, key != .fileType else { return say("this sort has fixed sections") }
            let on = !manager.settings.sectioning.isOn(for: key)
            manager.setSectioning(on, for: key)
            say("sections \(on ? "on" : "off")")
        case .moveTaskDown, .moveTaskUp:
            moveTask(down: action == .moveTaskDown)
        case .newSection:
            guard manager.arrangement.isManual else { return say("sections can be added in manual sort (press s)") }
            prompt = Prompt(purpose: .newSection, label: "New section title: ")
        case .rename:
            guard let entry = entries.indices.contains(selected) ? entries[selected] : nil else { return }
            switch entry {
            case .section(let index, let title, _):
                guard manager.arrangement.isManual else { return say("section titles can be changed in manual sort") }
                prompt = Prompt(purpose: .sectionTitle(index), label: "Section title: ", text: title)
            case .task(let url):
                prompt = Prompt(purpose: .rename(url), label: "Name: ", text: manager.displayName(of: url) ?? "")
            }
        case .moreDownloads:
            // No limit (0) stays no limit: one more than unlimited is still unlimited.
            if manager.maxDownloadCount > 0 { manager.maxDownloadCount += 1 }
            say(manager.maxDownloadCount > 0 ? "at most \(manager.maxDownloadCount) at once" : "no limit on downloads at once")
        case .fewerDownloads:
            // From no limit, one fewer than what runs now.
            let current = manager.maxDownloadCount > 0 ? manager.maxDownloadCount : (manager.counts[.downloading] ?? 0)
            manager.maxDownloadCount = max(1, current - 1)
            say("at most \(manager.maxDownloadCount) at once")
        case .rateLimit: prompt = Prompt(purpose: .rateLimit, label: "Rate limit (e.g. 500K, 2M; 0 = none): ")
        case .filter: prompt = Prompt(purpose: .filter, label: "Filter: ", text: filterText)
        case .mark:
            guard let url = currentURL else { return }
            if marked.contains(url) { marked.remove(url) } else { marked.insert(url) }
            move(by: 1)
        case .details:
            if let url = currentURL {
                view = .details(url)
                pager = TextPager()
            }
        case .help:
            view = .help
            pager = TextPager()
        case .redraw: curses.forceRedraw()
        case .quit: quitting = true
        }
        manager.flush()
    }

    func moveTask(down: Bool) {
        guard manager.arrangement.isManual else { return say("tasks can be moved in manual sort (press s)") }
        guard let url = currentURL, let from = manager.indexPath(of: url) else { return }
        var to = from
        to.row += down ? 1 : -1
        if to.row < 0 || to.row >= manager.taskCountInSection(from.section) {
            // Past the edge of a section: into the next one.
            let next = from.section + (down ? 1 : -1)
            guard next >= 0, next < manager.sectionCount else { return }
            to = ListIndex(section: next, row: down ? 0 : manager.taskCountInSection(next))
        }
        manager.moveTask(at: from, to: to)
        entriesStale = true
    }

    func addURLs(_ urls: [String]) {
        let result = manager.add(urls)
        entriesStale = true
        var parts: [String] = []
        if !result.added.isEmpty { parts.append("added " + Phrase.downloads(result.added.count)) }
        for (what, again) in Dictionary(grouping: result.duplicates, by: \.reason).sorted(by: { $0.key < $1.key }) {
            parts.append("\(again.count) \(what)")
        }
        for rejection in result.rejected { parts.append("\"\(ScreenText.fit(ScreenText.clean(URLCheck.withoutPassword(rejection.url)), 40))\": \(rejection.reason)") }
        say(parts.joined(separator: "; "), error: !result.rejected.isEmpty)
        if let first = result.added.first {
            refreshEntries()
            if let index = entries.firstIndex(of: .task(first)) { selected = index }
        }
    }

    // MARK: - Prompts

    func handlePromptKey(_ key: Key) {
        guard var current = prompt else { return }
        let name = KeyName.name(of: key)
        if let urls = current.purpose.confirming {
            let yes: Bool
            if case .character(let c) = key { yes = c == "y" || c == "Y" } else { yes = false }
            switch current.purpose {
            case .confirmCleanup:
                say(yes ? "deleted \(Phrase.downloads(manager.cleanupToDeleteTasks(urls).count)) for good" : "nothing deleted")
            case .confirmRestart:
                say(yes ? "restarted " + Phrase.downloads(manager.restartTasks(urls).count) : "nothing restarted")
            default:
                say(yes ? "deleted " + Phrase.downloads(manager.deleteTasks(urls).count) : "nothing deleted")
            }
            if yes { marked.subtract(urls) }
            prompt = nil
            entriesStale = true
            manager.flush()
            return
        }
        switch name {
        case "Esc":
            prompt = nil
            return
        case "Enter":
            prompt = nil
            submit(current)
            manager.flush()
            return
        case "Backspace":
            if !current.text.isEmpty { current.text.removeLast() }
        default:
            if case .character(let c) = key, !c.isASCII || !(c.asciiValue! < 0x20 || c.asciiValue! == 0x7F) {
                current.text.append(c)
            }
        }
        prompt = current
        if current.purpose == .filter {
            filterText = current.text
            entriesStale = true
        }
    }

    func submit(_ prompt: Prompt) {
        let text = prompt.text
        switch prompt.purpose {
        case .addURLs:
            if CurlCommand.looksLikeOne(text) { let (message, isError) = manager.add(curlCommand: text); entriesStale = true; return say(message, error: isError) }
            let urls = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).map(String.init)
            guard !urls.isEmpty else { return say("no URL given") }
            addURLs(urls)
        case .rename(let url):
            manager.changeDisplayNameOfTask(url, to: text.trimmingCharacters(in: .whitespaces))
        case .sectionTitle(let section):
            manager.changeTitleOfSection(section, to: text)
        case .newSection:
            let at = currentSection ?? 0
            manager.insertPlaceHolderSection(at: at, withTitle: text.isEmpty ? "New section" : text)
        case .filter:
            filterText = text
            entriesStale = true
        case .rateLimit:
            guard let rate = ByteFormat.parseRate(text) else { return say("\"\(ScreenText.clean(text))\" is not a rate (try 500K or 2M)", error: true) }
            manager.setGlobalRateLimit(rate == 0 ? nil : rate)
            // K and M count 1024s, the list counts 1000s: say it in the user's words, then in the list's.
            let typed = ScreenText.clean(text.trimmingCharacters(in: .whitespaces))
            say(rate == 0 ? "no rate limit" : "rate limit \(typed) (\(ByteFormat.rate(rate)))")
        case .confirmDelete, .confirmCleanup, .confirmRestart:
            break
        }
        entriesStale = true
    }

    // MARK: - Scripts

    func runScript(_ script: ScriptRunner) {
        guard let command = script.next(isBusy: manager.isBusy) else {
            if script.finished { quitting = true }
            return
        }
        switch command {
        case .key(let key): handleKey(key)
        case .type(let text):
            for c in text { handleKey(.character(c)) }
        case .saveDisplay(let path):
            draw()
            needsDraw = false
            try? curses.screenText().write(toFile: path, atomically: true, encoding: .utf8)
        case .resize(let columns, let rows):
            curses.resize(rows: rows, columns: columns)
            needsDraw = true
        }
    }
}
