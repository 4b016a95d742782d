import Foundation

/// Sorting, sectioning and manual arrangement of `downloadList`.
extension DownloadManager {
    var sorter: ListSorter {
        // Only the add-time sections need the day; the calendar's first use loads locale data.
        let byDay = settings.sortType == .addTime && settings.sectioning.isOn(for: .addTime)
        return ListSorter(type: settings.sortType, order: settings.sortOrder, sectioning: settings.sectioning,
                          hidingExtension: settings.hiddenFileExtension, startOfToday: byDay ? today().start : .distantPast)
    }

    /// The current day, asked of the calendar again only once the clock leaves it: every list
    /// change builds a sorter, and the calendar is slow on Linux.
    func today() -> DateInterval {
        let now = clock()
        if let cached = currentDay, cached.start <= now && now < cached.end { return cached }
        let day = Calendar.current.dateInterval(of: .day, for: now) ?? DateInterval(start: now, duration: 0)
        currentDay = day
        return day
    }

    func listChanged() {
        indexCache = nil
        if sortType == .manual { layoutDirty = true }
    }

    /// Recomputes the whole list for a predefined sort.
    func rebuildList() {
        guard sortType != .manual else { return }
        let arranged = sorter.arrange(&tasks)
        sections = arranged.sections
        titles = arranged.titles
        listChanged()
    }

    /// The name and type sorts compare tasks' folded names: fold each once and keep it.
    func prepareSortNames(_ urls: some Sequence<String>) {
        guard sortType == .fileName || sortType == .fileType else { return }
        for url in urls { tasks[url]?.prepareSortName() }
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
        titles = Array(layout.titles.prefix(sections.count))
        if sections.isEmpty { sections = [[]]; titles = [Self.placeholderTitle] }
        while titles.count < sections.count { titles.append(Self.placeholderTitle) }
        // A task the layout lost (should not happen) is still shown rather than hidden.
        let orphans = tasks.values.filter { $0.deletedAt == nil && !seen.contains($0.url) }
            .sorted { ($0.addTime, $0.url) < ($1.addTime, $1.url) }.map(\.url)
        sections[sections.count - 1].append(contentsOf: orphans)
        listChanged()
    }

    static let placeholderTitle = "Downloads"

    /// Inserts new tasks where the current predefined sort puts them: one binary search per
    /// new task and one merge per touched section, instead of a whole re-sort.
    func insertSorted(_ newTasks: [DownloadTask]) {
        guard !newTasks.isEmpty else { return }
        let sorter = self.sorter
        if sections.allSatisfy({ $0.isEmpty }) || !sectionsAreCurrent(sorter) {
            rebuildList()  // the new tasks are in `tasks` already
            return
        }
        prepareSortNames(newTasks.lazy.map(\.url))
        let keys = newTasks.map { sorter.taskKey(of: tasks[$0.url] ?? $0) }.sorted(by: sorter.precedes)
        var start = 0
        while start < keys.count {
            var end = start + 1
            while end < keys.count && keys[end].rank == keys[start].rank { end += 1 }
            let section = sectionIndex(forRank: keys[start].rank, sorter)
            sections[section] = merged(sections[section], keys[start ..< end], sorter)
            start = end
        }
        listChanged()
    }

    /// The section holding tasks of `rank`, created in its place if missing.
    func sectionIndex(forRank rank: Int, _ sorter: ListSorter) -> Int {
        guard sorter.isSectioned else {
            if sections.isEmpty { sections = [[]]; titles = [""] }
            return 0
        }
        let title = sorter.title(ofRank: rank)
        if let existing = titles.firstIndex(of: title) { return existing }
        let index = titles.firstIndex { other in
            guard let otherRank = sorter.rank(ofTitle: other) else { return false }
            return sorter.rankPrecedes(rank, otherRank)
        } ?? sections.count
        sections.insert([], at: index)
        titles.insert(title, at: index)
        return index
    }

    /// False when the sections no longer match their titles: add-time sections go stale when
    /// the day changes ("Today" becomes "Yesterday"). Membership is monotonic in add time, so
    /// checking the first and last task of each section is enough.
    func sectionsAreCurrent(_ sorter: ListSorter) -> Bool {
        guard sorter.isSectioned, sorter.type == .addTime else { return true }
        for (section, title) in zip(sections, titles) {
            for url in [section.first, section.last].compactMap({ $0 }) {
                guard let task = tasks[url],
                      sorter.title(ofRank: sorter.addTimeRank(task.addTime.timeIntervalSinceReferenceDate)) == title
                else { return false }
            }
        }
        return true
    }

    /// `existing` (sorted) with `sortedNew` merged in.
    func merged(_ existing: [String], _ sortedNew: ArraySlice<ListSorter.TaskKey>, _ sorter: ListSorter) -> [String] {
        // Insertion points, non-decreasing because the new keys are sorted.
        var positions: [Int] = []
        positions.reserveCapacity(sortedNew.count)
        var low = 0
        for key in sortedNew {
            var high = existing.count
            while low < high {
                let mid = (low + high) / 2
                if let task = tasks[existing[mid]], sorter.precedes(sorter.taskKey(of: task), key) {
                    low = mid + 1
                } else {
                    high = mid
                }
            }
            positions.append(low)
        }
        if sortedNew.count <= 8 {
            // A few inserts are memmoves; cheaper than copying every URL.
            var result = existing
            for (key, position) in zip(sortedNew, positions).reversed() { result.insert(key.url, at: position) }
            return result
        }
        var result: [String] = []
        result.reserveCapacity(existing.count + sortedNew.count)
        var next = 0
        for (key, position) in zip(sortedNew, positions) {
            result.append(contentsOf: existing[next ..< position])
            result.append(key.url)
            next = position
        }
        result.append(contentsOf: existing[next...])
        return result
    }

