// Enqueues tickwork jobs from Node.js with the npm pg package, the way a
// TypeScript service would: one statement inside the service's own
// transaction. Run by store/pg/enqueue_clients_test.go:
//   node enqueue.mjs SCHEMA README   (DATABASE_URL names the database)
// It prints one JSON line: the id of a job it committed, that a rolled back
// enqueue left nothing, the SQLSTATE and message of a refused one, and the
// id of the job README's TypeScript snippet, run verbatim but for the
// schema's name, committed.
import { readFileSync } from "node:fs";
import pg from "pg";

const [schema, readmePath] = process.argv.slice(2);
const blocks = [...readFileSync(readmePath, "utf8").matchAll(/```ts\n(.*?)```/gs)].map((m) => m[1]);
if (blocks.length !== 1) {
  throw new Error(`${readmePath} holds ${blocks.length} ts blocks; want one`);
}
// The snippet's SQL sits in a double-quoted string: the schema goes in
// unquoted, so it must need no quotes.
if (!/^[a-z_][a-z0-9_]*$/.test(schema)) {
  throw new Error(`schema ${schema} needs quoting; the test's schemas do not`);
}
const AsyncFunction = (async () => {}).constructor;
const snippet = new AsyncFunction("client", blocks[0].replaceAll("tickwork.enqueue(", `${schema}.enqueue(`) + "\nreturn rows;");
const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
await client.connect();
const enqueue = `SELECT ${client.escapeIdentifier(schema)}.enqueue($1, $2, priority => $3, unique_key => $4) AS id`;
try {
  await client.query("BEGIN");
  const { rows } = await client.query(enqueue, ["emails", { to: "node@example.com" }, 4, "node-1"]);
  await client.query("COMMIT");

  await client.query("BEGIN");
  await client.query(enqueue, ["emails", { to: "rolled back" }, 0, null]);
  await client.query("ROLLBACK");

  let refused = null;
  try {
    await client.query(enqueue, ["emails", { to: "x" }, 12, null]);
  } catch (err) {
    refused = { code: err.code, message: err.message };
  }
  const readme = await snippet(client);
  console.log(JSON.stringify({ id: rows[0].id, refused, readme: readme[0].id }));
} finally {
  await client.end();
}
