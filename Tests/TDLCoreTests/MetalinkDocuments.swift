/// Metalink documents as published: RFC 5854's example (Metalink 4, with a signature, pieces
/// and a torrent), and a Metalink 3 file as aria2's own tests and mirror sites write them.
enum MetalinkDocuments {
    static let sha256 = "f0ad929cd259957e160ea442eb80986b5f01f0ad929cd259957e160ea442eb80"
    static let sha1 = "a96cf3f0266b91d87d5124cf94326422800b627d"
    static let md5 = "64699a7fe5b1ef5e4d1d6ab5e2e5fb20"

    static let four = """
        <?xml version="1.0" encoding="UTF-8"?>
        <metalink xmlns="urn:ietf:params:xml:ns:metalink">
          <published>2009-05-15T12:23:23Z</published>
          <generator>MirrorBrain/2.9.2</generator>
          <origin dynamic="true">http://example.com/example.ext.meta4</origin>
          <file name="example.ext">
            <size>14471447</size>
            <identity>Example</identity>
            <version>1.0</version>
            <language>en</language>
            <description>
            A description of the example file for download &amp; more.
            </description>
            <hash type="md5">\(md5)</hash>
            <hash type="sha-256">\(sha256)</hash>
            <hash type="sha-1">\(sha1)</hash>
            <pieces length="262144" type="sha-1">
              <hash>\(sha1)</hash>
            </pieces>
            <!-- the torrent is not a URL of the file -->
            <metaurl mediatype="torrent" priority="1">http://example.com/example.ext.torrent</metaurl>
            <url location="fr" priority="2">http://example.com/example.ext</url>
            <url location="de" priority="1">ftp://ftp.example.com/example.ext</url>
            <url>http://no-priority.example.net/example.ext</url>
            <url priority="3">https://mirror.example.org/dl?f=example.ext&amp;v=1</url>
            <url priority="1">file:///etc/passwd</url>
            <signature mediatype="application/pgp-signature"><![CDATA[-----BEGIN PGP SIGNATURE-----
        iEYEABECAAYFAkoNmYkACgkQeOEcayedXJHqFwCfd1p/HhRf/iDvYhvFbTrQPz+p
        -----END PGP SIGNATURE-----]]></signature>
          </file>
          <file name="second.iso">
            <url priority="1">http://example.com/second.iso</url>
          </file>
        </metalink>
        """

    static let three = """
        <?xml version="1.0" encoding="utf-8"?>
        <metalink version="3.0" xmlns="http://www.metalinker.org/" generator="Metalink Editor version 1.1.0"
                  type="static" pubdate="Sat, 26 Sep 2009 12:00:00 GMT">
          <publisher><name>aria2</name><url>http://aria2.sourceforge.net/</url></publisher>
          <files>
            <file name="aria2-0.5.2.tar.bz2">
              <size>409600</size>
              <version>0.5.2</version>
              <language>en-US</language>
              <os>Linux-x86</os>
              <verification>
                <hash type="md5">\(md5)</hash>
                <hash type="sha1">\(sha1)</hash>
                <pieces length="262144" type="sha1">
                  <hash piece="0">\(sha1)</hash>
                </pieces>
                <signature type="pgp" file="aria2-0.5.2.tar.bz2.sig">sig</signature>
              </verification>
              <resources maxconnections="1">
                <url type="ftp" location="jp" preference="90" maxconnections="1">ftp://ftp.mirror.jp/aria2-0.5.2.tar.bz2</url>
                <url type="http" location="us" preference="100">http://httpd.mirror.us/aria2-0.5.2.tar.bz2</url>
                <url type="bittorrent" preference="100">http://torrent/aria2-0.5.2.tar.bz2.torrent</url>
                <url type="http" location="jp">http://httpd.mirror.jp/aria2-0.5.2.tar.bz2</url>
              </resources>
            </file>
          </files>
        </metalink>
        """

    /// A Metalink 4 document of one file per (name, URLs) pair.
    static func four(_ files: [(name: String, urls: [String])]) -> String {
        "<metalink xmlns=\"urn:ietf:params:xml:ns:metalink\">"
            + files.map { file in
                "<file name=\"\(file.name)\">" + file.urls.map { "<url>\($0)</url>" }.joined() + "</file>"
            }.joined()
            + "</metalink>"
    }
}
