import Foundation

/// The list as the user sees it: sections of URLs with their titles, how they are arranged, and
/// where each URL is. The tasks stay with the manager: what places a task by a sort reads it
/// from `tasks`, and keeps there the sort names it prepares.
///
/// Sorted, the sections are the sort's and an emptied one goes; arranged by hand they are the
/// user's, and an emptied one stays. There is always a section: an empty list is one empty section.
struct ListModel {
    private(set) var arrangement: Arrangement
    private(set) var sections: [[String]] = [[]]
    private(set) var titles: [String]
    /// Where each listed URL is: built at the first lookup after a change, so a batch of changes
    /// to 100,000 tasks pays for one build at most.
    private var indexCache: [String: ListIndex]?
    /// Goes up at every change, so a copy kept elsewhere (the saved layout) can tell it is behind.
    private(set) var revision = 0

    /// The title of the section a list arranged by hand starts with (and of a custom sort's tasks without a trait).
    static let placeholderTitle = "Downloads"

    init(arrangement: Arrangement) {
        self.arrangement = arrangement
        titles = [arrangement.isManual ? Self.placeholderTitle : ""]
    }

    private mutating func changed() {
        indexCache = nil
        revision += 1
    }

    // MARK: - Reading

    func url(at index: ListIndex) -> String? {
        guard sections.indices.contains(index.section), sections[index.section].indices.contains(index.row) else { return nil }
        return sections[index.section][index.row]
    }

    /// Nil for a URL that is not listed. O(1) amortized (see `indexCache`).
    mutating func indexPath(of url: String) -> ListIndex? {
        if indexCache == nil {
            var map: [String: ListIndex] = [:]
            map.reserveCapacity(sections.reduce(0) { $0 + $1.count })
            for (s, section) in sections.enumerated() {
                for (r, u) in section.enumerated() { map[u] = ListIndex(section: s, row: r) }
            }
            indexCache = map
        }
        return indexCache![url]
    }

    /// The sections and titles, as an arrangement by hand is saved.
    var layout: ManualLayout { ManualLayout(sections: sections, titles: titles) }

    // MARK: - Arranging

    /// Sorts every task of `tasks` not in the trash by `sorter`'s key and order (see
    /// `ListSorter.arrange` for `keepingSortNames`).
    mutating func sort(by sorter: ListSorter, tasks: inout [String: DownloadTask], keepingSortNames: Bool = true) {
        arrangement = .sorted(sorter.key, sorter.order)
        (sections, titles) = sorter.arrange(&tasks, keepingSortNames: keepingSortNames)
        changed()
    }

    /// SDE's switch to manual mode: a sorted list becomes one section with a placeholder title,
    /// in the order it was shown. A list already arranged by hand stays as it is.
    mutating func arrangeManually() {
        guard !arrangement.isManual else { return }
        arrangement = .manual
        sections = [sections.flatMap { $0 }]
        titles = [Self.placeholderTitle]
        changed()
    }

    /// Arranges by hand as `layout` says (a saved layout, a custom sort's). What it names that is
    /// unknown, in the trash or repeated is left out; a listed task it lost (should not happen)
    /// is still shown, at the end, rather than hidden.
    mutating func adopt(_ layout: ManualLayout, tasks: [String: DownloadTask]) {
        arrangement = .manual
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
        let orphans = tasks.values.filter { $0.deletedAt == nil && !seen.contains($0.url) }
            .sorted { ($0.addTime, $0.url) < ($1.addTime, $1.url) }.map(\.url)
        sections[sections.count - 1].append(contentsOf: orphans)
        changed()
    }

    // MARK: - Sorted

    /// Lists tasks of `tasks` where the sort puts them: one binary search per task and one merge
    /// per touched section, instead of a whole re-sort. `sorter` is the list's own arrangement's.
    mutating func insertSorted(_ urls: [String], by sorter: ListSorter, tasks: inout [String: DownloadTask]) {
        assert(arrangement == .sorted(sorter.key, sorter.order), "a sorter for another arrangement")
        guard !urls.isEmpty else { return }
        if sections.allSatisfy({ $0.isEmpty }) || !sectionsAreCurrent(sorter, tasks) {
            sort(by: sorter, tasks: &tasks)
            return
        }
        // Folded once and kept with the task, for this insert and every later sort.
        if sorter.comparesNames { for url in urls { tasks[url]?.prepareSortName() } }
        let keys = urls.compactMap { tasks[$0].map(sorter.taskKey) }.sorted(by: sorter.precedes)
        var start = 0
        while start < keys.count {
            var end = start + 1
            while end < keys.count && keys[end].rank == keys[start].rank { end += 1 }
            let section = sectionIndex(forRank: keys[start].rank, sorter)
            sections[section] = merged(sections[section], keys[start ..< end], sorter, tasks)
            start = end
        }
        changed()
    }

