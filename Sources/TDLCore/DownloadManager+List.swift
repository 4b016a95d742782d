import Foundation

/// Sorting, sectioning and manual arrangement of `downloadList`.
extension DownloadManager {
    var sorter: ListSorter {
        ListSorter(type: settings.sortType, order: settings.sortOrder, sectioning: settings.sectioning,
                   hidingExtension: settings.hiddenFileExtension, now: clock())
    }

    func listChanged() {
        indexCache = nil
        if sortType == .manual { layoutDirty = true }
    }

    /// Recomputes the whole list for a predefined sort.
    func rebuildList() {
        guard sortType != .manual else { return }
        let arranged = sorter.arrange(tasks.values.lazy.filter { $0.deletedAt == nil })
        sections = arranged.sections
        titles = arranged.titles
        listChanged()
    }

    func applyManualLayout(_ layout: ManualLayout) {
        var seen = Set<String>()
        sections = layout.sections.map { section in
            section.filter { url in
                guard let task = tasks[url], task.deletedAt == nil, !seen.contains(url) else { return false }
                seen.insert(url)
                return true
            }
        }
        titles = layout.titles
        if sections.isEmpty { sections = [[]]; titles = [Self.placeholderTitle] }
        while titles.count < sections.count { titles.append(Self.placeholderTitle) }
        // A task the layout lost (should not happen) is still shown rather than hidden.
        let orphans = tasks.values.filter { $0.deletedAt == nil && !seen.contains($0.url) }
            .sorted { ($0.addTime, $0.url) < ($1.addTime, $1.url) }.map(\.url)
        sections[sections.count - 1].append(contentsOf: orphans)
        listChanged()
    }

    static let placeholderTitle = "Downloads"

    /// Inserts new tasks where the current predefined sort puts them, merging instead of re-sorting.
    func insertSorted(_ newTasks: [DownloadTask]) {
        let sorter = self.sorter
        if sections.count == 1 && sections[0].isEmpty {
            let arranged = sorter.arrange(newTasks)
            sections = arranged.sections
            titles = arranged.titles
            listChanged()
            return
        }
        var groups: [ListSorter.SectionKey: [ListSorter.TaskKey]] = [:]
        for task in newTasks { groups[sorter.sectionKey(of: task), default: []].append(sorter.taskKey(of: task)) }
        for (key, newKeys) in groups {
            let sortedNew = newKeys.sorted(by: sorter.precedes)
            let sectionIndex: Int
            if let existing = titles.firstIndex(of: key.title) {
                sectionIndex = existing
            } else {
                let keys = sectionKeys(sorter)
                sectionIndex = keys.firstIndex { sorter.sectionPrecedes(key, $0) } ?? sections.count
                sections.insert([], at: sectionIndex)
                titles.insert(key.title, at: sectionIndex)
            }
            sections[sectionIndex] = merge(sections[sectionIndex], sortedNew, sorter)
        }
        listChanged()
    }

    /// The section keys of the current list, recomputed from a task of each section.
    func sectionKeys(_ sorter: ListSorter) -> [ListSorter.SectionKey] {
        zip(sections, titles).map { section, title in
            if let first = section.first, let task = tasks[first] { return sorter.sectionKey(of: task) }
            return ListSorter.SectionKey(rank: 0, title: title)
        }
    }

    func merge(_ existing: [String], _ sortedNew: [ListSorter.TaskKey], _ sorter: ListSorter) -> [String] {
        if sortedNew.count < 16 {
            var result = existing
            for key in sortedNew {
                var low = 0, high = result.count
                while low < high {
                    let mid = (low + high) / 2
                    if sorter.precedes(sorter.taskKey(of: tasks[result[mid]]!), key) { low = mid + 1 } else { high = mid }
                }
                result.insert(key.url, at: low)
            }
            return result
        }
        var result: [String] = []
        result.reserveCapacity(existing.count + sortedNew.count)
        var i = 0, j = 0
        while i < existing.count && j < sortedNew.count {
            if sorter.precedes(sortedNew[j], sorter.taskKey(of: tasks[existing[i]]!)) {
                result.append(sortedNew[j].url); j += 1
            } else {
                result.append(existing[i]); i += 1
            }
        }
        result.append(contentsOf: existing[i...])
        result.append(contentsOf: sortedNew[j...].map(\.url))
        return result
    }

    /// Moves one task to where the sort now puts it (its name or size became known).
    func reposition(_ url: String) {
        guard let index = indexPath(of: url), let task = tasks[url] else { return }
        removeFromList(at: index)
        insertSorted([task])
        onEvent?(.listChanged)
    }

    /// Removes a row; an emptied section disappears in predefined mode, stays in manual mode.
    func removeFromList(at index: ListIndex) {
        sections[index.section].remove(at: index.row)
        if sortType != .manual && sections[index.section].isEmpty && sections.count > 1 {
            sections.remove(at: index.section)
            titles.remove(at: index.section)
        }
        listChanged()
    }

    func insertManual(_ urls: [String], at index: ListIndex) {
        let section = min(max(index.section, 0), sections.count - 1)
        let row = min(max(index.row, 0), sections[section].count)
        sections[section].insert(contentsOf: urls, at: row)
        listChanged()
    }

