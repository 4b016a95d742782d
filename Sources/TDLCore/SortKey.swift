/// The predefined keys a list can be sorted by (see `Arrangement`).
public enum SortKey: String, Sendable, CaseIterable, Codable {
    case addTime
    case fileName
    case fileSize
    case fileType
    /// By the queue a download names (`default` for none), in sections by queue; add time in each.
    case queue

    public var title: String {
        switch self {
        case .addTime: return "add time"
        case .fileName: return "name"
        case .fileSize: return "size"
        case .fileType: return "type"
        case .queue: return "queue"
        }
    }
}

public enum SortOrder: String, Sendable, Codable {
    case ascending
    case descending

    public var flipped: SortOrder { self == .ascending ? .descending : .ascending }
}

/// SDE's sectioning switches for the predefined sorts. `fileType` is always sectioned by type,
/// `queue` by queue.
public struct SectioningOptions: Equatable, Sendable {
    /// Today, Yesterday, Last 7 Days, Last 30 Days, Older (sort by add time).
    public var addTime = false
    /// 0–1 MB, 1–10 MB, 10–100 MB, 100 MB–1 GB, larger (sort by file size).
    public var fileSize = false
    /// Alphanumeric index groups (sort by file name).
    public var fileName = false

    public init(addTime: Bool = false, fileSize: Bool = false, fileName: Bool = false) {
        self.addTime = addTime
        self.fileSize = fileSize
        self.fileName = fileName
    }

    public func isOn(for key: SortKey) -> Bool {
        switch key {
        case .addTime: return addTime
        case .fileSize: return fileSize
        case .fileName: return fileName
        case .fileType, .queue: return true
        }
    }
}
