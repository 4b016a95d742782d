/// The columns of the `task` table a task is read from and written to, in the order a read
/// selects them: each column's name and its index in a row are this one list.
enum TaskColumn: Int32, CaseIterable {
    case url, fileName, directory, addTime, state, customName, mimeType, size, received, failReason
    case finalURL, etag, lastModified, retries, note, metaInfo, deletedAt, completedPath, options

    /// The column's name in SQL.
    var name: String { "\(self)" }

    /// Every column, in order (`allCases` builds its array at each use; a write runs per task).
    static let inOrder = allCases

    /// Every column, in order, for a SELECT.
    static let selectList = inOrder.map(\.name).joined(separator: ", ")
}
