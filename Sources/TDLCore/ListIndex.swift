/// A task's place in `downloadList`: section and row, like a table view's index path.
public struct ListIndex: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var section: Int
    public var row: Int

    public init(section: Int, row: Int) {
        self.section = section
        self.row = row
    }

    public static func < (a: ListIndex, b: ListIndex) -> Bool {
        a.section != b.section ? a.section < b.section : a.row < b.row
    }

    public var description: String { "[\(section), \(row)]" }
}
