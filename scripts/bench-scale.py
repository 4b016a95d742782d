#!/usr/bin/env python3
"""A session of many tasks: every command and every key, timed against its goal.

    scripts/bench-scale.py [--tdl .build/release/tdl] [--tasks 1000000] [--check]
                           [--only list,screen,added] [--populated DIR]

Makes two sessions of --tasks tasks: one with `tdl debug populate` (made-up tasks in every
state, random add times and sizes), one with `tdl add -i` of a file of URLs (all waiting).
On each it times the commands a script runs, with the peak memory of each process, and the
full-screen list's first frame in tmux; on the populated one (where nothing downloads) also
moving keys, a sort change and filter keystrokes, each from the key until the screen shows
its result (tmux's polling included), and the memory of the running tdl.

It also checks what a user would: `add -i` keeps every URL in the order given, the one-URL
commands land, the rows the screen shows after a sort or a filter are the ones `tdl list`
prints in that order, a descending sort is the ascending one reversed. A wrong result exits
1 always; a missed goal exits 1 unless --check, which the test suite uses at 20,000 tasks
(timings there are not goals: a debug build on a busy machine).

Needs tmux (scripts/install-deps.sh --test). Goals are those at 1,000,000 tasks.
"""
import argparse, json, os, re, shutil, statistics, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ap.add_argument("--tdl", default=os.environ.get("TDL", os.path.join(root, ".build/release/tdl")))
ap.add_argument("--tasks", type=int, default=1_000_000)
ap.add_argument("--check", action="store_true", help="fail only on wrong results, not on missed goals")
ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
ap.add_argument("--only", default="list,commands,screen,added",
                help="the figures to take, of list (the populated session's tdl list), commands (its one-URL "
                     "commands), screen (its full-screen list) and added (the add -i session's)")
ap.add_argument("--populated", metavar="DIR",
                help="a home made by `tdl debug populate` to use (a copy of it) instead of making one")
args = ap.parse_args()
parts = set(args.only.split(","))
if parts - {"list", "commands", "screen", "added"}:
    sys.exit(f"bench-scale: --only takes list, commands, screen and added, not {args.only}")
tdl = os.path.abspath(args.tdl)
if not os.access(tdl, os.X_OK):
    sys.exit(f"bench-scale: no binary at {tdl} (make release)")
if not shutil.which("tmux") or not os.access("/usr/bin/time", os.X_OK):
    sys.exit("bench-scale: tmux or /usr/bin/time is missing (scripts/install-deps.sh --test)")

work = tempfile.mkdtemp(prefix="tdl-bench-scale-", dir=os.environ.get("BENCH_DIR", "/var/tmp"))
sock = f"tdl-bench-scale-{os.getpid()}"
rows, wrong = [], []


def cleanup():
    subprocess.run(["tmux", "-L", sock, "kill-server"], capture_output=True)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


def record(what, seconds, goal_seconds, kb=None, goal_mb=None, memory=None):
    """A figure and its goal; `seconds` None for a memory figure alone."""
    ok = (seconds is None or seconds <= goal_seconds) and (kb is None or goal_mb is None or kb / 1024 <= goal_mb)
    memory = memory or (f"{kb / 1024:.0f} MB" if kb is not None else "")
    goals = [] if seconds is None else [f"≤ {goal_seconds * 1000:.0f} ms" if goal_seconds < 1 else f"≤ {goal_seconds:g} s"]
    goals += [] if goal_mb is None else [f"≤ {goal_mb} MB"]
    goal = ", ".join(goals)
    shown = "" if seconds is None else f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"
    rows.append((what, shown, memory, goal, "✓" if ok else "✗"))
    print(f"  {what}: {shown} {memory} (goal {goal}) {'✓' if ok else '✗'}", flush=True)


def expect(condition, what):
    if not condition:
        wrong.append(what)
        print(f"  WRONG: {what}", flush=True)


