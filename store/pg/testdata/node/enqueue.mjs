// Enqueues tickwork jobs from Node.js with the npm pg package, the way a
// TypeScript service would: one statement inside the service's own
// transaction. Run by store/pg/enqueue_clients_test.go:
//   node enqueue.mjs SCHEMA   (DATABASE_URL names the database)
// It prints one JSON line: the id of a job it committed, that a rolled back
// enqueue left nothing, and the SQLSTATE and message of a refused one.
import pg from "pg";

const schema = process.argv[2];
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
  console.log(JSON.stringify({ id: rows[0].id, refused }));
} finally {
  await client.end();
}