    // MARK: - Sorting

    /// SDE's mode switches: manual → predefined loses the section titles; predefined → manual
    /// merges everything into one section with a placeholder title.
    public func sortListBy(type: SortType, order: SortOrder = .ascending) {
        let wasManual = sortType == .manual
        settings.sortType = type
        settings.sortOrder = order
        markSettingsDirty()
        if type == .manual {
            if !wasManual {
                sections = [sections.flatMap { $0 }]
                titles = [Self.placeholderTitle]
            }
            listChanged()
        } else {
            rebuildList()
        }
        onEvent?(.listChanged)
    }

    /// Turns sectioning on or off for a predefined sort and re-sorts if it is the current one.
    public func setSectioning(_ on: Bool, for type: SortType) {
        switch type {
        case .addTime: settings.sectioning.addTime = on
        case .fileSize: settings.sectioning.fileSize = on
        case .fileName: settings.sectioning.fileName = on
        case .fileType, .manual: return
        }
        markSettingsDirty()
        if type == sortType {
            rebuildList()
            onEvent?(.listChanged)
        }
    }

    /// SDE's custom sort: tasks with the same trait share a section titled by it (nil trait: a
    /// last section with a placeholder title). The result is a manual arrangement.
    public func sortListBy(order: SortOrder,
                           taskTrait: ((String) -> String?)? = nil,
                           traitAscending: ((String, String) -> Bool)? = nil,
                           taskAscending: (String, String) -> Bool) {
        let all = sections.flatMap { $0 }
        var groups: [String: [String]] = [:]
        var untitled: [String] = []
        for url in all {
            if let trait = taskTrait?(url) { groups[trait, default: []].append(url) } else { untitled.append(url) }
        }
        let ascendingTraits = groups.keys.sorted(by: traitAscending ?? { $0 < $1 })
        let orderedTraits = order == .ascending ? ascendingTraits : ascendingTraits.reversed()
        func sortTasks(_ list: [String]) -> [String] {
            let up = list.sorted(by: taskAscending)
            return order == .ascending ? up : up.reversed()
        }
        var newSections = orderedTraits.map { sortTasks(groups[$0]!) }
        var newTitles = orderedTraits
        if !untitled.isEmpty || newSections.isEmpty {
            newSections.append(sortTasks(untitled))
            newTitles.append(Self.placeholderTitle)
        }
        settings.sortType = .manual
        settings.sortOrder = order
        markSettingsDirty()
        sections = newSections
        titles = newTitles
        listChanged()
        onEvent?(.listChanged)
    }

    // MARK: - Manual mode

    /// Adds URLs as a new titled section at `section` (manual mode only).
    @discardableResult
    public func add(_ urls: [String], inManualModeAtSection section: Int, withTitle title: String) -> AddResult? {
        guard sortType == .manual, section >= 0, section <= sections.count else { return nil }
        guard insertPlaceHolderSection(at: section, withTitle: title) else { return nil }
        return add(urls, at: ListIndex(section: section, row: 0))
    }

    /// Inserts an empty titled section (manual mode only).
    @discardableResult
    public func insertPlaceHolderSection(at section: Int, withTitle title: String) -> Bool {
        guard sortType == .manual, section >= 0, section <= sections.count else { return false }
        sections.insert([], at: section)
        titles.insert(title, at: section)
        listChanged()
        onEvent?(.listChanged)
        return true
    }

    /// Moves one task (manual mode only). Returns false when either place does not exist.
    @discardableResult
    public func moveTask(at from: ListIndex, to destination: ListIndex) -> Bool {
        guard sortType == .manual, let url = url(at: from),
              sections.indices.contains(destination.section) else { return false }
        let limit = sections[destination.section].count - (from.section == destination.section ? 1 : 0)
        guard destination.row >= 0, destination.row <= limit else { return false }
        sections[from.section].remove(at: from.row)
        sections[destination.section].insert(url, at: destination.row)
        listChanged()
        onEvent?(.listChanged)
        return true
    }

    /// Moves a whole section (manual mode only).
    @discardableResult
    public func moveTasks(inSection section: Int, to newSection: Int) -> Bool {
        guard sortType == .manual, sections.indices.contains(section), sections.indices.contains(newSection) else { return false }
        let moved = sections.remove(at: section)
        let title = titles.remove(at: section)
        sections.insert(moved, at: newSection)
        titles.insert(title, at: newSection)
        listChanged()
        onEvent?(.listChanged)
        return true
    }

    /// Renames a section (manual mode only).
    @discardableResult
    public func changeTitleOfSection(_ section: Int, to title: String) -> Bool {
        guard sortType == .manual, titles.indices.contains(section) else { return false }
        titles[section] = title
        listChanged()
        onEvent?(.listChanged)
        return true
    }

    /// Shows `name` instead of the file name (nil or empty goes back to the file name).
    public func changeDisplayNameOfTask(_ url: String, to name: String?) {
        guard tasks[url] != nil else { return }
        let clean = name.flatMap { $0.isEmpty ? nil : $0 }
        tasks[url]!.customDisplayName = clean
        markDirty(url)
        if sortType == .fileName || sortType == .fileType { reposition(url) }
        onEvent?(.taskChanged(url))
    }
}
