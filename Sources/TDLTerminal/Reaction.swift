/// What must happen after a key or a manager event, as htop's actions return an
/// Htop_Reaction: a handler changes the screen's state and says what follows; the loop does
/// it, in one place.
struct Reaction: OptionSet, Equatable {
    let rawValue: Int

    /// Something shown changed: draw it at the next frame.
    static let redraw = Reaction(rawValue: 1 << 0)
    /// Rows appeared, moved or went: read them from the manager again before they are next used.
    static let rebuildRows = Reaction(rawValue: 1 << 1)
    /// The session changed: save it now, not at the next checkpoint, so a crash keeps it.
    static let save = Reaction(rawValue: 1 << 2)
    /// The terminal may show something else than tdl drew (^L, a resize): paint every cell again.
    static let repaint = Reaction(rawValue: 1 << 3)
    static let quit = Reaction(rawValue: 1 << 4)

    /// What an edit of the list (delete, add, sort, move, rename…) needs: new rows on screen, saved.
    static let listEdited: Reaction = [.redraw, .rebuildRows, .save]
}
