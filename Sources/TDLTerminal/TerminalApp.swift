import Foundation
import TDLCore
#if canImport(Glibc)
import Glibc
#endif

/// The full-screen list's loop: each turn of its owner's loop waits on the network, the
/// control socket and the keyboard at once; keys and the manager's events give reactions,
/// applied here in one place; the screen is drawn only when something changed (at most ten
/// frames a second), and the terminal is restored on every way out.
public final class TerminalApp {
    /// Reads what typed URLs stand for (a Metalink document: its files) away from the loop, as
    /// a fetch may take its whole timeout: returns at once, and calls `done` later, on the
    /// loop, with the downloads and what could not be read.
    public typealias URLExpander = (_ requests: [DownloadRequest],
                                    _ done: @escaping (_ requests: [DownloadRequest], _ problems: [String]) -> Void) -> Void

    public struct Options {
        /// One turn of the owner's loop: waits at most `timeoutMs` on the transfers, the
        /// owner's descriptors and `watching`, and serves the requests of other tdl commands.
        /// Returns the ready descriptors, and one line per change made for those requests
        /// (for the message line).
        public var turn: (_ timeoutMs: Int, _ watching: [WatchedFD]) -> (ready: Set<Int32>, notes: [String])
        /// Whether a signal asked the owner's loop to end: the list then quits as q does.
        public var interrupted: () -> Bool
        /// Tells the owner's loop that a key changed the session: the loop writes it at the
        /// end of the turn (the screen never writes the session itself).
        public var changed: () -> Void
        /// A script of keys and commands (TDL_SCRIPT) instead of a keyboard, on a headless screen.
        public var scriptPath: String?
        public var headlessSize = (rows: 24, columns: 80)
        public var colors = true
        /// Shown once on the message line at start ("restored 2 interrupted downloads").
        public var startMessage: String?
        /// Reads a typed `.metalink`/`.meta4` (the screen fetches nothing itself); its `done`
        /// comes from one of the owner's turns.
        public var expandURLs: URLExpander?

        public init(turn: @escaping (_ timeoutMs: Int, _ watching: [WatchedFD]) -> (ready: Set<Int32>, notes: [String]),
                    interrupted: @escaping () -> Bool, changed: @escaping () -> Void) {
            self.turn = turn
            self.interrupted = interrupted
            self.changed = changed
        }
    }

    let manager: DownloadManager
    let options: Options
    let state = ScreenState()
    var curses: Curses!
    var drawer: ScreenDrawer!
    /// Set by reactions, undone by reading the rows again before the next key or frame: the
    /// manager's events come in bursts, the rows are read once.
    var rowsStale = true
    var needsDraw = true
    var lastDraw: Double = 0
    /// A key changed the screen: it is drawn at once, not at the next tenth of a second.
    var keyHandled = false
    var quitting = false
    var script: ScriptRunner?
    /// Text between the terminal's paste brackets, gathered until the closing one (it may come a turn later).
    var pasting: String?
    /// Typed documents being read (`expandURLs`): a script's `:wait-idle` waits for them, and
    /// the owner says after the screen is gone that those left unread added nothing.
    public internal(set) var expansionsPending = 0

    public init(manager: DownloadManager, options: Options) {
        self.manager = manager
        self.options = options
    }

    /// Why this terminal cannot show the list (TERM=dumb, no terminfo entry), or nil. A
    /// script runs on its own headless screen and needs no terminal.
    public static func unusableTerminal() -> String? { Curses.unusableTerminal() }

