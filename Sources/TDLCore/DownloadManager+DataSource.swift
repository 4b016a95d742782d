import Foundation

/// SDE's data source: the list as sections of URLs, their titles, and what a row shows.
extension DownloadManager {
    public var downloadList: [[String]] { list.sections }
    public var sectionCount: Int { list.sections.count }

    /// Goes up whenever a task is added, removed or moved in the list, or the list is sorted.
    public var listRevision: Int { list.revision }
    public var arrangement: Arrangement { list.arrangement }

    /// Every task the manager knows, list and trash.
    public var allTasksSet: Set<String> { Set(tasks.keys) }
    /// How many tasks the manager knows, list and trash.
    public var taskCount: Int { tasks.count }
    /// Unfinished tasks in the list, most recently added first.
    public var unfinishedList: [String] {
        let trash = Set(toDeleteList)
        return tasks.values.filter { $0.state != .finished && !trash.contains($0.url) }
            .sorted { ($0.addTime, $0.url) > ($1.addTime, $1.url) }.map(\.url)
    }

    /// -1 when the section does not exist (SDE's answer).
    public func taskCountInSection(_ section: Int) -> Int {
        list.sections.indices.contains(section) ? list.sections[section].count : -1
    }

    public func titleForHeaderInSection(_ section: Int) -> String? {
        guard list.titles.indices.contains(section), !list.titles[section].isEmpty else { return nil }
        return list.titles[section]
    }

    public func task(_ url: String) -> DownloadTask? { tasks[url] }

    public func url(at index: ListIndex) -> String? { list.url(at: index) }

    /// O(1) amortized: the map is rebuilt once after each change of the list.
    public func indexPath(of url: String) -> ListIndex? { list.indexPath(of: url) }

    public func displayName(of url: String) -> String? {
        tasks[url]?.displayName
    }

    public func state(of url: String) -> TaskState? { tasks[url]?.state }

    public func progress(of url: String) -> Double {
        guard let task = tasks[url] else { return 0 }
        if let now = live.byTask[url], let expected = now.expected, expected > 0 {
            return min(1, Double(now.received) / Double(expected))
        }
        return task.progress
    }

    /// Says what happened to a task (its details and `tdl list` show it): a hook that could not run.
    public func addNote(_ text: String, toTask url: String) {
        guard tasks[url] != nil else { return }
        tasks[url]?.note = text
        markDirty(url)
        emit(.taskChanged(url))
    }

    /// Tasks of the list (not the trash) by state.
    public var counts: [TaskState: Int] { tasks.countsByState }
}
