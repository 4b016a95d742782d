/// Who hears of every change (the screen, `tdl get`, the hooks), on the loop thread, in the
/// order they began to listen.
struct ManagerObservers {
    private var hearers: [(id: Int, hear: (ManagerEvent) -> Void)] = []
    private var lastID = 0

    /// Returns the number that `remove` takes.
    mutating func add(_ hear: @escaping (ManagerEvent) -> Void) -> Int {
        lastID += 1
        hearers.append((lastID, hear))
        return lastID
    }

    mutating func remove(_ id: Int) { hearers.removeAll { $0.id == id } }

    func tell(_ event: ManagerEvent) {
        for hearer in hearers { hearer.hear(event) }
    }
}
