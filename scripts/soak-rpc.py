#!/usr/bin/env python3
"""Soak a JSON-RPC server (tdl serve, or aria2c to compare) as aria2's front ends use one for
hours: aria2p's Python API adds (some with pause=true), pauses, unpauses and removes downloads,
a new connection a call, while a kept-alive session polls tellActive and getGlobalStat as
`aria2p top` and web UIs do, now and then pausing longer than a request may take. Every call
must be answered: a dropped connection, a timeout or a wrong answer is a failure.

    .build/aria2p/bin/python scripts/soak-rpc.py --port 6800 \\
        --secret "$(cat ~/.local/share/tdl/rpc-secret)" --seconds 3600 URL [URL...]

aria2p comes from scripts/install-deps.sh --test. Prints a JSON summary; exits 1 on a failure.
"""
import argparse
import json
import random
import sys
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
            op = rnd.choice(["add", "add", "pause", "unpause", "remove", "purge", "status"])
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
                else:
                    api.client.tell_status(rnd.choice(gids), ["status"])
                record(op, True)
            except aria2p.ClientException:
                record(op, True)  # aria2's own error (a download not pausable now): an answer
            except Exception as error:  # noqa: BLE001
                record(op, False, repr(error))
            time.sleep(rnd.uniform(0, 0.1))

    threads = [threading.Thread(target=poll), threading.Thread(target=change)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(json.dumps({**counts, "first_failures": failures}))
    return 0 if counts["failures"] == 0 and counts["calls"] > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
