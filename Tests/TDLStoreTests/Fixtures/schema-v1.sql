PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
INSERT INTO grdb_migrations VALUES('v1');
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
INSERT INTO task VALUES('default','http://127.0.0.1/old.iso','old.iso',NULL,0,'/tmp/fx/dl',5000,1000,1795258547.127453804,'paused',NULL,NULL,NULL,NULL,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL);
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
INSERT INTO segment VALUES('default','http://127.0.0.1/old.iso',0,0,5000,1000);
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
INSERT INTO setting VALUES('default','sortOrder','ascending');
INSERT INTO setting VALUES('default','sectioningAddTime','0');
INSERT INTO setting VALUES('default','sectioningFileSize','0');
INSERT INTO setting VALUES('default','sectioningFileName','0');
INSERT INTO setting VALUES('default','hiddenFileExtension','0');
INSERT INTO setting VALUES('default','maxDownloadCount','3');
INSERT INTO setting VALUES('default','isTrashOpened','1');
INSERT INTO setting VALUES('default','downloadDirectory','/tmp/fx/dl');
INSERT INTO setting VALUES('default','connectionsPerDownload','8');
INSERT INTO setting VALUES('default','resumeInterruptedOnLaunch','1');
INSERT INTO setting VALUES('default','maxRetries','3');
INSERT INTO setting VALUES('default','sortType','fileSize');
COMMIT;