    /// Moves a listed task to where the sort now puts it (its name, type or size changed).
    /// False when it is not listed.
    mutating func reposition(_ url: String, by sorter: ListSorter, tasks: inout [String: DownloadTask]) -> Bool {
        guard tasks[url] != nil, !remove([url]).isEmpty else { return false }
        insertSorted([url], by: sorter, tasks: &tasks)
        return true
    }

    /// The section holding tasks of `rank`, created in its place if missing.
    private mutating func sectionIndex(forRank rank: Int, _ sorter: ListSorter) -> Int {
        guard sorter.isSectioned else { return 0 }
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
    private func sectionsAreCurrent(_ sorter: ListSorter, _ tasks: [String: DownloadTask]) -> Bool {
        guard sorter.isSectioned, sorter.key == .addTime else { return true }
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
    private func merged(_ existing: [String], _ sortedNew: ArraySlice<ListSorter.TaskKey>, _ sorter: ListSorter,
                        _ tasks: [String: DownloadTask]) -> [String] {
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

    /// Sorted lists show no empty sections; an empty list is one untitled empty section.
    private mutating func dropEmptySections() {
        guard !arrangement.isManual else { return }
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

    // MARK: - By hand

    /// Inserts at `index`, clamped into the list (SDE leaves checking the place to the caller).
    mutating func insertManual(_ urls: [String], at index: ListIndex) {
        assert(arrangement.isManual, "a sorted list places its tasks itself")
        let section = min(max(index.section, 0), sections.count - 1)
        let row = min(max(index.row, 0), sections[section].count)
        sections[section].insert(contentsOf: urls, at: row)
        changed()
    }

    /// Inserts an empty titled section. False when sorted or `section` is out of range.
    mutating func insertSection(at section: Int, titled title: String) -> Bool {
        guard arrangement.isManual, section >= 0, section <= sections.count else { return false }
        sections.insert([], at: section)
        titles.insert(title, at: section)
        changed()
        return true
    }

    /// Inserts a titled section whose first row is `index` (SDE's insert at an index path): the
    /// rows from there on move into it; at row 0 it is an empty section before that one.
    /// False when sorted or the place does not exist.
    mutating func insertSection(at index: ListIndex, titled title: String) -> Bool {
        guard arrangement.isManual, sections.indices.contains(index.section),
              index.row >= 0, index.row <= sections[index.section].count else { return false }
        guard index.row > 0 else { return insertSection(at: index.section, titled: title) }
        let moved = Array(sections[index.section][index.row...])
        sections[index.section].removeSubrange(index.row...)
        sections.insert(moved, at: index.section + 1)
        titles.insert(title, at: index.section + 1)
        changed()
        return true
    }

    /// Removes an empty section. False when sorted, when it holds tasks, or when it is the only one.
    mutating func removeEmptySection(_ section: Int) -> Bool {
        guard arrangement.isManual, sections.indices.contains(section), sections[section].isEmpty, sections.count > 1 else { return false }
        sections.remove(at: section)
        titles.remove(at: section)
        changed()
        return true
    }

    /// False when sorted or either place does not exist.
    mutating func moveTask(at from: ListIndex, to destination: ListIndex) -> Bool {
        guard arrangement.isManual, let url = url(at: from), sections.indices.contains(destination.section) else { return false }
        let limit = sections[destination.section].count - (from.section == destination.section ? 1 : 0)
        guard destination.row >= 0, destination.row <= limit else { return false }
        sections[from.section].remove(at: from.row)
        sections[destination.section].insert(url, at: destination.row)
        changed()
        return true
    }

    /// False when sorted (the sort titles the sections) or the section does not exist.
    mutating func renameSection(_ section: Int, to title: String) -> Bool {
        guard arrangement.isManual, titles.indices.contains(section) else { return false }
        titles[section] = title
        changed()
        return true
    }

    // MARK: - Removing

    /// Removes listed URLs in one pass per section (one index-map build, not one per row).
    /// Returns each removed URL with its place before the removal, in the order given.
    mutating func remove(_ urls: [String]) -> [(url: String, from: ListIndex)] {
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
        changed()
        return removed
    }
}
