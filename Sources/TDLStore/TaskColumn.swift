/// The columns of the `task` table a task is read from and written to, in the order a read
/// selects them: each column's name and its index in a row are this one list.
enum TaskColumn: Int32, CaseIterable {
    case url, fileName, directory, addTime, state, customName, mimeType, size, received, failReason
    case finalURL, etag, lastModified, retries, note, metaInfo, deletedAt, completedPath, options

    /// The column's name in SQL, the case's own. Spelled out: `"\(self)"` makes the runtime
    /// search every protocol conformance of the binary at start, to print the case.
    var name: String {
        switch self {
        case .url: "url"
        case .fileName: "fileName"
        case .directory: "directory"
        case .addTime: "addTime"
        case .state: "state"
        case .customName: "customName"
        case .mimeType: "mimeType"
        case .size: "size"
        case .received: "received"
        case .failReason: "failReason"
        case .finalURL: "finalURL"
        case .etag: "etag"
        case .lastModified: "lastModified"
        case .retries: "retries"
        case .note: "note"
        case .metaInfo: "metaInfo"
        case .deletedAt: "deletedAt"
        case .completedPath: "completedPath"
        case .options: "options"
        }
    }

    /// Every column, in order (`allCases` builds its array at each use; a write runs per task).
    static let inOrder = allCases

    /// Every column, in order, for a SELECT.
    static let selectList = inOrder.map(\.name).joined(separator: ", ")
}
