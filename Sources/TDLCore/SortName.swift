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
            stemLength = folded.count
            return
        }
        // Folding works scalar by scalar, so the folded stem is a prefix of the folded name.
        let stem = FileName.stem(fileName)
        ListSorter.appendFolded(stem, to: &folded)
        stemLength = folded.count
        ListSorter.appendFolded(String(decoding: fileName.utf8.dropFirst(stem.utf8.count), as: UTF8.self), to: &folded)
    }

    /// The folded display name, with or without its extension.
    func bytes(hidingExtension: Bool) -> ArraySlice<UInt8> {
        hidingExtension ? folded[..<stemLength] : folded[...]
    }
}

/// Holds a task's `SortName` once a name or type sort first needs it: opening a session of
/// 100,000 tasks sorted by add time should not fold every name. A task whose name fields change
/// gets a new, empty cache, so copies that share one always agree on its content. The manager
/// uses tasks on its event-loop thread only.
final class SortNameCache: @unchecked Sendable, Equatable {
    private var value: SortName?

    func sortName(fileName: String, customName: String?, mimeType: String?) -> SortName {
        if let value { return value }
        let made = SortName(fileName: fileName, customName: customName, mimeType: mimeType)
        value = made
        return made
    }

    /// Derived data: two tasks with equal fields are equal whatever their caches hold.
    static func == (lhs: SortNameCache, rhs: SortNameCache) -> Bool { true }
}