    /// Runs until the user quits or a signal comes; the terminal is restored on return, and
    /// the owner saves the session (see `Options.changed`).
    public func run() {
        if let path = options.scriptPath {
            script = ScriptRunner(path: path)
            curses = Curses(headless: options.headlessSize, colors: options.colors)
        } else {
            curses = Curses(headless: nil, colors: options.colors)
        }
        drawer = ScreenDrawer(curses: curses, manager: manager)
        defer { curses.end() }
        if let startMessage = options.startMessage { state.say(startMessage) }
        let events = EventHandler(manager: manager, state: state)
        let observer = manager.observe { [weak self] event in self?.apply(events.handle(event)) }
        var stdinOpen = script == nil
        var preparing = true
        // The list first, then the downloads: queueing a million waiting tasks takes most of
        // a second, which neither the first frame nor a key pressed then waits for: it goes
        // on 15 ms a turn, and the downloads start when it is done.
        draw()
        var queueing = true
        while !quitting {
            if queueing && !manager.queueLoadedTasks(for: 0.015) {
                queueing = false
                manager.startLoadedDownloads()
            }
            let frameDue = needsDraw || manager.isBusy
            let timeout = preparing || queueing ? 0 : script != nil ? 10 : (frameDue ? 100 : 1000)
            let turn = options.turn(timeout, stdinOpen ? [.reading(0)] : [])
            if turn.ready.contains(0) {
                var gotKey = false
                while let key = curses.readKey() {
                    gotKey = true
                    read(key)
                }
                // Readable without a key means end of input: stop polling it, or it spins.
                if !gotKey && isStdinClosed() { stdinOpen = false }
            }
            if !turn.notes.isEmpty {
                state.say(turn.notes.joined(separator: "; "))
                apply([.redraw, .rebuildRows])
            }
            if options.interrupted() { quitting = true }
            if let script { runScript(script) }
            if manager.isBusy { needsDraw = true }
            drawIfDue()
            // Between keys and frames, a few milliseconds a turn: what makes typing on in the
            // filter quick, then a later sort.
            preparing = !needsDraw && (!rowsStale && state.readFilterNames(from: manager, for: 0.005) || manager.prepareSortNames(for: 0.005))
        }
        manager.stopObserving(observer)
        options.changed()  // the owner's loop writes it as it ends
    }

    func isStdinClosed() -> Bool {
        var pfd = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        return poll(&pfd, 1, 0) > 0 && (pfd.revents & Int16(POLLHUP | POLLERR | POLLNVAL)) != 0
    }

    /// A key from the terminal: inside paste brackets it is text of the paste, handed over whole.
    func read(_ key: Key) {
        switch key {
        case .special(Curses.keyPasteStart):
            pasting = ""
        case .special(Curses.keyPasteEnd):
            if let text = pasting { handle(.paste(text)) }
            pasting = nil
        case .character(let c) where pasting != nil:
            pasting!.append(c)
        default:
            if pasting == nil { handle(key) }
        }
    }

    func handle(_ key: Key) {
        // Keys at a prompt edit its line: the rows wait for the frame (a filter typed fast is read once).
        if state.prompt == nil { readRowsIfStale() }
        keyHandled = true
        state.pageHeight = drawer.listHeight
        state.pageWidth = curses.columns
        apply(KeyHandler(manager: manager, state: state, expandURLs: expander).handle(key))
    }

    /// The owner's `expandURLs`, counted while it reads; the list is read again when it is done.
    var expander: URLExpander? {
        guard let expand = options.expandURLs else { return nil }
        return { [weak self] requests, done in
            self?.expansionsPending += 1
            expand(requests) { expanded, problems in
                self?.expansionsPending -= 1
                done(expanded, problems)
                self?.apply(.listEdited)
            }
        }
    }

    /// Does what a key or an event asked for.
    func apply(_ reaction: Reaction) {
        if reaction.contains(.rebuildRows) { rowsStale = true }
        if reaction.contains(.repaint) { curses.forceRedraw() }
        if reaction.contains(.redraw) { needsDraw = true }
        if reaction.contains(.save) { options.changed() }
        if reaction.contains(.quit) { quitting = true }
    }

    func readRowsIfStale() {
        guard rowsStale else { return }
        state.readRows(from: manager)
        rowsStale = false
    }

    // MARK: - Drawing

    func drawIfDue() {
        let now = Date().timeIntervalSinceReferenceDate
        guard needsDraw, keyHandled || now - lastDraw >= 0.1 || !manager.isBusy else { return }
        draw()
        lastDraw = now
    }

    func draw() {
        readRowsIfStale()
        drawer.draw(state)
        needsDraw = false
        keyHandled = false
    }

    // MARK: - Scripts

    func runScript(_ script: ScriptRunner) {
        guard let command = script.next(isBusy: manager.isBusy || expansionsPending > 0) else {
            if script.finished { quitting = true }
            return
        }
        switch command {
        case .key(let key): handle(key)
        case .type(let text):
            for c in text { handle(.character(c)) }
        case .paste(let text):
            handle(.paste(text))
        case .saveDisplay(let path):
            draw()
            try? curses.screenText().write(toFile: path, atomically: true, encoding: .utf8)
        case .resize(let columns, let rows):
            curses.resize(rows: rows, columns: columns)
            apply(.redraw)
        }
    }
}