def run(home, *command, out=None):
    """Runs tdl; returns (seconds, peak KB, stdout bytes when not sent to `out`). The peak is
    measured by /usr/bin/time: a process forked from this one (holding a million names)
    would report this one's peak as its own, as Linux keeps it across exec."""
    peak_file = os.path.join(work, "peak")
    start = time.monotonic()
    process = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", peak_file, tdl, *command, "--home", home],
                             stdout=out or subprocess.PIPE, stderr=subprocess.PIPE)
    seconds = time.monotonic() - start
    if process.returncode != 0:
        sys.exit(f"bench-scale: tdl {' '.join(command)} exited {process.returncode}: {process.stderr.decode(errors='replace')[-500:]}")
    with open(peak_file) as f:
        peak = int(f.read().split()[-1])
    return seconds, peak, process.stdout or b""


def listed(home, *options):
    _, _, output = run(home, "list", "--json", *options)
    return json.loads(output)


def one_url_commands(home, label):
    """add, pause, resume and rm of one URL each, three times, with no tdl running."""
    times = {name: [] for name in ("add", "pause", "resume", "rm")}
    peaks = {name: 0 for name in times}
    urls = [f"http://127.0.0.1:9/one-url/{label}/{k}.bin" for k in range(3)]
    for url in urls:
        for name in times:
            seconds, kb, _ = run(home, name, url)
            times[name].append(seconds)
            peaks[name] = max(peaks[name], kb)
    for name in times:
        record(f"{label}: tdl {name} of one URL (median of 3)", statistics.median(times[name]), 0.05, peaks[name], 50)
    trash = {task["url"] for task in listed(home, "--trash")}
    expect(all(url in trash for url in urls), f"{label}: the URLs added then removed are in the trash")
    return urls


def sorted_lists(home, label, count):
    seconds, kb, _ = run(home, "list", "--sort", "name", "--order", "desc", out=open(os.path.join(work, "desc.txt"), "wb"))
    record(f"{label}: tdl list --sort name --order desc, to a file", seconds, 3, kb, 600)
    seconds, kb, _ = run(home, "list", "--json", out=open(os.path.join(work, "list.json"), "wb"))
    record(f"{label}: tdl list --json, to a file", seconds, 5, kb, 600)
    with open(os.path.join(work, "list.json")) as f:
        tasks = json.load(f)
    expect(len(tasks) == count, f"{label}: tdl list --json has {len(tasks)} tasks, not {count}")
    ascending = [t["name"] for t in listed(home, "--sort", "name", "--order", "asc")]
    with open(os.path.join(work, "desc.txt"), encoding="utf-8") as f:
        descending = [line.split("\t")[1] for line in f if "\t" in line]
    expect(descending == ascending[::-1], f"{label}: the descending name sort is the ascending one reversed")
    return tasks


# --- The screen -------------------------------------------------------------------------

def tmux(*command):
    return subprocess.run(["tmux", "-L", sock, *command], capture_output=True, text=True).stdout


def screen(escapes=False):
    return tmux("capture-pane", "-p", *(["-e"] if escapes else []), "-t", "tdl")


ROW = re.compile(r"^ (\S) (\S) (.+?)\s{2,}\S")


def shown_names(text):
    """Names of the task rows on screen (section rules and headers left out)."""
    lines = text.splitlines()[1:-1]
    return [m.group(3) for m in map(ROW.match, lines) if m and m.group(1) not in "─-"]


class Order:
    """Names in the order `tdl list` printed them, with where each name is."""
    def __init__(self, names):
        self.names = names
        self.places = {}
        for k, name in enumerate(names):
            self.places.setdefault(name, []).append(k)

    def shows(self, visible):
        """Whether the rows on screen are consecutive rows of this order (the selection may
        keep the view anywhere in the list)."""
        if not visible:
            return not self.names
        return any(self.names[k:k + len(visible)] == visible for k in self.places.get(visible[0], []))


