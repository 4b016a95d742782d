import Foundation

/// One byte range of a file and how much of it is durably on disk.
public struct Segment: Equatable, Sendable, Codable {
    public var start: Int64
    /// Exclusive end; `nil` when the total size is unknown (a single open-ended segment).
    public var end: Int64?
    /// Bytes of this segment that are written and fdatasync'ed.
    public var done: Int64

    public init(start: Int64, end: Int64?, done: Int64 = 0) {
        self.start = start
        self.end = end
        self.done = done
    }

    public var isComplete: Bool { end.map { start + done >= $0 } ?? false }
}

/// Everything tdl knows about one download. The URL string is its identity.
///
/// The fields that a launch and every sort read for all tasks are stored in the task itself;
/// the rest live in one box shared by copies of the task until one of them changes (as
/// `Array` does), and the fields most tasks leave unset are allocated only when set
/// (`TaskExtras`). A table of tasks then holds 56 bytes per task: a launch
/// inserts small values, a sort reads the table in order instead of following a pointer per
/// task, and handing a task around costs two retains. The boxed fields read and write as if
/// they were the task's own (`task.fileName`), through `Details`.
@dynamicMemberLookup
public struct DownloadTask: Equatable, Sendable {
    public let url: String
    public var addTime: Date
    /// Total size in bytes; nil while unknown.
    public var size: Int64? {
        get { storedSize == Self.unknownSize ? nil : storedSize }
        set { storedSize = newValue ?? Self.unknownSize }
    }
    /// When the task went to the trash; nil while it is in the list.
    public var deletedAt: Date? {
        get { deletedTime.isNaN ? nil : Date(timeIntervalSinceReferenceDate: deletedTime) }
        set { deletedTime = newValue?.timeIntervalSinceReferenceDate ?? .nan }
    }
    // The two optionals above as plain numbers with a value for nil (Int64.min, NaN): an
    // optional's extra byte, padded, made each entry of a million-task table 16 bytes larger.
    private var storedSize: Int64 = unknownSize
    private var deletedTime: Double = .nan
    private static let unknownSize = Int64.min
    @usableFromInline var box: Box
    public var state: TaskState

    /// The fields that are not needed for every task at once.
    public struct Details: Equatable, Sendable {
        /// The file name on disk (decided from the server's answer; may change before the first byte).
        public var fileName: String { didSet { if fileName != oldValue { refreshSortName() } } }
        /// A name the user chose; shown instead of the file name.
        public var customDisplayName: String? {
            get { extras.get(\.customDisplayName) }
            set {
                guard newValue != customDisplayName else { return }
                extras.set(\.customDisplayName, newValue)
                refreshSortName()
            }
        }
        /// Folder the finished file goes to.
        public var directory: String
        /// Bytes durably on disk (sum of segment `done`).
        public var received: Int64 = 0
        public var mimeType: String? {
            get { extras.get(\.mimeType) }
            set {
                guard newValue != mimeType else { return }
                extras.set(\.mimeType, newValue)
                refreshSortName()
            }
        }
        /// The rest, allocated only once one of them is set.
        fileprivate var extras = TaskExtrasStorage()
        public var failReason: FailReason? {
            get { extras.get(\.failReason) }
            set { extras.set(\.failReason, newValue) }
        }
        public var finalURL: String? {
            get { extras.get(\.finalURL) }
            set { extras.set(\.finalURL, newValue) }
        }
        public var etag: String? {
            get { extras.get(\.etag) }
            set { extras.set(\.etag, newValue) }
        }
        public var lastModified: String? {
            get { extras.get(\.lastModified) }
            set { extras.set(\.lastModified, newValue) }
        }
        public var segments: [Segment] {
            get { extras.get(\.segments) }
            _modify { yield &extras.mutable.segments }
        }
        /// How many times this task was retried after a transient failure or a checksum mismatch.
        public var retries: Int {
            get { extras.get(\.retries) }
            set { extras.set(\.retries, newValue) }
        }
        /// A note about the last thing that happened ("server ignored Range: restarted from zero").
        public var note: String? {
            get { extras.get(\.note) }
            set { extras.set(\.note, newValue) }
        }
        /// Free-form information a client attached (SDE's meta info).
        public var metaInfo: [String: String] {
            get { extras.get(\.metaInfo) }
            _modify { yield &extras.mutable.metaInfo }
        }
        /// The finished file was renamed into place at this path.
        public var completedPath: String? {
            get { extras.get(\.completedPath) }
            set { extras.set(\.completedPath, newValue) }
        }
        /// What the user asked of this download (folder, name, checksum, limits).
        public var options: DownloadOptions {
            get { extras.get(\.options) }
            _modify { yield &extras.mutable.options }
        }
        /// The user named the file (`-o`): the server's name must not replace it.
        public var userChoseName: Bool { options.fileName != nil }
        /// Derived from the name fields above, filled by `prepareSortName()`: opening a session of
        /// 100,000 tasks sorted by add time should not fold every name. Once prepared it is kept
        /// current when a name field changes.
        fileprivate var preparedSortName = PreparedSortName()

