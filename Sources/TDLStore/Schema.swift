import GRDB

/// The session database's schema, as a list of migrations from the first one on: a database
/// written by an older tdl opens in a newer one; a newer one is refused, never damaged.
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
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
                """)
        }
        // What the user asked of a download moves into one column, a JSON `DownloadOptions`:
        // an option added later is a new key, not a new column and bind.
        migrator.registerMigration("v2: options") { db in
            try db.execute(sql: """
                ALTER TABLE task ADD COLUMN options TEXT;
                UPDATE task SET options = json_patch('{}', json_object(
                        'fileName', CASE WHEN userChoseName = 1 THEN fileName END,
                        'checksum', checksum, 'connections', connections, 'rateLimit', rateLimit))
                    WHERE userChoseName = 1 OR checksum IS NOT NULL OR connections IS NOT NULL OR rateLimit IS NOT NULL;
                ALTER TABLE task DROP COLUMN userChoseName;
                ALTER TABLE task DROP COLUMN checksum;
                ALTER TABLE task DROP COLUMN connections;
                ALTER TABLE task DROP COLUMN rateLimit;
                """)
        }
        // A command that changes a few tasks reads and writes their rows alone (`TaskRowStore`):
        // who owns a file name, and the top of a section arranged by hand, are then looked up
        // here instead of in every task.
        migrator.registerMigration("v3: row lookups") { db in
            try db.execute(sql: """
                CREATE INDEX task_fileName ON task(session, fileName);
                CREATE INDEX task_completedPath ON task(session, completedPath);
                CREATE INDEX layoutRow_place ON layoutRow(session, section, row);
                """)
        }
        // A purge records the tasks it is about to forget before their files go, and forgets
        // the record with the tasks in one commit: a launch after a kill in between finishes it.
        migrator.registerMigration("v4: pending purges") { db in
            try db.execute(sql: """
                CREATE TABLE pendingPurge (
                    session TEXT NOT NULL,
                    url TEXT NOT NULL,
                    PRIMARY KEY (session, url)
                ) WITHOUT ROWID;
                """)
        }
        return migrator
    }
}
