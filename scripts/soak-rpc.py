#!/usr/bin/env python3
"""Soak a JSON-RPC server (tdl serve, or aria2c to compare) as aria2's front ends use one for
hours: aria2p's Python API adds (some with pause=true), pauses, unpauses, removes, retries
(a failed download's URI added again, the old GID's result removed) and purges downloads, a
new connection a call, while a kept-alive session polls tellActive and getGlobalStat as web
UIs do, now and then pausing longer than a request may take. Every call must be answered: a
dropped connection, a timeout or a wrong answer is a failure.

With --top, `aria2p top` (its curses screen, in a tmux server of its own) watches the whole
time; at the end it must still be running, and its log must hold no traceback, no
"RemoteDisconnected" and no request that timed out.

    .build/aria2p/bin/python scripts/soak-rpc.py --port 6800 --top \\
        --secret "$(cat ~/.local/share/tdl/rpc-secret)" --seconds 3600 URL [URL...]

aria2p comes from scripts/install-deps.sh --test. Prints a JSON summary; exits 1 on a failure.
"""
import argparse
import json
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import aria2p
import requests


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=6800)
    parser.add_argument("--secret", default="")
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--pause-max", type=float, default=12, help="the polling session's longest pause (s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--top", action="store_true", help="aria2p top watches, in tmux; it must outlive the soak")
    parser.add_argument("--overall-limit", default="", help="changeGlobalOption max-overall-download-limit first (say 2M)")
    parser.add_argument("urls", nargs="+")
    args = parser.parse_args()
    end = time.time() + args.seconds
    lock = threading.Lock()
    counts = {"calls": 0, "failures": 0}
    failures = []

    def record(what, ok, detail=""):
        with lock:
            counts["calls"] += 1
            if not ok:
                counts["failures"] += 1
                if len(failures) < 20:
                    failures.append(f"{time.strftime('%H:%M:%S')} {what}: {detail}")

    def poll():
        rnd = random.Random(args.seed + 1)
        session = requests.Session()  # one kept-alive connection, as a front end polls
        url = f"http://127.0.0.1:{args.port}/jsonrpc"
        n = 0
        while time.time() < end:
            for method, params in (("aria2.tellActive", [["gid", "status", "completedLength"]]),
                                   ("aria2.getGlobalStat", [])):
                n += 1
                body = {"jsonrpc": "2.0", "id": n, "method": method, "params": [f"token:{args.secret}"] + params}
                try:
                    answer = session.post(url, data=json.dumps(body), timeout=30)
                    parsed = answer.json()
                    record(method, answer.status_code == 200 and parsed.get("id") == n and "result" in parsed,
                           answer.text[:200])
                except Exception as error:  # noqa: BLE001 - any failure of a call is the finding
                    record(method, False, repr(error))
            if rnd.random() < 0.1:
                time.sleep(rnd.uniform(0, args.pause_max))
            else:
                time.sleep(rnd.choice([0.05, 0.2, 1.0]))

    def change():
        rnd = random.Random(args.seed)
        api = aria2p.API(aria2p.Client(host="http://127.0.0.1", port=args.port, secret=args.secret, timeout=30))
        gids = []
        while time.time() < end:
            op = rnd.choice(["add", "add", "pause", "unpause", "remove", "purge", "status", "retry"])
            try:
                if op == "add" or not gids:
                    options = {"pause": "true"} if rnd.random() < 0.3 else {}
                    gids.append(api.client.add_uri([rnd.choice(args.urls)], options))
                elif op == "pause":
                    api.client.pause(rnd.choice(gids))
                elif op == "unpause":
                    api.client.unpause(rnd.choice(gids))
                elif op == "remove":
                    api.client.remove(rnd.choice(gids))
                elif op == "purge":
                    api.client.purge_download_result()
                elif op == "retry":
                    failed = [d for d in api.get_downloads() if d.has_failed]
                    for result in api.retry_downloads(failed[:3]):
                        if result is not True:
                            raise result
                    gids = [d.gid for d in api.get_downloads()] or gids
                else:
                    api.client.tell_status(rnd.choice(gids), ["status"])
                record(op, True)
            except aria2p.ClientException:
                record(op, True)  # aria2's own error (a download not pausable now): an answer
            except Exception as error:  # noqa: BLE001
                record(op, False, repr(error))
            time.sleep(rnd.uniform(0, 0.1))

    if args.overall_limit:
        client = aria2p.Client(host="http://127.0.0.1", port=args.port, secret=args.secret, timeout=30)
        client.change_global_option({"max-overall-download-limit": args.overall_limit})
    top = Top(args.port, args.secret) if args.top else None
    threads = [threading.Thread(target=poll), threading.Thread(target=change)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    summary = {**counts, "first_failures": failures}
    ok = counts["failures"] == 0 and counts["calls"] > 0
    if top:
        summary["top"] = top.finish()
        ok = ok and summary["top"]["running"] and not summary["top"]["problems"]
    print(json.dumps(summary))
    return 0 if ok else 1


# Runs aria2p's command line with its log going to LOG: warnings and errors (a traceback is
# logged as an error), and the requests that timed out, which top itself logs only in debug.
TOP_RUNNER = """
import sys
from loguru import logger
import aria2p._internal.cli.main as cli

def enable_logger(sink, level):
    logger.remove()
    logger.add(sink, level="DEBUG", filter=lambda r: r["level"].no >= 30 or "timeout" in r["message"].lower())
    logger.enable("aria2p")

cli.enable_logger = enable_logger
sys.exit(cli.main(sys.argv[1:]))
"""


class Top:
    """`aria2p top` in a tmux server of its own (it needs a terminal), 150x40."""

    def __init__(self, port, secret):
        self.folder = tempfile.mkdtemp(prefix="soak-top-")
        self.socket = f"soak-top-{os.getpid()}"
        self.log = os.path.join(self.folder, "top.log")
        self.ended = os.path.join(self.folder, "ended")
        runner = os.path.join(self.folder, "top.py")
        with open(runner, "w") as f:
            f.write(TOP_RUNNER)
        command = " ".join(shlex.quote(a) for a in [sys.executable, runner, "-p", str(port), "-s", secret,
                                                     "-L", "DEBUG", "-P", self.log, "top"])
        # The pane outlives top: what top printed, and how it ended, stay to be read.
        shell = f"{command} 2>>{shlex.quote(self.log)}; echo $? > {shlex.quote(self.ended)}; sleep 100000"
        subprocess.run(["tmux", "-L", self.socket, "new-session", "-d", "-s", "top", "-x", "150", "-y", "40", shell], check=True)
        self.screens = 0
        self.watching = True
        self.watcher = threading.Thread(target=self.watch)
        self.watcher.start()

    def screen(self):
        return subprocess.run(["tmux", "-L", self.socket, "capture-pane", "-p", "-t", "top"],
                              capture_output=True, text=True).stdout

    def watch(self):
        # Reads the screen now and then: a screen that shows top's columns counts.
        while self.watching:
            if "GID" in self.screen():
                self.screens += 1
            time.sleep(1)

    def finish(self):
        self.watching = False
        self.watcher.join()
        screen = self.screen()
        running = not os.path.exists(self.ended)
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)
        log = open(self.log, errors="replace").read() if os.path.exists(self.log) else ""
        problems = [line for line in log.splitlines()
                    if any(word in line for word in ("Traceback", "RemoteDisconnected", "ERROR", "timeout", "Error"))]
        shutil.rmtree(self.folder, ignore_errors=True)
        return {"running": running, "screens_with_downloads": self.screens, "problems": problems[:20],
                "last_screen": screen.splitlines()[:8]}


if __name__ == "__main__":
    sys.exit(main())