        init(fileName: String, directory: String, customDisplayName: String?, mimeType: String?) {
            self.fileName = fileName
            self.directory = directory
            extras.set(\.customDisplayName, customDisplayName)
            extras.set(\.mimeType, mimeType)
        }

        private mutating func refreshSortName() {
            if preparedSortName.value != nil { preparedSortName.value = makeSortName() }
        }

        private func makeSortName() -> SortName {
            SortName(fileName: fileName, customName: customDisplayName, mimeType: mimeType)
        }

        mutating func prepareSortName() {
            if preparedSortName.value == nil { preparedSortName.value = makeSortName() }
        }

        /// Keeps `name`, made from this task's name fields elsewhere, unless one is kept already.
        mutating func keepSortName(_ name: SortName) {
            if preparedSortName.value == nil { preparedSortName.value = name }
        }

        var keptSortName: SortName? { preparedSortName.value }

        var isSortNamePrepared: Bool { preparedSortName.value != nil }

        var sortName: SortName { preparedSortName.value ?? makeSortName() }

        var fileType: FileType {
            preparedSortName.value?.fileType ?? FileType.classify(fileName: fileName, mimeType: mimeType)
        }
    }

    /// Shared by copies of a task until one of them changes; never changed while shared.
    /// Guarded by copy on write: only a task holding the sole reference (`isKnownUniquelyReferenced`)
    /// writes it, so a box another thread can see is never written (as `Array`'s storage). A
    /// lock would be one per task on every read of a million; an immutable box, an allocation
    /// per field set.
    @usableFromInline
    final class Box: @unchecked Sendable {
        // The run-time exclusivity check of each access was a twentieth of reading a million
        // tasks; the uniqueness check above already keeps accesses apart.
        @exclusivity(unchecked) @usableFromInline var details: Details
        @usableFromInline init(_ details: Details) { self.details = details }
    }

    public init(url: String, fileName: String, directory: String, addTime: Date = Date(), state: TaskState = .waiting,
                customDisplayName: String? = nil, mimeType: String? = nil) {
        self.url = url
        self.addTime = addTime
        self.state = state
        box = Box(Details(fileName: fileName, directory: directory, customDisplayName: customDisplayName, mimeType: mimeType))
    }

    /// The boxed fields at once: a reader of most of them (a row written to the session file)
    /// copies them once instead of once per field.
    @inlinable
    public var details: Details { box.details }

    // Inlinable so that the optimizer turns each literal key path into a plain field access.
    @inlinable
    public subscript<Value>(dynamicMember field: KeyPath<Details, Value>) -> Value {
        box.details[keyPath: field]
    }

