/// SDE's operations by index path and by section: each maps to URLs and calls the URL form,
/// returning the places of the tasks that changed. Places that do not exist are ignored.
extension DownloadManager {
    func urls(at indexes: [ListIndex]) -> [String] { indexes.compactMap { url(at: $0) } }

    func urls(inSection section: Int) -> [String] {
        list.sections.indices.contains(section) ? list.sections[section] : []
    }

    func places(of urls: [String]) -> [ListIndex] { urls.compactMap { indexPath(of: $0) } }

    @discardableResult public func resumeTasks(at indexes: [ListIndex]) -> [ListIndex] { places(of: resumeTasks(urls(at: indexes))) }
    @discardableResult public func pauseTasks(at indexes: [ListIndex]) -> [ListIndex] { places(of: pauseTasks(urls(at: indexes))) }
    @discardableResult public func stopTasks(at indexes: [ListIndex]) -> [ListIndex] { places(of: stopTasks(urls(at: indexes))) }
    @discardableResult public func restartTasks(at indexes: [ListIndex]) -> [ListIndex] { places(of: restartTasks(urls(at: indexes))) }
    @discardableResult public func deleteFilesOfTasks(at indexes: [ListIndex]) -> [ListIndex] { places(of: deleteFilesOfTasks(urls(at: indexes))) }
    @discardableResult public func deleteTasks(at indexes: [ListIndex]) -> [String: ListIndex] {
        deleteTasks(urls(at: indexes))
    }

    @discardableResult public func resumeTasksInSection(_ section: Int) -> [ListIndex] { places(of: resumeTasks(urls(inSection: section))) }
    @discardableResult public func pauseTasksInSection(_ section: Int) -> [ListIndex] { places(of: pauseTasks(urls(inSection: section))) }
    @discardableResult public func stopTasksInSection(_ section: Int) -> [ListIndex] { places(of: stopTasks(urls(inSection: section))) }
    @discardableResult public func restartTasksInSection(_ section: Int) -> [ListIndex] { places(of: restartTasks(urls(inSection: section))) }
    @discardableResult public func deleteFilesOfTasksInSection(_ section: Int) -> [ListIndex] { places(of: deleteFilesOfTasks(urls(inSection: section))) }
    @discardableResult public func deleteTasksInSection(_ section: Int) -> [String: ListIndex] {
        deleteTasks(urls(inSection: section))
    }
}
