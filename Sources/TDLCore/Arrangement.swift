/// How the list is arranged: by hand (the user's own sections, titles and order, saved as a
/// `ManualLayout`), or sorted by a predefined key in an order, which places every task and
/// makes the sections. Only a sorted list has an order: one arranged by hand has no direction.
public enum Arrangement: Hashable, Sendable {
    case manual
    case sorted(SortKey, SortOrder)

    public var isManual: Bool { self == .manual }

    /// The key of a sorted list; nil for one arranged by hand.
    public var sortKey: SortKey? {
        guard case .sorted(let key, _) = self else { return nil }
        return key
    }

    /// The order of a sorted list; nil for one arranged by hand.
    public var sortOrder: SortOrder? {
        guard case .sorted(_, let order) = self else { return nil }
        return order
    }

    /// "manual", or the sort key's title.
    public var title: String { sortKey?.title ?? "manual" }
}
