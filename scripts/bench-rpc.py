#!/usr/bin/env python3
"""aria2 JSON-RPC under load, against `tdl serve` (the release build by default).

    scripts/bench-rpc.py [--tdl .build/release/tdl] [--tasks 10000] [--rate 100] [--window 2] [--rounds 3]
    scripts/bench-rpc.py --first-call-memory 1000000 [--tdl …]

A session of --tasks paused downloads and two downloads from nginx on 127.0.0.1 (a sparse
file, so the server reads nothing from disk) into /dev/shm (on a disk, the kernel's writeback
throttles tdl's writes and the loop waits in pwrite for hundreds of milliseconds at a time). Each round restarts the two downloads and
measures their speed for --window seconds without RPC calls, then for --window seconds while
a client sends --rate calls a second (nine tellStatus of a random task for each tellWaiting of
1,000 tasks at a random offset), recording each call's time. Prints the medians and the speed
the downloads kept. The goals: tellStatus <= 2 ms median, tellWaiting of 1,000 <= 50 ms
median, at most 5% of the download speed lost. Needs nginx (scripts/install-deps.sh --test).

--first-call-memory N measures instead what answering costs in a session of N tasks (made by
`tdl debug populate`): `tdl serve`'s RSS before any call, after the first call, after a
tellStopped and after a tellStatus, with each call's time.
"""
import argparse, http.client, json, os, random, shutil, signal, socket, statistics, subprocess, sys, tempfile, threading, time

ap = argparse.ArgumentParser()
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ap.add_argument("--tdl", default=os.path.join(root, ".build/release/tdl"))
ap.add_argument("--tasks", type=int, default=10_000)
ap.add_argument("--rate", type=int, default=100)
ap.add_argument("--window", type=float, default=1.5)
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--size-gib", type=int, default=4, help="size of the (sparse) file each download fetches; both are restarted before each window, so at most twice this is in /dev/shm")
ap.add_argument("--downloads-in", default="/dev/shm" if os.path.isdir("/dev/shm") else None,
                help="where the files go (default /dev/shm: at loopback speed a disk's writeback, not tdl, sets the pace)")
ap.add_argument("--first-call-memory", type=int, metavar="N", help="measure RSS and the first calls' times in a session of N populated tasks, then exit")
args = ap.parse_args()

# tdl serve always takes a secret: this one, given on its command line.
SECRET = "bench"

def with_token(method, params):
    return ([f"token:{SECRET}"] if method.startswith("aria2.") else []) + list(params)

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

