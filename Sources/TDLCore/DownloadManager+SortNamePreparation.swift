import Dispatch

/// How far the preparation of sort names got: a walk over the list as it was when it began,
/// then the tasks listed since.
struct SortNamePreparation {
    /// The list when the walk began; nil before it began and after it ended.
    var sections: [[String]]?
    var section = 0
    var row = 0
    var walked = false
    /// Tasks listed since the walk began, not yet prepared.
    var listed: [String] = []

    var isDone: Bool { walked && listed.isEmpty }

    /// Notes tasks new to the list, once a walk has begun (before, the walk will see them).
    mutating func note(listed urls: [String]) {
        if sections != nil || walked { listed.append(contentsOf: urls) }
    }
}

extension DownloadManager {
    /// Prepares the sort names of listed tasks for at most `seconds`, from where the last call
    /// stopped; returns whether some are left. The screen calls it while it waits for keys, so
    /// that a switch to the name or type sort does not fold a million names then (about half
    /// a second). Once every task of the list has been visited, only tasks listed since are;
    /// a name that changes keeps its sort name current itself.
    public func prepareSortNames(for seconds: Double) -> Bool {
        // The name and type sorts keep every listed task's sort name themselves.
        if let key = list.arrangement.sortKey, key == .fileName || key == .fileType, sortNamePreparation.sections == nil {
            sortNamePreparation.walked = true
        }
        guard !sortNamePreparation.isDone else { return false }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        var place = sortNamePreparation
        sortNamePreparation = SortNamePreparation()  // not shared with `place` while it changes
        tasks.preparingSortNames { table in
            var checked = 0
            func outOfTime() -> Bool {
                checked += 1
                return checked % 512 == 0 && DispatchTime.now().uptimeNanoseconds >= deadline
            }
            if !place.walked {
                let sections = place.sections ?? list.sections
                place.sections = sections
                while place.section < sections.count {
                    let urls = sections[place.section]
                    while place.row < urls.count {
                        table[urls[place.row]]?.prepareSortName()
                        place.row += 1
                        if outOfTime() { return }
                    }
                    place.section += 1
                    place.row = 0
                }
                place.walked = true
                place.sections = nil
            }
            while let url = place.listed.popLast() {
                table[url]?.prepareSortName()
                if outOfTime() { return }
            }
        }
        sortNamePreparation = place
        return !place.isDone
    }
}
