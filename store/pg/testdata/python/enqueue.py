"""Runs README.md's Python snippet, verbatim but for the schema's name,
with psycopg 3, the way a Python service would enqueue: one statement
inside its own transaction. Run by store/pg/enqueue_clients_test.go:

    python3 enqueue.py README SCHEMA   (DATABASE_URL names the database)

It prints one JSON line: the id of the job the snippet committed, and the
SQLSTATE and message of a refused enqueue after a rolled back one.
"""

import json
import os
import re
import sys

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

readme_path, schema = sys.argv[1], sys.argv[2]
with open(readme_path, encoding="utf-8") as f:
    blocks = re.findall(r"```python\n(.*?)```", f.read(), re.S)
if len(blocks) != 1:
    sys.exit(f"{readme_path} holds {len(blocks)} python blocks; want one")
# The snippet's SQL sits in a double-quoted Python string: the schema goes
# in unquoted, so it must need no quotes.
if not re.fullmatch(r"[a-z_][a-z0-9_]*", schema):
    sys.exit(f"schema {schema!r} needs quoting; the test's schemas do not")
snippet = blocks[0].replace("tickwork.enqueue(", schema + ".enqueue(")

with psycopg.connect(os.environ["DATABASE_URL"]) as conn:
    scope = {"conn": conn}
    exec(snippet, scope)
    job_id = scope["job_id"]

    enqueue = sql.SQL("SELECT {}.enqueue(%s, %s, priority => %s)").format(sql.Identifier(schema))
    with conn.transaction(force_rollback=True):
        conn.execute(enqueue, ("welcome", Jsonb({"user": "rolled back"}), 0))
    refused = None
    try:
        with conn.transaction():
            conn.execute(enqueue, ("welcome", Jsonb({}), 12))
    except psycopg.Error as err:
        refused = {"code": err.sqlstate, "message": str(err)}

print(json.dumps({"id": str(job_id), "refused": refused}))