    @inlinable
    public subscript<Value>(dynamicMember field: WritableKeyPath<Details, Value>) -> Value {
        get { box.details[keyPath: field] }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.details) }
            yield &box.details[keyPath: field]
        }
    }

    public static func == (lhs: DownloadTask, rhs: DownloadTask) -> Bool {
        lhs.url == rhs.url && lhs.addTime == rhs.addTime && lhs.state == rhs.state && lhs.size == rhs.size
            && lhs.deletedAt == rhs.deletedAt && (lhs.box === rhs.box || lhs.box.details == rhs.box.details)
    }

    /// Holds the same seldom-set fields as `other` (options, validators, …) in `other`'s
    /// storage when they are equal: a million tasks added with the same options keep one
    /// copy of them instead of a million. Changes nothing a reader can see.
    public mutating func shareExtras(ifEqualTo other: DownloadTask) {
        guard !box.details.extras.isShared(with: other.box.details.extras),
              box.details.extras == other.box.details.extras else { return }
        if !isKnownUniquelyReferenced(&box) { box = Box(box.details) }
        box.details.extras = other.box.details.extras
    }

    /// Sets the options. A task with no other seldom-set field takes the storage `shared` holds
    /// for equal options, else makes it and keeps it there: tasks read or added together with
    /// the same options then hold one copy, with no storage made, compared or freed for each.
    public mutating func setOptions(_ options: DownloadOptions, sharing shared: inout SharedOptions?) {
        guard box.details.extras.isEmpty else {
            self.options = options
            return
        }
        if !isKnownUniquelyReferenced(&box) { box = Box(box.details) }
        if shared != nil && shared!.options == options {
            box.details.extras = shared!.storage
        } else {
            self.options = options
            // It holds these options alone; shared, it is copied before any task changes it.
            shared = SharedOptions(storage: box.details.extras, options: options)
        }
    }

    /// Keeps the sort name with the task, for the name and type sorts.
    mutating func prepareSortName() {
        // The field itself, read in place: a getter of `Details` may copy all of it first.
        guard box.details.preparedSortName.value == nil else { return }
        if !isKnownUniquelyReferenced(&box) { box = Box(box.details) }
        box.details.prepareSortName()
    }

    var sortName: SortName { box.details.preparedSortName.value ?? box.details.sortName }

    /// The sort name kept with the task, if a sort prepared one.
    var keptSortName: SortName? { box.details.keptSortName }

    /// Keeps a sort name made from this task's name fields (on another thread, from a copy).
    mutating func keepSortName(_ name: SortName) {
        guard box.details.keptSortName == nil else { return }
        if !isKnownUniquelyReferenced(&box) { box = Box(box.details) }
        box.details.keepSortName(name)
    }

    public var fileType: FileType { box.details.fileType }

    /// Where the finished file lives (or will live).
    public var filePath: String { self.completedPath ?? (self.directory as NSString).appendingPathComponent(self.fileName) }

    /// Where the unfinished bytes live.
    public var partPath: String { (self.directory as NSString).appendingPathComponent(self.fileName) + ".part" }

    /// The part file that is this task's own: it recorded its name (finalURL) before creating
    /// it. Without that the name is only a suggestion and a part under it is another task's.
    public var ownPartPath: String? { self.state != .finished && self.finalURL != nil ? self.partPath : nil }

    /// 0…1, or 0 when the size is unknown.
    public var progress: Double {
        guard let size, size > 0 else { return state == .finished ? 1 : 0 }
        return min(1, Double(self.received) / Double(size))
    }

    /// SDE's display name: the custom name, else the file name.
    public var displayName: String { self.customDisplayName ?? self.fileName }

    /// SDE's detail text: "41.6 MB/402.5 MB" while unfinished, "402.5 MB" when finished, or the error.
    public var detailText: String {
        var text: [UInt8] = []
        appendDetailText(to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// `detailText`'s UTF-8, appended (`tdl list` writes a million).
    public func appendDetailText(to buffer: inout [UInt8]) {
        switch state {
        case .finished:
            ByteFormat.append(size ?? self.received, to: &buffer)
        case .failed:
            buffer.append(contentsOf: "Failed: ".utf8)
            buffer.append(contentsOf: (self.failReason?.message ?? "unknown error").utf8)
        default:
            ByteFormat.append(self.received, to: &buffer)
            buffer.append(UInt8(ascii: "/"))
            if let size { ByteFormat.append(size, to: &buffer) } else { buffer.append(UInt8(ascii: "?")) }
        }
    }
}

/// Helpers for file names that keep multi-part extensions whole ("a.tar.gz").
public enum FileName {
    /// Last parts that make a compound extension when ".tar" comes before them.
    static let tarCompanions: Set<String> = [".gz", ".bz2", ".xz", ".zst", ".lz"]

    /// The extension including its dot ("" when none); "a.tar.gz" → ".tar.gz".
    /// Works on UTF-8 indices: it runs for every task of a name sort.
    public static func fullExtension(_ name: String) -> String {
        guard let dot = extensionStart(name) else { return "" }
        return String(name[dot...])
    }

    public static func stem(_ name: String) -> String {
        guard let dot = extensionStart(name) else { return name }
        return String(name[..<dot])
    }

    static func extensionStart(_ name: String) -> String.Index? {
        let utf8 = name.utf8
        guard let dot = utf8.lastIndex(of: UInt8(ascii: ".")), dot != utf8.startIndex else { return nil }
        if tarCompanions.contains(name[dot...].lowercased()),
           let tarDot = utf8.index(dot, offsetBy: -4, limitedBy: utf8.startIndex), tarDot != utf8.startIndex,
           name[tarDot ..< dot].lowercased() == ".tar" {
            return tarDot
        }
        return dot
    }
}
