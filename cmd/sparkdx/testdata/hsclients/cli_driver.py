"""Runs every command of spark-history-cli (PyPI), in text and --json, in
process through click, against each History Server given, and writes one
JSON line per (command, server): its exit code and output.

usage: cli_driver.py OUT.jsonl [--one-per-shape] NAME=URL... (the first
server is the reference whose answers decide what to ask; --one-per-shape:
the per-application commands for the first application of each shape
only, plan.listed)"""
import hashlib
import json
import os
import sys
import tempfile
import zipfile

from click.testing import CliRunner
from spark_history_cli.cli import cli

import plan


def commands(ref, zips, one_per_shape):
    yield [], ["version"]
    yield [], ["apps"]
    for opt in (["--status", "completed"], ["--status", "running"], ["--limit", "1"]):
        yield [], ["apps"] + opt
    for app, jobs, stages, sqls, rdds in plan.apps(ref, one_per_shape):
        aid = app["id"]
        a = ["-a", aid]
        yield [], ["app", aid]
        yield a, ["attempts"]
        for at in app["attempts"]:
            if "attemptId" in at:
                yield a, ["attempt", at["attemptId"]]
        for cmd in (["processes"], ["summary"], ["jobs"], ["jobs", "--status", "failed"], ["stages"],
                    ["stages", "--status", "complete"], ["executors"], ["executors", "--all"], ["sql"],
                    ["rdds"], ["env"], ["logs", os.path.join(zips, "{server}.zip")]):
            yield a, cmd
        for j in jobs:
            yield a, ["job", str(j)]
            yield a, ["job-stages", str(j)]
        for s, att in stages:
            yield a, ["stage", str(s)]
            yield a, ["stage", str(s), "--attempt", str(att)]
            yield a, ["stage-summary", str(s), "--attempt", str(att)]
            yield a, ["stage-tasks", str(s), "--attempt", str(att)]
            yield a, ["stage-tasks", str(s), "--attempt", str(att), "--sort-by", "ID", "--length", "50"]
        for q in sqls:
            yield a, ["sql", str(q)]
            yield a, ["sql-plan", str(q)]
            yield a, ["sql-plan", str(q), "--dot"]
            yield a, ["sql-jobs", str(q)]
        for r in rdds:
            yield a, ["rdd", str(r)]


def zip_listing(path):
    """The names and SHA-256 of a zip's entries: what `logs` fetched."""
    if not os.path.exists(path):
        return None
    with zipfile.ZipFile(path) as z:
        out = sorted((i.filename, hashlib.sha256(z.read(i)).hexdigest()) for i in z.infolist())
    os.remove(path)
    return out


def main():
    out_path, one_per_shape, servers = plan.args(sys.argv)
    runner = CliRunner()
    zips = tempfile.mkdtemp()
    with open(out_path, "w") as out:
        for group, cmd in commands(servers[0][1], zips, one_per_shape):
            for mode in ([], ["--json"]):
                for name, url in servers:
                    args = [c.replace("{server}", name) for c in cmd]
                    res = runner.invoke(cli, ["--server", url] + mode + group + args)
                    text = res.output
                    if res.exception is not None and not isinstance(res.exception, SystemExit):
                        text += "\nexception: %s: %s" % (type(res.exception).__name__, res.exception)
                    text = text.replace(url, "SERVER").replace(os.path.join(zips, name + ".zip"), "OUT.zip")
                    rec = {"call": " ".join(mode + group + cmd), "server": name, "exit": res.exit_code, "output": text}
                    if cmd[0] == "logs":
                        rec["zip"] = zip_listing(os.path.join(zips, name + ".zip"))
                    out.write(json.dumps(rec) + "\n")


if __name__ == "__main__":
    main()
