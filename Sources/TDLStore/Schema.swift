import GRDB

/// The session database's schema, as a list of migrations from the first one on: a database
/// written by an older tdl opens in a newer one; a newer one is refused, never damaged.
enum Schema {
    /// Each migration's identifier and statements, oldest first.
    static let steps: [(identifier: String, sql: String)] = [
        ("v1", """
                CREATE TABLE task (
                    session TEXT NOT NULL,
                    url TEXT NOT NULL,
                    fileName TEXT NOT NULL,
                    customName TEXT,
                    userChoseName INTEGER NOT NULL DEFAULT 0,
                    directory TEXT NOT NULL,
                    size INTEGER,
                    received INTEGER NOT NULL DEFAULT 0,
                    addTime REAL NOT NULL,
                    state TEXT NOT NULL,
                    failReason TEXT,
                    mimeType TEXT,
                    finalURL TEXT,
                    etag TEXT,
                    lastModified TEXT,
                    checksum TEXT,
                    retries INTEGER NOT NULL DEFAULT 0,
                    note TEXT,
                    metaInfo TEXT,
                    deletedAt REAL,
                    completedPath TEXT,
                    connections INTEGER,
                    rateLimit INTEGER,
                    PRIMARY KEY (session, url)
                );
                CREATE TABLE segment (
                    session TEXT NOT NULL,
                    url TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    start INTEGER NOT NULL,
                    "end" INTEGER,
                    done INTEGER NOT NULL,
                    PRIMARY KEY (session, url, position),
                    FOREIGN KEY (session, url) REFERENCES task(session, url) ON DELETE CASCADE
                );
                CREATE TABLE layoutSection (
                    session TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    title TEXT NOT NULL,
                    PRIMARY KEY (session, position)
                );
                CREATE TABLE layoutRow (
                    session TEXT NOT NULL,
                    url TEXT NOT NULL,
                    section INTEGER NOT NULL,
                    row INTEGER NOT NULL,
                    PRIMARY KEY (session, url)
                );
                CREATE TABLE setting (
                    session TEXT NOT NULL,
                    key TEXT NOT NULL,
                    value TEXT NOT NULL,
                    PRIMARY KEY (session, key)
                );
                """),
        // What the user asked of a download moves into one column, a JSON `DownloadOptions`:
        // an option added later is a new key, not a new column and bind.
        ("v2: options", """
                ALTER TABLE task ADD COLUMN options TEXT;
                UPDATE task SET options = json_patch('{}', json_object(
                        'fileName', CASE WHEN userChoseName = 1 THEN fileName END,
                        'checksum', checksum, 'connections', connections, 'rateLimit', rateLimit))
                    WHERE userChoseName = 1 OR checksum IS NOT NULL OR connections IS NOT NULL OR rateLimit IS NOT NULL;
                ALTER TABLE task DROP COLUMN userChoseName;
                ALTER TABLE task DROP COLUMN checksum;
                ALTER TABLE task DROP COLUMN connections;
                ALTER TABLE task DROP COLUMN rateLimit;
                """),
        // A command that changes a few tasks reads and writes their rows alone (`TaskRowStore`):
        // who owns a file name, and the top of a section arranged by hand, are then looked up
        // here instead of in every task.
        ("v3: row lookups", """
                CREATE INDEX task_fileName ON task(session, fileName);
                CREATE INDEX task_completedPath ON task(session, completedPath);
                CREATE INDEX layoutRow_place ON layoutRow(session, section, row);
                """),
        // A purge records the tasks it is about to forget before their files go, and forgets
        // the record with the tasks in one commit: a launch after a kill in between finishes it.
        ("v4: pending purges", """
                CREATE TABLE pendingPurge (
                    session TEXT NOT NULL,
                    url TEXT NOT NULL,
                    PRIMARY KEY (session, url)
                ) WITHOUT ROWID;
                """),
    ]

    /// What the steps make, as SQLite words it after them: a new file is given this at once
    /// (the steps' ALTERs reparse the whole schema each). A new step changes it too;
    /// `SchemaCreationTests` compares the two files.
    static let latest = """
    CREATE TABLE task (
        session TEXT NOT NULL,
        url TEXT NOT NULL,
        fileName TEXT NOT NULL,
        customName TEXT,
        directory TEXT NOT NULL,
        size INTEGER,
        received INTEGER NOT NULL DEFAULT 0,
        addTime REAL NOT NULL,
        state TEXT NOT NULL,
        failReason TEXT,
        mimeType TEXT,
        finalURL TEXT,
        etag TEXT,
        lastModified TEXT,
        retries INTEGER NOT NULL DEFAULT 0,
        note TEXT,
        metaInfo TEXT,
        deletedAt REAL,
        completedPath TEXT,
        options TEXT,
        PRIMARY KEY (session, url)
    );
    CREATE TABLE segment (
        session TEXT NOT NULL,
        url TEXT NOT NULL,
        position INTEGER NOT NULL,
        start INTEGER NOT NULL,
        "end" INTEGER,
        done INTEGER NOT NULL,
        PRIMARY KEY (session, url, position),
        FOREIGN KEY (session, url) REFERENCES task(session, url) ON DELETE CASCADE
    );
    CREATE TABLE layoutSection (
        session TEXT NOT NULL,
        position INTEGER NOT NULL,
        title TEXT NOT NULL,
        PRIMARY KEY (session, position)
    );
    CREATE TABLE layoutRow (
        session TEXT NOT NULL,
        url TEXT NOT NULL,
        section INTEGER NOT NULL,
        row INTEGER NOT NULL,
        PRIMARY KEY (session, url)
    );
    CREATE TABLE setting (
        session TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (session, key)
    );
    CREATE INDEX task_fileName ON task(session, fileName);
    CREATE INDEX task_completedPath ON task(session, completedPath);
    CREATE INDEX layoutRow_place ON layoutRow(session, section, row);
    CREATE TABLE pendingPurge (
        session TEXT NOT NULL,
        url TEXT NOT NULL,
        PRIMARY KEY (session, url)
    ) WITHOUT ROWID;
    """

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for step in steps {
            migrator.registerMigration(step.identifier) { db in try db.execute(sql: step.sql) }
        }
        return migrator
    }

    /// Gives a file without tables the latest schema in one transaction, recorded as the
    /// migrator records its migrations: one commit instead of one per migration and one for
    /// their table. False, and nothing written, when the file already has tables.
    static func createIfEmpty(_ db: Database) throws -> Bool {
        var created = false
        try db.inTransaction(.immediate) {
            guard try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") == 0 else { return .rollback }
            try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            try db.execute(sql: latest)
            for step in steps {
                try db.execute(sql: "INSERT INTO grdb_migrations VALUES (?)", arguments: [step.identifier])
            }
            created = true
            return .commit
        }
        return created
    }
}