    /// Moves one task to where the sort now puts it (its name or size became known).
    /// Whether a task's place in the current sort moves when its name or size changes: the
    /// add-time order does not, and a download's first answer should not cost a re-insert.
    func placeDepends(nameChanged: Bool, sizeChanged: Bool) -> Bool {
        switch sortType {
        case .manual, .addTime: return false
        case .fileName, .fileType: return nameChanged
        case .fileSize: return sizeChanged
        }
    }

    func reposition(_ url: String) {
        guard sortType != .manual, let index = indexPath(of: url), let task = tasks[url] else { return }
        removeFromList(at: index)
        insertSorted([task])
        emit(.listChanged)
    }

    /// Removes a row; an emptied section disappears in predefined mode, stays in manual mode.
    func removeFromList(at index: ListIndex) {
        sections[index.section].remove(at: index.row)
        dropEmptySections()
        listChanged()
    }

    /// Removes many rows in one pass per section (one index-map build, not one per row).
    /// Returns each removed URL with its place before the removal, in the order given.
    func removeFromList(_ urls: [String]) -> [(url: String, from: ListIndex)] {
        var seen = Set<String>()
        var removed: [(url: String, from: ListIndex)] = []
        for url in urls where seen.insert(url).inserted {
            if let index = indexPath(of: url) { removed.append((url, index)) }
        }
        guard !removed.isEmpty else { return [] }
        var rowsBySection: [Int: [Int]] = [:]
        for item in removed { rowsBySection[item.from.section, default: []].append(item.from.row) }
        for (section, rows) in rowsBySection {
            if rows.count == sections[section].count {
                sections[section] = []
                continue
            }
            let doomed = Set(rows)
            var kept: [String] = []
            kept.reserveCapacity(sections[section].count - rows.count)
            for (row, url) in sections[section].enumerated() where !doomed.contains(row) { kept.append(url) }
            sections[section] = kept
        }
        dropEmptySections()
        listChanged()
        return removed
    }

    /// Predefined sorts show no empty sections; an empty list is one untitled empty section.
    func dropEmptySections() {
        guard sortType != .manual else { return }
        var index = sections.count - 1
        while index >= 0 {
            if sections[index].isEmpty {
                sections.remove(at: index)
                titles.remove(at: index)
            }
            index -= 1
        }
        if sections.isEmpty {
            sections = [[]]
            titles = [""]
        }
    }

    /// Inserts at `index`, clamped into the list (SDE leaves checking the place to the caller).
    func insertManual(_ urls: [String], at index: ListIndex) {
        if sections.isEmpty { sections = [[]]; titles = [Self.placeholderTitle] }
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
        emit(.listChanged)
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
            emit(.listChanged)
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
        emit(.listChanged)
    }

    // MARK: - Manual mode

    /// Adds URLs as a new titled section at `section` (manual mode only).
    @discardableResult
    public func add(_ urls: [String], inManualModeAtSection section: Int, withTitle title: String) -> AddResult? {
        guard sortType == .manual, section >= 0, section <= sections.count else { return nil }
        // No section for a batch where nothing is new (SDE returns false and inserts nothing).
        var seen = Set<String>()
        guard urls.contains(where: { raw in
            let url = String(raw.trimmingWhitespace())
            return URLCheck.problem(with: url) == nil && tasks[url] == nil && seen.insert(url).inserted
        }) else { return nil }
        guard insertPlaceHolderSection(at: section, withTitle: title) else { return nil }
        return add(urls, at: ListIndex(section: section, row: 0))
    }

    /// SDE's multi-section insert: one new titled section per URL group, starting at `section`.
    /// Groups with nothing new get no section. Returns the inserted sections' indexes.
    @discardableResult
    public func add(_ groups: [[String]], inManualModeAtSection section: Int, withTitles titles: [String]) -> [Int]? {
        guard sortType == .manual, section >= 0, section <= sections.count, titles.count >= groups.count else { return nil }
        var inserted: [Int] = []
        for (group, title) in zip(groups, titles) {
            let target = section + inserted.count
            if let result = add(group, inManualModeAtSection: target, withTitle: title), !result.added.isEmpty {
                inserted.append(target)
            }
        }
        return inserted.isEmpty ? nil : inserted
    }

    /// Inserts an empty titled section (manual mode only).
    @discardableResult
    public func insertPlaceHolderSection(at section: Int, withTitle title: String) -> Bool {
        guard sortType == .manual, section >= 0, section <= sections.count else { return false }
        sections.insert([], at: section)
        titles.insert(title, at: section)
        listChanged()
        emit(.listChanged)
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
        emit(.listChanged)
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
        emit(.listChanged)
        return true
    }

    /// Renames a section (manual mode only).
    @discardableResult
    public func changeTitleOfSection(_ section: Int, to title: String) -> Bool {
        guard sortType == .manual, titles.indices.contains(section) else { return false }
        titles[section] = title
        listChanged()
        emit(.listChanged)
        return true
    }

    /// Shows `name` instead of the file name (nil or empty goes back to the file name).
    public func changeDisplayNameOfTask(_ url: String, to name: String?) {
        guard let task = tasks[url], task.deletedAt == nil else { return }
        let clean = name.flatMap { $0.isEmpty ? nil : $0 }
        tasks[url]!.customDisplayName = clean
        markDirty(url)
        if sortType == .fileName || sortType == .fileType { reposition(url) }
        emit(.taskChanged(url))
    }
}
