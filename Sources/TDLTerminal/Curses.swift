import CNcursesw
import Foundation
import Synchronization
import TDLCore
#if canImport(Glibc)
import Glibc
#endif

/// The only file that talks to ncurses (as htop's CRT.c is): set-up, drawing, keys, tear-down.
final class Curses {
    enum Style {
        case normal, header, selected, dim, bold, downloading, finished, failed, paused, sectionTitle
    }

    private(set) var colorsEnabled = false
    private var screen: OpaquePointer?
    /// ncurses is set up. Atomics, as the crash handler reads them (a handler may take no lock).
    private static let active = Atomic<Bool>(false)
    /// Bracketed paste was asked of a real terminal: it is turned off again on the way out.
    private static let pasteModeOn = Atomic<Bool>(false)
    private var cursorShown = false
    /// Key codes the terminal's paste brackets (ESC [200~ and ESC [201~) are read as.
    static let keyPasteStart: Int32 = 2000, keyPasteEnd: Int32 = 2001

    /// A real terminal, or a headless screen of a fixed size writing to /dev/null (for scripts;
    /// `output` elsewhere, for tests).
    init(headless: (rows: Int, columns: Int)?, colors: Bool, output: UnsafeMutablePointer<FILE>? = nil) {
        setlocale(LC_ALL, "")
        ScreenText.unicode = String(cString: nl_langinfo(nl_item(CODESET))) == "UTF-8"
        // ncurses takes a headless screen's size from LINES and COLUMNS; they are set only
        // while it does, so that no child process (a hook, a test's tmux) inherits them.
        let sizeBefore: [(name: String, value: String?)] = ["LINES", "COLUMNS"].map { (name: String) in
            (name, getenv(name).map { String(cString: $0) })
        }
        defer {
            for (name, value) in sizeBefore {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
        }
        if let headless {
            setenv("LINES", String(headless.rows), 1)
            setenv("COLUMNS", String(headless.columns), 1)
            let output = output ?? fopen("/dev/null", "w")
            let input = fopen("/dev/null", "r")
            // A fixed terminal type keeps scripted screens the same on every machine.
            screen = newterm("xterm-256color", output, input)
            set_term(screen)
        } else {
            initscr()
        }
        // ncurses 6.4 writes out what it has at every cursor move until the screen has once
        // been left and resumed: a frame went out as 30–100 writes of a few bytes, each waking
        // the terminal (tmux) while the frame was still being drawn. Left and resumed here,
        // before anything is drawn, it writes each frame at once.
        endwin()
        wrefresh(tdl_stdscr())
        Self.active.store(true, ordering: .sequentiallyConsistent)
        Self.restoreOnCrash()
        cbreak()
        noecho()
        nonl()
        intrflush(tdl_stdscr(), false)
        keypad(tdl_stdscr(), true)
        nodelay(tdl_stdscr(), true)
        curs_set(0)
        set_escdelay(25)
        define_key("\u{1B}[200~", Self.keyPasteStart)
        define_key("\u{1B}[201~", Self.keyPasteEnd)
        if headless == nil {
            // Bracketed paste: the terminal marks what is pasted, so a pasted line break is text, not Enter.
            Self.write("\u{1B}[?2004h")
            Self.pasteModeOn.store(true, ordering: .sequentiallyConsistent)
        }
        mousemask(mmask_t(tdl_mouse_mask()), nil)
        if colors && has_colors() {
            start_color()
            use_default_colors()
            init_pair(1, Int16(COLOR_BLACK), Int16(COLOR_CYAN))
            init_pair(2, Int16(COLOR_GREEN), -1)
            init_pair(3, Int16(COLOR_RED), -1)
            init_pair(4, Int16(COLOR_YELLOW), -1)
            init_pair(5, Int16(COLOR_CYAN), -1)
            init_pair(6, Int16(COLOR_BLUE), -1)
            colorsEnabled = true
        }
    }

    /// Restores the terminal; safe to call twice, and from a signal handler path.
    static func restore() {
        guard active.exchange(false, ordering: .sequentiallyConsistent) else { return }
        endwin()
        if pasteModeOn.exchange(false, ordering: .sequentiallyConsistent) {
            write("\u{1B}[?2004l")
        }
    }

    /// The normal way out: the screen is cleared first, so on a terminal without an alternate
    /// screen (vt100, the Linux console) the shell's prompt comes back on a clean line, not
    /// over the list.
    func end() {
        guard Self.active.load(ordering: .sequentiallyConsistent) else { return }
        placeCursor(nil)
        werase(tdl_stdscr())
        wrefresh(tdl_stdscr())
        Self.restore()
    }

    /// Why the terminal cannot show the full-screen list (TERM unset, dumb or unknown), or nil.
    static func unusableTerminal() -> String? {
        let term = EnvironmentVariable.value("TERM") ?? ""
        if term.isEmpty || term == "dumb" || tdl_terminal_usable() == 0 {
            let name = term.isEmpty ? "TERM is not set" : "TERM=\(term) cannot move the cursor"
            return "this terminal cannot show the full-screen list (\(name)). "
                + "Use `tdl list` to see the downloads and `tdl get URL` to download, or set TERM (e.g. xterm)."
        }
        return nil
    }

    /// A crash must not leave the terminal raw: restore it, then die as we would have.
    private static func restoreOnCrash() {
        let fatal: @convention(c) (Int32) -> Void = { sig in
            Curses.restore()
            signal(sig, SIG_DFL)
            raise(sig)
        }
        for sig in [SIGSEGV, SIGABRT, SIGBUS, SIGILL, SIGFPE, SIGTRAP] { signal(sig, fatal) }
    }

    var rows: Int { Int(tdl_getmaxy(tdl_stdscr())) }
    var columns: Int { Int(tdl_getmaxx(tdl_stdscr())) }

    func resize(rows: Int, columns: Int) { resizeterm(Int32(rows), Int32(columns)) }

    func erase() { werase(tdl_stdscr()) }

    func refresh() { wrefresh(tdl_stdscr()) }

    func forceRedraw() { clearok(tdl_stdscr(), true) }

    private func attributes(_ style: Style) -> Int32 {
        var attr: Int32
        switch style {
        case .normal: attr = tdl_attr_normal()
        case .header: attr = colorsEnabled ? tdl_color_pair(1) : tdl_attr_reverse()
        case .selected: attr = tdl_attr_reverse()
        case .dim: attr = tdl_attr_dim()
        case .bold: attr = tdl_attr_bold()
        case .downloading: attr = colorsEnabled ? tdl_color_pair(5) : tdl_attr_bold()
        case .finished: attr = colorsEnabled ? tdl_color_pair(2) : tdl_attr_normal()
        case .failed: attr = colorsEnabled ? (tdl_color_pair(3) | tdl_attr_bold()) : tdl_attr_bold()
        case .paused: attr = colorsEnabled ? tdl_color_pair(4) : tdl_attr_dim()
        case .sectionTitle: attr = colorsEnabled ? (tdl_color_pair(6) | tdl_attr_bold()) : tdl_attr_bold() | tdl_attr_underline()
        }
        return attr
    }

    /// Draws already-clean text at a place; never past the right edge.
    func draw(_ text: String, row: Int, column: Int, style: Style = .normal, extraAttributes: Int32 = 0) {
        guard row >= 0, row < rows, column < columns else { return }
        let attr = attributes(style) | extraAttributes
        wattrset(tdl_stdscr(), attr)
        let fitted = ScreenText.fit(ScreenText.unicode ? text : ScreenText.ascii(text), columns - column)
        var wide = Array(fitted.unicodeScalars.map { wchar_t(bitPattern: $0.value) })
        wide.append(0)
        mvaddwstr(Int32(row), Int32(column), wide)
        wattrset(tdl_stdscr(), tdl_attr_normal())
    }

    /// Fills a whole row with a style (for bars and the selection).
    func fillRow(_ row: Int, style: Style) {
        draw(String(repeating: " ", count: max(0, columns)), row: row, column: 0, style: style)
    }

    func hideCursor() { curs_set(0) }

    /// Puts the terminal's cursor where typing goes (a prompt), or hides it; drawn at the next refresh.
    func placeCursor(_ position: (row: Int, column: Int)?) {
        if let position {
            wmove(tdl_stdscr(), Int32(position.row), Int32(min(position.column, columns - 1)))
            if !cursorShown { curs_set(1) }
        } else if cursorShown {
            curs_set(0)
        }
        cursorShown = position != nil
    }

    /// Bytes for the terminal outside ncurses (modes it has no call for).
    private static func write(_ sequence: String) {
        let bytes = Array(sequence.utf8)
        _ = bytes.withUnsafeBufferPointer { Glibc.write(1, $0.baseAddress, $0.count) }
    }

    /// The next key, or nil when none is waiting.
    func readKey() -> Key? {
        var ch: wint_t = 0
        let result = wget_wch(tdl_stdscr(), &ch)
        if result == ERR { return nil }
        if result == KEY_CODE_YES {
            let code = Int32(ch)
            if code == KEY_MOUSE {
                var event = MEVENT()
                if getmouse(&event) == OK { return .mouse(row: Int(event.y), column: Int(event.x), buttons: UInt(event.bstate)) }
                return nil
            }
            return .special(code)
        }
        guard let scalar = Unicode.Scalar(UInt32(ch)) else { return nil }
        return .character(Character(scalar))
    }

    /// The screen as text, one line per row, trailing blanks trimmed (tig's save-display).
    func screenText() -> String {
        var lines: [String] = []
        var buffer = [wchar_t](repeating: 0, count: columns + 1)
        for row in 0..<rows {
            let n = mvwinnwstr(tdl_stdscr(), Int32(row), 0, &buffer, Int32(columns))
            let scalars = buffer.prefix(Int(max(n, 0))).compactMap { Unicode.Scalar(UInt32(bitPattern: $0)) }
            var line = String(String.UnicodeScalarView(scalars))
            while line.hasSuffix(" ") { line.removeLast() }
            lines.append(line)
        }
        while lines.last == "" { lines.removeLast() }
        return lines.joined(separator: "\n") + "\n"
    }

    static let keyResize = KEY_RESIZE
    static let keyUp = KEY_UP, keyDown = KEY_DOWN, keyPageUp = KEY_PPAGE, keyPageDown = KEY_NPAGE
    static let keyHome = KEY_HOME, keyEnd = KEY_END, keyDelete = KEY_DC, keyBackspace = KEY_BACKSPACE
    static let keyEnter = KEY_ENTER, keyLeft = KEY_LEFT, keyRight = KEY_RIGHT
    static let keyF1 = tdl_key_f(1)
}

/// A key press as the UI sees it.
enum Key: Equatable {
    case character(Character)
    case special(Int32)
    case mouse(row: Int, column: Int, buttons: UInt)
    /// Text the terminal said was pasted (bracketed paste): text, never keys.
    case paste(String)
}
