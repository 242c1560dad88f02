"""Starts Kubeflow's MCP server for the History Server (PyPI's
mcp-apache-spark-history-server) over stdio, configured with each History
Server given, calls every tool it lists through the MCP protocol for every
application against each server, and writes one JSON line per (call,
server): whether the tool failed and what it answered.

usage: mcp_driver.py OUT.jsonl [--one-per-shape] NAME=URL... (the first
server is the reference whose answers decide what to ask; --one-per-shape:
the per-application calls for the first application of each shape only,
plan.listed)"""
import asyncio
import json
import os
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

import plan


def calls(ref, one_per_shape):
    yield "list_applications", {}
    yield "list_applications", {"status": ["COMPLETED"]}
    yield "list_applications", {"limit": 1}
    listed = list(plan.apps(ref, one_per_shape))
    for app, jobs, stages, sqls, rdds in listed:
        if not jobs and not stages:
            continue  # every attempt has an id: the tools ask for the app's own
        a = {"app_id": app["id"]}
        yield "list_applications", a
        yield "list_jobs", a
        yield "list_stages", a
        yield "list_stages", dict(a, with_summaries=True)
        for s, att in stages:
            yield "get_stage", dict(a, stage_id=s, attempt_id=att)
            yield "get_stage", dict(a, stage_id=s, attempt_id=att, with_summaries=True)
            yield "list_stage_task_failures", dict(a, stage_id=s, stage_attempt_id=att)
        yield "get_environment", a
        yield "list_executors", a
        yield "list_executors", dict(a, include_inactive=True)
        yield "get_executor_summary", a
        yield "get_executor_thread_dump", dict(a, executor_id="driver")
        yield "list_sql_executions", a
        for q in sqls:
            yield "get_sql_execution", dict(a, execution_id=q, include_plan=True, include_aggregated_metrics=True,
                                            include_stages=True)
        yield "get_job_bottlenecks", a
        yield "get_resource_usage_timeline", a
    pairs = [(x, y) for x, y in zip(listed, listed[1:]) if x[2] and y[2]]
    for (x, _, xs, _, _), (y, _, ys, _, _) in pairs:
        two = {"app_id1": x["id"], "app_id2": y["id"]}
        yield "compare_job_environments", two
        yield "compare_job_performance", two
        yield "compare_stages", dict(two, stage_id1=xs[0][0], stage_id2=ys[0][0])
    queried = [x for x in listed if x[3]]
    for x, y in zip(queried, queried[1:]):
        yield "compare_sql_executions", {"app_id1": x[0]["id"], "app_id2": y[0]["id"]}


async def run(out_path, one_per_shape, servers):
    conf = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
    conf.write("servers:\n")
    for i, (name, url) in enumerate(servers):
        conf.write("  %s:\n    url: %s\n    default: %s\n" % (name, json.dumps(url), "true" if i == 0 else "false"))
    conf.write("mcp:\n  transport: stdio\n")
    conf.close()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHS_")}
    env.update(SHS_MCP_CONFIG=conf.name, SHS_MCP_TRANSPORT="stdio")
    params = StdioServerParameters(command=sys.executable, args=["-m", "spark_history_mcp.core.main"], env=env)
    async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        tools = sorted(t.name for t in (await s.list_tools()).tools)
        with open(out_path, "w") as out:
            out.write(json.dumps({"tools": tools}) + "\n")
            for tool, args in calls(servers[0][1], one_per_shape):
                for name, url in servers:
                    res = await s.call_tool(tool, dict(args, server=name))
                    text = "\n".join(c.text for c in res.content if getattr(c, "text", None) is not None)
                    out.write(json.dumps({"call": tool + " " + json.dumps(args, sort_keys=True), "server": name,
                                          "error": bool(res.isError), "output": text.replace(url, "SERVER")}) + "\n")
    os.remove(conf.name)


if __name__ == "__main__":
    asyncio.run(run(*plan.args(sys.argv)))
