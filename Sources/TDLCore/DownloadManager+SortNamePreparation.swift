import Dispatch

/// Where the preparation of sort names stands: a place in the list of one revision.
struct SortNamePreparation {
    var revision = -1
    var section = 0
    var row = 0
    var isDone = false
}

extension DownloadManager {
    /// Prepares the sort names of listed tasks for at most `seconds`, from where the last call
    /// stopped; returns whether some are left. The screen calls it while it waits for keys, so
    /// that a switch to the name or type sort does not fold a million names then (about half
    /// a second). A change to the list starts the walk again: tasks already prepared cost a
    /// lookup each.
    public func prepareSortNames(for seconds: Double) -> Bool {
        // The name and type sorts keep every listed task's name themselves.
        if let key = list.arrangement.sortKey, key == .fileName || key == .fileType { return false }
        if sortNamePreparation.revision != list.revision {
            sortNamePreparation = SortNamePreparation(revision: list.revision)
        }
        guard !sortNamePreparation.isDone else { return false }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        var place = sortNamePreparation
        let sections = list.sections
        tasks.preparingSortNames { table in
            var checked = 0
            while place.section < sections.count {
                let urls = sections[place.section]
                while place.row < urls.count {
                    table[urls[place.row]]?.prepareSortName()
                    place.row += 1
                    checked += 1
                    if checked % 512 == 0 && DispatchTime.now().uptimeNanoseconds >= deadline { return }
                }
                place.section += 1
                place.row = 0
            }
            place.isDone = true
        }
        sortNamePreparation = place
        return !place.isDone
    }
}
