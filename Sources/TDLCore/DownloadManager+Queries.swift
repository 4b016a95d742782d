import Foundation

/// SDE's per-task queries, by URL and by index path. Unknown URLs and places that do not
/// exist answer nil (or SDE's -1), never crash.
extension DownloadManager {
    /// SDE's `manager[url]` and `manager[indexPath]`.
    public subscript(url: String) -> ListIndex? { indexPath(of: url) }
    public subscript(index: ListIndex) -> String? { url(at: index) }

    public func indexPath(ofTask url: String) -> ListIndex? { indexPath(of: url) }
    public func downloadURLString(at index: ListIndex) -> String? { url(at: index) }

    public func fileDisplayName(ofTask url: String) -> String? { displayName(of: url) }
    public func fileDisplayName(at index: ListIndex) -> String? { url(at: index).flatMap(displayName(of:)) }

    public func downloadState(ofTask url: String) -> TaskState? { state(of: url) }
    public func downloadState(at index: ListIndex) -> TaskState? { url(at: index).flatMap(state(of:)) }

    public func downloadDetail(ofTask url: String) -> String? { detailText(of: url) }
    public func downloadDetail(at index: ListIndex) -> String? { url(at: index).flatMap(detailText(of:)) }

    /// SDE's answer: -1 for an unknown task, else 0…1.
    public func downloadProgress(ofTask url: String) -> Double { tasks[url] == nil ? -1 : progress(of: url) }
    public func downloadProgress(at index: ListIndex) -> Double { url(at: index).map(downloadProgress(ofTask:)) ?? -1 }

    /// SDE's answer: -1 for an unknown task or an unknown size.
    public func fileByteCount(ofTask url: String) -> Int64 { tasks[url]?.size ?? -1 }
    public func fileByteCount(at index: ListIndex) -> Int64 { url(at: index).map(fileByteCount(ofTask:)) ?? -1 }

    public func fileType(ofTask url: String) -> FileType? { tasks[url]?.fileType }
    public func fileType(at index: ListIndex) -> FileType? { url(at: index).flatMap(fileType(ofTask:)) }

    /// The downloaded file's absolute path; nil until the task is finished (SDE's rule).
    public func filePath(ofTask url: String) -> String? {
        guard let task = tasks[url], task.state == .finished else { return nil }
        return task.filePath
    }
    public func filePath(at index: ListIndex) -> String? { url(at: index).flatMap(filePath(ofTask:)) }
    public func fileURL(ofTask url: String) -> URL? { filePath(ofTask: url).map { URL(fileURLWithPath: $0) } }

    /// True only when the task is finished and its file is on disk.
    public func isFileExisted(ofTask url: String) -> Bool {
        filePath(ofTask: url).map { FileManager.default.fileExists(atPath: $0) } ?? false
    }

    /// Everything about a task as text (SDE's `info(ofTask:)`), meta info included;
    /// nil for an unknown task.
    public func info(ofTask url: String) -> [String: String]? {
        guard let task = tasks[url] else { return nil }
        var info = task.metaInfo
        info["url"] = task.url
        info["fileName"] = task.fileName
        info["displayName"] = task.displayName(hidingExtension: settings.hiddenFileExtension)
        info["fileType"] = task.fileType.rawValue
        info["state"] = task.state.rawValue
        info["detail"] = task.detailText
        info["addTime"] = ISO8601DateFormatter().string(from: task.addTime)
        info["filePath"] = task.filePath
        if let size = task.size { info["size"] = String(size) }
        if let reason = task.failReason { info["failReason"] = reason.message }
        return info
    }

    /// Tasks in the trash, by index: nil when out of range.
    public func toDeleteURLString(at index: Int) -> String? {
        toDeleteList.indices.contains(index) ? toDeleteList[index] : nil
    }
}
