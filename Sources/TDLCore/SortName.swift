/// A task's name prepared for the name and type sorts, kept with the task and refreshed when
/// its name or MIME type changes, so sorting 100,000 tasks does not fold every name again.
struct SortName: Equatable, Sendable {
    /// The display name folded for comparison (see `ListSorter.appendFolded`).
    private(set) var folded: [UInt8] = []
    /// Folded bytes before the extension: the whole name when the user chose one.
    private(set) var stemLength = 0
    private(set) var fileType = FileType.other

    init(fileName: String, customName: String?, mimeType: String?) {
        fileType = FileType.classify(fileName: fileName, mimeType: mimeType)
        if let customName {
            ListSorter.appendFolded(customName, to: &folded)
            ListSorter.encodeNumbers(&folded, from: 0)
            stemLength = folded.count
            return
        }
        // Folding works scalar by scalar, so the folded stem is a prefix of the folded name.
        let stem = FileName.stem(fileName)
        ListSorter.appendFolded(stem, to: &folded)
        ListSorter.encodeNumbers(&folded, from: 0)
        stemLength = folded.count
        ListSorter.appendFolded(String(decoding: fileName.utf8.dropFirst(stem.utf8.count), as: UTF8.self), to: &folded)
        ListSorter.encodeNumbers(&folded, from: stemLength)
    }

    /// The folded display name, with or without its extension.
    func bytes(hidingExtension: Bool) -> ArraySlice<UInt8> {
        hidingExtension ? folded[..<stemLength] : folded[...]
    }
}

/// A task's `SortName` once a name or type sort prepared it. Derived data: two tasks with
/// equal fields are equal whether or not either has it.
struct PreparedSortName: Equatable, Sendable {
    var value: SortName?

    static func == (lhs: PreparedSortName, rhs: PreparedSortName) -> Bool { true }
}
