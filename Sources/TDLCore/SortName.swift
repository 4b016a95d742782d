/// A task's name prepared for the name and type sorts, kept with the task and refreshed when
/// its name or MIME type changes, so sorting 100,000 tasks does not fold every name again.
struct SortName: Equatable, Sendable {
    /// The display name folded for comparison (see `ListSorter.appendFolded`).
    private(set) var folded: [UInt8] = []
    private(set) var fileType = FileType.other

    init(fileName: String, customName: String?, mimeType: String?) {
        fileType = FileType.classify(fileName: fileName, mimeType: mimeType)
        ListSorter.appendFolded(customName ?? fileName, to: &folded)
        ListSorter.encodeNumbers(&folded, from: 0)
    }
}

/// A task's `SortName` once a name or type sort prepared it. Derived data: two tasks with
/// equal fields are equal whether or not either has it.
struct PreparedSortName: Equatable, Sendable {
    var value: SortName?

    static func == (lhs: PreparedSortName, rhs: PreparedSortName) -> Bool { true }
}
