#!/usr/bin/python3
"""FTP server for the tdl test suite (Debian's python3-pyftpdlib).

Usage: /usr/bin/python3 ftp_server.py --root DIR [--rate BPS] [--log FILE]

Serves DIR read-only to anonymous users on 127.0.0.1, binds a free port and
prints exactly one line ``PORT <n>`` to stdout.  --rate caps each download at
BPS bytes/second (a slow server, so a test can stop a download half-way).
--log appends one line per resumed download: ``REST <offset>``.
"""

import argparse
import logging
import sys

try:
    from pyftpdlib.authorizers import DummyAuthorizer
    from pyftpdlib.handlers import FTPHandler, ThrottledDTPHandler
    from pyftpdlib.servers import FTPServer
except ImportError:
    sys.stderr.write("missing python3-pyftpdlib (scripts/install-deps.sh --test installs it)\n")
    sys.exit(2)


def main():
    ap = argparse.ArgumentParser(description="tdl test FTP server")
    ap.add_argument("--root", required=True)
    ap.add_argument("--rate", type=int, default=0)
    ap.add_argument("--log")
    args = ap.parse_args()
    logging.basicConfig(level=logging.ERROR)

    class Handler(FTPHandler):
        def ftp_REST(self, line):
            if args.log:
                with open(args.log, "a") as log:
                    log.write(f"REST {line}\n")
            return super().ftp_REST(line)

    authorizer = DummyAuthorizer()
    authorizer.add_anonymous(args.root, perm="elr")
    Handler.authorizer = authorizer
    Handler.passive_ports = None
    if args.rate > 0:
        class Throttled(ThrottledDTPHandler):
            write_limit = args.rate
        Handler.dtp_handler = Throttled

    server = FTPServer(("127.0.0.1", 0), Handler)
    sys.stdout.write(f"PORT {server.socket.getsockname()[1]}\n")
    sys.stdout.flush()
    try:
        server.serve_forever(timeout=0.2)
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.close_all()


if __name__ == "__main__":
    main()