def first_call_memory(n):
    import urllib.request
    work = tempfile.mkdtemp(prefix="tdl-bench-rpc-")
    env = dict(os.environ, TDL_HOME=os.path.join(work, "home"))
    port = free_port()
    def rss(pid):
        with open(f"/proc/{pid}/status") as f:
            return next(int(l.split()[1]) // 1024 for l in f if l.startswith("VmRSS"))
    def call(method, *params):
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": with_token(method, params)}).encode()
        t = time.perf_counter()
        answer = json.loads(urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/jsonrpc", body), timeout=300).read())
        return answer["result"], (time.perf_counter() - t) * 1000
    serve = None
    try:
        subprocess.run([args.tdl, "debug", "populate", str(n)], env=env, check=True, stdout=subprocess.DEVNULL)
        serve = subprocess.Popen([args.tdl, "serve", "-d", work, "--rpc-listen-port", str(port), "--rpc-secret", SECRET], env=env, stderr=subprocess.DEVNULL)
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close(); break
            except OSError: time.sleep(0.1)
        time.sleep(1)
        print(f"{n} tasks: RSS {rss(serve.pid)} MB before any call")
        _, ms = call("aria2.getVersion")
        print(f"first call (getVersion) {ms:.0f} ms, RSS {rss(serve.pid)} MB")
        stopped, ms = call("aria2.tellStopped", 0, 1, ["gid"])
        print(f"tellStopped 0 1 {ms:.0f} ms, RSS {rss(serve.pid)} MB")
        for _ in range(3):
            _, ms = call("aria2.tellStatus", stopped[0]["gid"])
            print(f"tellStatus {ms:.1f} ms, RSS {rss(serve.pid)} MB")
        call("aria2.shutdown")
        serve.wait(60)
    finally:
        if serve and serve.poll() is None: serve.kill()
        shutil.rmtree(work, ignore_errors=True)

if args.first_call_memory:
    first_call_memory(args.first_call_memory)
    sys.exit(0)

work = tempfile.mkdtemp(prefix="tdl-bench-rpc-")
site, home = (os.path.join(work, d) for d in ("site", "home"))
downloads = tempfile.mkdtemp(prefix="tdl-bench-rpc-", dir=args.downloads_in)
for d in (site, home):
    os.makedirs(d)
os.chmod(work, 0o755); os.chmod(site, 0o755)
for name in ("big1.bin", "big2.bin"):
    with open(os.path.join(site, name), "wb") as f:
        f.truncate(args.size_gib << 30)
with open(os.path.join(site, "small.bin"), "wb") as f:
    f.write(b"x" * 1000)

nginx_port, rpc_port = free_port(), free_port()
conf = os.path.join(work, "nginx.conf")
with open(conf, "w") as f:
    f.write(f"""daemon off; worker_processes 2; pid {work}/nginx.pid; error_log {work}/error.log;
events {{ worker_connections 256; }}
http {{ access_log off; sendfile on; client_body_temp_path {work}; proxy_temp_path {work};
  fastcgi_temp_path {work}; uwsgi_temp_path {work}; scgi_temp_path {work};
  server {{ listen 127.0.0.1:{nginx_port}; root {site}; }} }}
""")
nginx_bin = shutil.which("nginx") or "/usr/sbin/nginx"
procs = []
def cleanup(*_):
    for p in procs:
        if p.poll() is None:
            p.terminate()
            try: p.wait(5)
            except subprocess.TimeoutExpired: p.kill()
    shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(downloads, ignore_errors=True)
signal.signal(signal.SIGINT, lambda *_: (cleanup(), sys.exit(130)))
procs.append(subprocess.Popen([nginx_bin, "-p", work, "-c", conf, "-e", f"{work}/error.log"], stderr=subprocess.DEVNULL))
env = dict(os.environ, TDL_HOME=home)
serve = subprocess.Popen([args.tdl, "serve", "-d", downloads, "--rpc-listen-port", str(rpc_port), "--rpc-secret", SECRET], env=env,
                         stderr=open(os.path.join(work, "serve.log"), "w"))
procs.append(serve)

local = threading.local()
def call(method, *params):
    if not hasattr(local, "conn"):
        local.conn = http.client.HTTPConnection("127.0.0.1", rpc_port, timeout=30)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": with_token(method, params)})
    try:
        local.conn.request("POST", "/jsonrpc", body, {"Content-Type": "application/json"})
        answer = json.loads(local.conn.getresponse().read())
    except (http.client.HTTPException, OSError):
        local.conn.close()
        del local.conn
        return call(method, *params)
    if "error" in answer:
        raise SystemExit(f"{method}: {answer['error']}")
    return answer["result"]

try:
    for _ in range(100):
        try:
            call("aria2.getVersion"); break
        except SystemExit: raise
        except Exception: time.sleep(0.1)
    call("aria2.changeGlobalOption", {"max-concurrent-downloads": "2"})
    big = [f"http://127.0.0.1:{nginx_port}/big{n}.bin" for n in (1, 2)]
    big_gids = [call("aria2.addUri", [u]) for u in big]
    started = time.time()
    gids = []
    for start in range(0, args.tasks, 1000):
        calls = [{"methodName": "aria2.addUri", "params": [f"token:{SECRET}", [f"http://127.0.0.1:{nginx_port}/small.bin?n={n}"], {"pause": "true"}]}
                 for n in range(start, min(args.tasks, start + 1000))]
        gids += [r[0] for r in call("system.multicall", calls)]
    print(f"{args.tasks} paused tasks added in {time.time() - started:.1f} s")

    def received():
        return sum(int(call("aria2.tellStatus", g, ["completedLength"])["completedLength"]) for g in big_gids)

    def window(load):
        times = {"tellStatus": [], "tellWaiting": []}
        stop = threading.Event()
        def client(share):
            interval = share / args.rate
            n, next_at = 0, time.time()
            while not stop.is_set():
                n += 1
                t = time.perf_counter()
                if n % 10 == 0:
                    result = call("aria2.tellWaiting", random.randrange(0, max(1, args.tasks - 1000)), 1000)
                    assert len(result) == 1000, len(result)
                    times["tellWaiting"].append(time.perf_counter() - t)
                else:
                    call("aria2.tellStatus", random.choice(gids))
                    times["tellStatus"].append(time.perf_counter() - t)
                next_at += interval
                time.sleep(max(0, next_at - time.time()))
        threads = [threading.Thread(target=client, args=(4,)) for _ in range(4)] if load else []
        before, t0 = received(), time.time()
        for t in threads: t.start()
        time.sleep(args.window)
        after, t1 = received(), time.time()
        stop.set()
        for t in threads: t.join()
        if any(call("aria2.tellStatus", g, ["status"])["status"] != "active" for g in big_gids):
            raise SystemExit("a download ended inside the window: give a larger --size-gib")
        return (after - before) / (t1 - t0), times

    quiet_speeds, loaded_speeds = [], []
    all_times = {"tellStatus": [], "tellWaiting": []}
    def restart():
        # A running download is stopped first: restart starts from zero what is not running.
        for command in ("stop", "restart"):
            subprocess.run([args.tdl, command] + big, env=env, stdout=subprocess.DEVNULL, check=True)
        time.sleep(0.5)  # up to speed
    for r in range(args.rounds):
        restart()
        quiet, _ = window(False)
        restart()
        loaded, times = window(True)
        quiet_speeds.append(quiet); loaded_speeds.append(loaded)
        for k in times: all_times[k] += times[k]
        print(f"round {r + 1}: {quiet / 2**20:.0f} MiB/s quiet, {loaded / 2**20:.0f} MiB/s with {args.rate} calls/s "
              f"({len(times['tellStatus']) + len(times['tellWaiting'])} calls)")
    ms = lambda xs: statistics.median(xs) * 1000 if xs else float("inf")
    p95 = lambda xs: sorted(xs)[int(len(xs) * 0.95)] * 1000 if xs else float("inf")
    kept = sum(loaded_speeds) / sum(quiet_speeds)
    print(f"tellStatus median {ms(all_times['tellStatus']):.2f} ms (p95 {p95(all_times['tellStatus']):.2f} ms, {len(all_times['tellStatus'])} calls)")
    print(f"tellWaiting of 1000 median {ms(all_times['tellWaiting']):.1f} ms (p95 {p95(all_times['tellWaiting']):.1f} ms, {len(all_times['tellWaiting'])} calls)")
    print(f"download speed with the calls: {kept * 100:.1f}% of without ({sum(quiet_speeds) / len(quiet_speeds) / 2**20:.0f} MiB/s quiet)")
    ok = ms(all_times["tellStatus"]) <= 2 and ms(all_times["tellWaiting"]) <= 50 and kept >= 0.95
    print("goals met" if ok else "goals NOT met")
    call("aria2.shutdown")
    serve.wait(10)
finally:
    cleanup()
