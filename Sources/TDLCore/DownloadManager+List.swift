import Foundation

/// Arranging the list: the public front of `ListModel`, and what it needs from the manager
/// (the tasks, the sorting settings, the day).
extension DownloadManager {
    /// The sorter for a predefined key and order, with the session's sectioning and names.
    func sorter(_ key: SortKey, _ order: SortOrder) -> ListSorter {
        // Only the add-time sections need the day; the calendar's first use loads locale data.
        let byDay = key == .addTime && settings.sectioning.isOn(for: .addTime)
        return ListSorter(key: key, order: order, sectioning: settings.sectioning,
                          startOfToday: byDay ? today().start : .distantPast,
                          queueNames: key == .queue ? queueSectionNames() : [])
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

    /// Sorts the whole list again (the sectioning or the names changed); arranged by hand, nothing moves.
    func resort() {
        guard case .sorted(let key, let order) = list.arrangement else { return }
        let placing = sorter(key, order)  // made before the table is lent out: it may read it
        tasks.preparingSortNames { list.sort(by: placing, tasks: &$0) }
    }

    /// Lists tasks that are new to the list (added, restored): where the sort puts them, or at
    /// `manualIndex` when arranged by hand.
    func place(_ urls: [String], atManualIndex manualIndex: ListIndex) {
        switch list.arrangement {
        case .manual: list.insertManual(urls, at: manualIndex)
        case .sorted(let key, let order):
            let placing = sorter(key, order)
            tasks.preparingSortNames { list.insertSorted(urls, by: placing, tasks: &$0) }
        }
        sortNamePreparation.note(listed: urls)
    }

    /// Whether a task's place in the current sort moves when its name or size changes: the
    /// add-time order does not, and a download's first answer should not cost a re-insert.
    func placeDepends(nameChanged: Bool, sizeChanged: Bool) -> Bool {
        guard case .sorted(let key, _) = list.arrangement else { return false }
        switch key {
        case .addTime: return false
        case .fileName, .fileType: return nameChanged
        case .fileSize: return sizeChanged
        case .queue: return false
        }
    }

    /// Moves one task to where the sort now puts it (its name or size became known).
    func reposition(_ url: String) {
        guard case .sorted(let key, let order) = list.arrangement else { return }
        let placing = sorter(key, order)
        guard tasks.preparingSortNames({ list.reposition(url, by: placing, tasks: &$0) }) else { return }
        emit(.listChanged)
    }

    /// The list's arrangement changed: the settings save it.
    func arrangementChanged() {
        settings.arrangement = list.arrangement
        markSettingsDirty()
        emit(.listChanged)
    }

    // MARK: - Arranging

    /// SDE's mode switches: by hand → sorted loses the section titles; sorted → by hand
    /// merges everything into one section with a placeholder title.
    public func arrange(_ arrangement: Arrangement) {
        switch arrangement {
        case .manual: list.arrangeManually()
        case .sorted(let key, let order):
            let placing = sorter(key, order)
            tasks.preparingSortNames { list.sort(by: placing, tasks: &$0) }
        }
        arrangementChanged()
    }

    /// SDE's predefined sort.
    public func sortListBy(type key: SortKey, order: SortOrder = .ascending) {
        arrange(.sorted(key, order))
    }

    /// Turns sectioning on or off for a predefined sort and re-sorts if it is the current one.
    public func setSectioning(_ on: Bool, for key: SortKey) {
        switch key {
        case .addTime: settings.sectioning.addTime = on
        case .fileSize: settings.sectioning.fileSize = on
        case .fileName: settings.sectioning.fileName = on
        case .fileType, .queue: return
        }
        markSettingsDirty()
        if key == list.arrangement.sortKey {
            resort()
            emit(.listChanged)
        }
    }

    // MARK: - Manual mode

    /// Adds URLs as a new titled section at `section` (manual mode only).
    @discardableResult
    public func add(_ urls: [String], inManualModeAtSection section: Int, withTitle title: String) -> AddResult? {
        guard list.arrangement.isManual, section >= 0, section <= list.sections.count else { return nil }
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
        guard list.arrangement.isManual, section >= 0, section <= list.sections.count, titles.count >= groups.count else { return nil }
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
    func insertPlaceHolderSection(at section: Int, withTitle title: String) -> Bool {
        reportingListChange(list.insertSection(at: section, titled: title))
    }

    /// Inserts a titled section starting at `index` (manual mode only): the tasks from that row
    /// on move into it; at row 0 it is an empty section before that section.
    @discardableResult
    public func insertSection(at index: ListIndex, withTitle title: String) -> Bool {
        reportingListChange(list.insertSection(at: index, titled: title))
    }

    /// Removes a section without tasks (manual mode only); the last section stays.
    @discardableResult
    public func removeEmptySection(_ section: Int) -> Bool {
        reportingListChange(list.removeEmptySection(section))
    }

    /// Moves one task (manual mode only). Returns false when either place does not exist.
    @discardableResult
    public func moveTask(at from: ListIndex, to destination: ListIndex) -> Bool {
        reportingListChange(list.moveTask(at: from, to: destination))
    }

    /// Renames a section (manual mode only).
    @discardableResult
    public func changeTitleOfSection(_ section: Int, to title: String) -> Bool {
        reportingListChange(list.renameSection(section, to: title))
    }

    /// Tells the observers of a change to the list, if there was one; returns whether there was.
    private func reportingListChange(_ done: Bool) -> Bool {
        if done { emit(.listChanged) }
        return done
    }

    /// Shows `name` instead of the file name (nil or empty goes back to the file name).
    public func changeDisplayNameOfTask(_ url: String, to name: String?) {
        guard let task = tasks[url], task.deletedAt == nil else { return }
        let clean = name.flatMap { $0.isEmpty ? nil : $0 }
        tasks[url]?.customDisplayName = clean
        markDirty(url)
        if placeDepends(nameChanged: true, sizeChanged: false) { reposition(url) }
        emit(.taskChanged(url))
    }
}
