"""Serves DuckDB queries for sparkdx's tests (deltaread.DuckDB): one JSON
string (a SQL statement) per stdin line, one JSON object per stdout line:
{"columns": [...], "types": [...], "rows": [[...], ...]} or {"error": "..."}.
Timestamps are sent as epoch microseconds (naive ones read as UTC), dates
and decimals as text, so no value changes on the way."""
import calendar
import datetime
import decimal
import json
import sys

import duckdb


def value(v):
    if isinstance(v, datetime.datetime):
        if v.tzinfo is not None:
            v = v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return calendar.timegm(v.timetuple()) * 1_000_000 + v.microsecond
    if isinstance(v, (datetime.date, decimal.Decimal)):
        return str(v)
    if isinstance(v, (list, tuple)):
        return [value(x) for x in v]
    if isinstance(v, dict):
        return {str(k): value(x) for k, x in v.items()}
    return v


def main():
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    for line in sys.stdin:
        try:
            rel = con.sql(json.loads(line))
            if rel is None:  # a statement without a result
                out = {"columns": [], "types": [], "rows": []}
            else:
                out = {"columns": rel.columns, "types": [str(t) for t in rel.types],
                       "rows": [[value(v) for v in row] for row in rel.fetchall()]}
        except Exception as e:  # the query's error goes back to the test
            out = {"error": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


main()
