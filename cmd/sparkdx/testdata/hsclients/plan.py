"""What the client drivers ask: every application the reference History
Server lists, and for each a sample of its jobs, stages and queries (the
first and the last ones), read from that server's own answers."""
import json
import urllib.request


def get(base, path):
    with urllib.request.urlopen(base + "/api/v1/" + path, timeout=120) as r:
        return json.load(r)


def sample(xs, first=3, last=2):
    return xs if len(xs) <= first + last else xs[:first] + xs[-last:]


def apps(base):
    """Yields (app, jobs, stage attempts, sql ids, rdd ids) for each app
    the server lists; the lists are empty for an app whose attempts all
    have ids (its documents are under each attempt)."""
    for app in get(base, "applications"):
        aid = app["id"]
        if any("attemptId" not in at for at in app["attempts"]):
            jobs = [j["jobId"] for j in get(base, "applications/%s/jobs" % aid)]
            stages = [(s["stageId"], s["attemptId"]) for s in get(base, "applications/%s/stages" % aid)]
            sqls = [q["id"] for q in get(base, "applications/%s/sql?details=false&planDescription=false" % aid)]
            rdds = [r["id"] for r in get(base, "applications/%s/storage/rdd" % aid)]
        else:
            jobs, stages, sqls, rdds = [], [], [], []
        yield app, sample(sorted(jobs), 1, 1), sample(sorted(stages), 2, 1), sample(sorted(sqls), 1, 1), rdds
