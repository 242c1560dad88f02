"""What the client drivers ask: every application the reference History
Server lists (or, with one_per_shape, the first of each shape), and for
each a sample of its jobs, stages and queries (the first and the last
ones), read from that server's own answers."""
import json
import sys
import urllib.request


def get(base, path):
    with urllib.request.urlopen(base + "/api/v1/" + path, timeout=120) as r:
        return json.load(r)


def sample(xs, first=3, last=2):
    return xs if len(xs) <= first + last else xs[:first] + xs[-last:]


def shape(base, app):
    """What sets an application's answers apart for the clients: its
    attempts' ids and completion, the statuses of its jobs, stages and
    queries, failed or retried stages and tasks, RDDs, removed executors."""
    aid = app["id"]
    attempts = tuple(("attemptId" in at, at.get("completed")) for at in app["attempts"])
    if any("attemptId" in at for at in app["attempts"]):
        return attempts,
    jobs = get(base, "applications/%s/jobs" % aid)
    stages = get(base, "applications/%s/stages" % aid)
    sqls = get(base, "applications/%s/sql?details=false&planDescription=false" % aid)
    execs = get(base, "applications/%s/allexecutors" % aid)
    return (attempts, tuple(sorted({j["status"] for j in jobs})), tuple(sorted({s["status"] for s in stages})),
            any(s["attemptId"] > 0 for s in stages), any(s.get("numFailedTasks", 0) > 0 for s in stages),
            any(s.get("numKilledTasks", 0) > 0 for s in stages), tuple(sorted({q["status"] for q in sqls})),
            bool(get(base, "applications/%s/storage/rdd" % aid)), any(not e["isActive"] for e in execs))


def listed(base, one_per_shape=False):
    """The applications the server lists; with one_per_shape, only the
    first of each shape (the scenario logs: dozens of applications of a
    dozen shapes, each client run costing seconds per application)."""
    all_apps = get(base, "applications")
    if not one_per_shape:
        return all_apps
    seen, out = set(), []
    for app in all_apps:
        s = shape(base, app)
        if s not in seen:
            seen.add(s)
            out.append(app)
    print("plan: %d of %d applications, one per shape: %s" % (len(out), len(all_apps), " ".join(a["id"] for a in out)),
          file=sys.stderr)
    return out


def apps(base, one_per_shape=False):
    """Yields (app, jobs, stage attempts, sql ids, rdd ids) for each app
    listed(); the lists are empty for an app whose attempts all have ids
    (its documents are under each attempt)."""
    for app in listed(base, one_per_shape):
        aid = app["id"]
        if any("attemptId" not in at for at in app["attempts"]):
            jobs = [j["jobId"] for j in get(base, "applications/%s/jobs" % aid)]
            stages = [(s["stageId"], s["attemptId"]) for s in get(base, "applications/%s/stages" % aid)]
            sqls = [q["id"] for q in get(base, "applications/%s/sql?details=false&planDescription=false" % aid)]
            rdds = [r["id"] for r in get(base, "applications/%s/storage/rdd" % aid)]
        else:
            jobs, stages, sqls, rdds = [], [], [], []
        yield app, sample(sorted(jobs), 1, 1), sample(sorted(stages), 2, 1), sample(sorted(sqls), 1, 1), rdds


def args(argv):
    """The drivers' arguments: OUT.jsonl [--one-per-shape] NAME=URL..."""
    one = "--one-per-shape" in argv[2:]
    return argv[1], one, [s.split("=", 1) for s in argv[2:] if s != "--one-per-shape"]