def until(condition, timeout=120, every=0.0005):
    """Seconds until `condition` holds, asked `every` seconds. Each ask starts a tmux client:
    asked every half millisecond, they take most of a core from the tdl being timed."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if condition():
            return time.monotonic() - start
        time.sleep(every)
    return None


def press(key, changed=None, timeout=20 if args.check else 60):
    """Seconds from sending `key` until the screen changes (or `changed` holds)."""
    before = screen(escapes=True)
    start = time.monotonic()
    tmux("send-keys", "-t", "tdl", key)
    took = until(changed or (lambda: screen(escapes=True) != before), timeout)
    return None if took is None else time.monotonic() - start


def memory_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        fields = dict(line.split(":", 1) for line in f)
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


def first_frame(home, tasks, label):
    """Opens the full-screen list; returns its pid once it shows rows, which must be the first
    rows of `tasks` (tdl list's order)."""
    start = time.monotonic()
    tmux("new-session", "-d", "-s", "tdl", "-x", "120", "-y", "30", f"exec env TDL_HOME={home} LANG=C.UTF-8 {tdl}")
    pid = int(tmux("display-message", "-p", "-t", "tdl", "#{pane_pid}").strip())
    # Asked every 10 ms: a launch that reads the session on both cores is not slowed by the asking.
    first = until(lambda: len(shown_names(screen())) > 0, every=0.01)
    if first is None:
        sys.exit(f"bench-scale: the list showed no rows: {screen()}")
    record(f"{label}: screen, first frame with rows", time.monotonic() - start, 1.5)
    visible = shown_names(screen())
    expect(visible == [t["name"] for t in tasks][:len(visible)], f"{label}: the first screen shows the first rows of tdl list")
    # A key at once: the loaded tasks are still being queued for their downloads then. The
    # selection's row is the one drawn reversed; rows change meanwhile as downloads start.
    was = selected_line(screen(escapes=True))
    took = press("j", lambda: selected_line(screen(escapes=True)) not in (None, was))
    expect(took is not None, f"{label}: j at the first frame moves the selection")
    record(f"{label}: screen, a key pressed at the first frame", took or 60, 0.1)
    press("k", lambda: selected_line(screen(escapes=True)) == was)
    return pid


def selected_line(text):
    """Where the selected row is on screen (drawn in reverse video), or None."""
    return next((k for k, line in enumerate(text.splitlines()[1:-1]) if line.startswith("\x1b[7m")), None)


def quit_screen(pid):
    tmux("send-keys", "-t", "tdl", "Escape")
    tmux("send-keys", "-t", "tdl", "q")
    until(lambda: not os.path.exists(f"/proc/{pid}"), 60)


def the_screen(home, tasks, label):
    pid = first_frame(home, tasks, label)
    by_time = [t["name"] for t in tasks]

    moves = []
    for key in ["j", "k"] * 5 + ["PgDn", "PgUp"] * 3:
        took = press(key)
        if took is not None:
            moves.append(took)
    took = press("G", lambda: shown_names(screen())[-1:] == by_time[-1:])
    expect(took is not None, f"{label}: G shows the last row of tdl list")
    moves.append(took or 60)
    expect(shown_names(screen()) == by_time[-len(shown_names(screen())):], f"{label}: the last screen is the end of tdl list")
    took = press("g", lambda: shown_names(screen())[:1] == by_time[:1])
    moves.append(took or 60)
    record(f"{label}: screen, a moving key (j, k, PgDn, PgUp, G, g; median of {len(moves)})", statistics.median(moves), 0.03)
    record(f"{label}: screen, the slowest moving key", max(moves), 0.1)

    by_name = listed(home, "--sort", "name", "--order", "asc")
    order = Order([t["name"] for t in by_name])
    took = press("s", lambda: "sort: name" in screen() and order.shows(shown_names(screen())))
    expect(took is not None, f"{label}: after s the screen shows rows of tdl list --sort name, in its order")
    record(f"{label}: screen, sort change (s: add time to name)", took or 60, 1)

    tmux("send-keys", "-t", "tdl", "/")
    until(lambda: "Filter" in screen() or "filter" in screen(), 10)
    needle, strokes = "", []
    for char in "song 1":
        needle += char
        want = Order(matching(by_name, needle))
        # The prompt's own text: "s" alone is on every screen ("sort:"); tmux drops a line's
        # trailing blanks.
        prompt = ("Filter: " + needle).rstrip()
        took = press(char if char != " " else "Space", lambda: prompt in screen() and want.shows(shown_names(screen())))
        expect(took is not None, f"{label}: filtering by {needle!r} shows the matching rows of tdl list in order")
        strokes.append(took or 60)
    print(f"  (filter keystrokes of {needle!r}, one by one: {', '.join(f'{s * 1000:.0f} ms' for s in strokes)})", flush=True)
    record(f"{label}: screen, a filter keystroke (median of {len(strokes)})", statistics.median(strokes), 0.15)
    record(f"{label}: screen, the slowest filter keystroke", max(strokes), 0.3)
    rss, peak = memory_kb(pid)
    record(f"{label}: screen, the running tdl's memory (now / peak)", None, None, rss, 600,
           memory=f"{rss / 1024:.0f} / {peak / 1024:.0f} MB")
    quit_screen(pid)


def matching(tasks, needle):
    """The filter's rows: a name or URL that has the text, in any case."""
    needle = needle.lower()
    return [t["name"] for t in tasks if needle in t["name"].lower() or needle in t["url"].lower()]


try:
    n = args.tasks
    print(f"tdl {tdl}, {n:,} tasks, in {work}", flush=True)

    if args.populated:
        # A copy: the one-URL commands leave their URLs in the trash, and the screen keeps its sort.
        shutil.copytree(os.path.abspath(args.populated), os.path.join(work, "populated"))
        populated = os.path.join(work, "populated")
    elif parts & {"list", "commands", "screen"}:
        populated = os.path.join(work, "populated")
        os.makedirs(populated)
        seconds, kb, _ = run(populated, "debug", "populate", str(n))
        print(f"  (populate: {seconds:.1f} s, {kb / 1024:.0f} MB)", flush=True)
    if "list" in parts:
        tasks = sorted_lists(populated, "populated", n)
    elif "screen" in parts:
        tasks = listed(populated)
    if "commands" in parts:
        one_url_commands(populated, "populated")
    # The one-URL commands left their URLs in the trash; the list is as before.
    if "screen" in parts:
        the_screen(populated, tasks, "populated")
    if "added" in parts:
        added = os.path.join(work, "added")
        os.makedirs(added)
        urls = [f"http://127.0.0.1:9/scale/{i // 1000}/file-{i:07d}.bin" for i in range(n)]
        with open(os.path.join(work, "urls.txt"), "w") as f:
            f.write("\n".join(urls) + "\n")
        seconds, kb, _ = run(added, "add", "-d", os.path.join(work, "downloads"), "-i", os.path.join(work, "urls.txt"))
        record(f"added: tdl add -i of {n:,} URLs", seconds, 10, kb, 500)
        tasks = sorted_lists(added, "added", n)
        expect([t["url"] for t in tasks] == urls, "added: tdl list shows every URL of add -i in the order given")
        one_url_commands(added, "added")
        # Last: the screen starts the waiting downloads (their server refuses them).
        quit_screen(first_frame(added, tasks, "added"))
finally:
    cleanup()

print()
print("| what | time | memory | goal at 1,000,000 | |")
print("| --- | ---: | ---: | --- | --- |")
for row in rows:
    print("| " + " | ".join(row) + " |")
for what in wrong:
    print(f"WRONG: {what}")
missed = [row for row in rows if row[4] == "✗"]
if wrong or (missed and not args.check):
    sys.exit(1)
