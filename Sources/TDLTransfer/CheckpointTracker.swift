/// When a download's progress is made durable, and whether a sync that comes back may be
/// recorded: one checkpoint in flight at a time (a final one goes anyway), none when nothing
/// changed, and none for a part file emptied after it was taken.
struct CheckpointTracker {
    /// A checkpoint on its way: the bytes it covers and the part file's generation then.
    struct Ticket {
        let total: Int64
        fileprivate let generation: Int
    }

    private(set) var inFlight = false
    /// Bumped when the part file is emptied: a checkpoint taken before must not report
    /// offsets of bytes that are gone.
    private(set) var generation = 0
    /// The bytes the last recorded checkpoint made durable.
    private(set) var durableTotal: Int64 = 0

    /// Whether to look at taking one now (one in flight waits, unless this is the last).
    func mayStart(final: Bool) -> Bool {
        !inFlight || final
    }

    /// Takes one covering `total` bytes; nil when there is nothing new to make durable.
    mutating func start(total: Int64, final: Bool) -> Ticket? {
        guard total != durableTotal || final else { return nil }
        inFlight = true
        return Ticket(total: total, generation: generation)
    }

    /// Its sync came back. True when it may be recorded: it succeeded and the file was not
    /// emptied since (the caller also checks that the download is still the URL's).
    mutating func ended(_ ticket: Ticket, synced: Bool) -> Bool {
        inFlight = false
        return synced && ticket.generation == generation
    }

    mutating func recorded(_ ticket: Ticket) {
        durableTotal = ticket.total
    }

    /// The part file is emptied: nothing is durable, and checkpoints taken before are stale.
    mutating func fileEmptied() {
        generation += 1
        durableTotal = 0
    }
}
