import TDLCore

/// Why a source was given up for the rest of a download, as a value (the note the user reads
/// is made from it in one place).
struct MirrorDrop: Equatable {
    enum Cause: Equatable {
        /// Its connections carried less than a fifth of the best rate per connection.
        case slow(rate: Int64, best: Int64)
        /// Its answer was another file, or not one a file can be written from.
        case otherFile(String)
        /// It failed (refused, an HTTP error…) while another source was in use.
        case failed(String)
    }

    /// The source's URL, without a password.
    let mirror: String
    let cause: Cause

    var why: String {
        switch cause {
        case .slow(let rate, let best):
            return "slow (\(ByteFormat.rate(rate)) per connection, another gave \(ByteFormat.rate(best)))"
        case .otherFile(let why), .failed(let why):
            return why
        }
    }

    var note: String { "mirror \(mirror) dropped: \(why)" }
}

/// Where a file's bytes may come from (its URL, then its mirrors): which are still in use,
/// which one the next connection takes, and which one is too slow to keep.
struct MirrorSelector {
    struct Source {
        var url: String
        /// Why it is no longer used for this download; nil while it is.
        var dropped: MirrorDrop?
        /// Answered once with this file's size and validators.
        var verified = false
    }

    private(set) var sources: [Source]
    /// The best rate per connection any source has shown, and since when each one is slow.
    private var bestRate: Double = 0
    private var slowSince: [Int: Double] = [:]

    init(url: String, mirrors: [String]) {
        sources = ([url] + mirrors).map { Source(url: $0) }
    }

    var count: Int { sources.count }
    subscript(s: Int) -> Source { sources[s] }

    mutating func markVerified(_ s: Int) {
        sources[s].verified = true
    }

    /// The source the next connection uses: of those in use whose host has room, the one with
    /// the fewest connections (the URL itself first on a tie); nil when no host has room.
    /// Until the first answer says what the file is, only the first source in use.
    func next(resolved: Bool, connectionsPerSource counts: [Int], hostHasRoom: (String) -> Bool) -> Int? {
        let alive = sources.indices.filter { sources[$0].dropped == nil }
        let candidates = resolved ? alive : Array(alive.prefix(1))
        return candidates.filter { hostHasRoom(RequestHeader.origin(of: sources[$0].url) ?? sources[$0].url) }
            .min { counts[$0] < counts[$1] }
    }

    /// Whether a source other than `s` is still in use: then `s` can be given up.
    func hasOther(than s: Int) -> Bool {
        sources.indices.contains { $0 != s && sources[$0].dropped == nil }
    }

    /// Gives source `s` up; the drop to tell, nil when it was given up already.
    mutating func drop(_ s: Int, _ cause: MirrorDrop.Cause) -> MirrorDrop? {
        guard sources[s].dropped == nil else { return nil }
        let drop = MirrorDrop(mirror: URLCheck.withoutPassword(sources[s].url), cause: cause)
        sources[s].dropped = drop
        return drop
    }

    /// Looks at the bytes each source's connections carried over `elapsed` seconds (`bytes`,
    /// over `counted` connections that were there at the last look). A source below a fifth
    /// of the best rate per connection for `slowSeconds` is dropped, while another is in use;
    /// the sources dropped, with why. Sources measured side by side are compared with each
    /// other; one left alone at the tail, with the best any source showed before.
    mutating func dropSlow(bytes: [Int64], counted: [Int], elapsed: Double, now: Double, slowSeconds: Double) -> [(Int, MirrorDrop)] {
        let rates = sources.indices.map { s -> Double? in
            guard sources[s].dropped == nil, counted[s] > 0 else { return nil }
            return Double(bytes[s]) / elapsed / Double(counted[s])
        }
        let measured = rates.compactMap { $0 }
        bestRate = measured.count > 1 ? measured.max()! : max(bestRate, measured.max() ?? 0)
        var dropped: [(Int, MirrorDrop)] = []
        for s in sources.indices {
            guard let rate = rates[s], rate < bestRate / 5 else {
                slowSince[s] = nil
                continue
            }
            let since = slowSince[s] ?? now
            slowSince[s] = since
            if now - since >= slowSeconds && hasOther(than: s),
               let drop = drop(s, .slow(rate: Int64(rate), best: Int64(bestRate))) {
                dropped.append((s, drop))
            }
        }
        return dropped
    }
}
