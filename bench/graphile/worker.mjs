// The bench's graphile-worker side, driven by ../graphile.go:
//
//   node worker.mjs migrate  SCHEMA
//   node worker.mjs work     SCHEMA CONCURRENCY BATCHED STEP
//   node worker.mjs latency  SCHEMA SAMPLES
//
// The database is DATABASE_URL. work runs no-op jobs until its standard
// input ends (or SIGTERM), printing
// "+STEP" every STEP jobs, then shuts down gracefully and prints one JSON
// line: how many jobs it ran and when the first started and the last
// completed, in microseconds of the process clock (graphile-worker deletes
// a job when it completes, so the database keeps no times). BATCHED "1" is
// graphile-worker's published throughput settings (a local queue of 500,
// completions and failures batched at once), "0" its defaults. latency
// enqueues SAMPLES jobs one at a time on an idle worker, each once the
// previous one started, and prints their enqueue-to-start delays in
// microseconds.
import { Logger, run, runMigrations, makeWorkerUtils } from "graphile-worker";
import { performance } from "node:perf_hooks";

const [mode, schema, arg, batched, step] = process.argv.slice(2);
const connectionString = process.env.DATABASE_URL;
// work stops when its standard input ends (the bench closes it), which no
// start-up can miss, or at SIGTERM.
const stopped = new Promise((resolve) => {
  process.once("SIGTERM", resolve);
  process.stdin.on("end", resolve).resume();
});
const nowMicros = () => Math.round((performance.timeOrigin + performance.now()) * 1000);

async function work(concurrency, batching, step) {
  let ran = 0, first = 0, last = 0;
  const preset = {
    worker: batching
      ? { localQueue: { size: 500 }, completeJobBatchDelay: 0, failJobBatchDelay: 0 }
      : {},
  };
  const runner = await run({
    // A connection per job in flight and one more, as graphile-worker
    // advises, but at most 20 a process: four processes then stay within
    // PostgreSQL's default of 100 connections at 1,000 jobs in flight.
    connectionString, schema, concurrency, maxPoolSize: Math.min(20, Math.max(10, concurrency + 1)),
    noHandleSignals: true, logger: loggerFor(), preset,
    taskList: {
      noop: async () => {
        if (ran === 0) first = nowMicros();
        ran++;
        if (ran % step === 0) process.stdout.write(`+${step}\n`);
      },
    },
  });
  runner.events.on("job:success", () => { last = nowMicros(); });
  await stopped;
  await runner.stop();
  process.stdout.write(JSON.stringify({ ran, first, last }) + "\n");
}

async function latency(samples) {
  const delays = [];
  let started = null;
  const runner = await run({
    connectionString, schema, concurrency: 1, noHandleSignals: true, logger: loggerFor(),
    taskList: { ping: async () => { started?.(nowMicros()); } },
  });
  const utils = await makeWorkerUtils({ connectionString, schema, logger: loggerFor() });
  await new Promise((resolve) => setTimeout(resolve, 500)); // let the worker start and go idle
  for (let i = 0; i < samples; i++) {
    const start = new Promise((resolve) => { started = resolve; });
    const t0 = nowMicros();
    await utils.addJob("ping", {});
    delays.push((await start) - t0);
  }
  await utils.release();
  await runner.stop();
  process.stdout.write(JSON.stringify({ delays }) + "\n");
}

// loggerFor is graphile-worker's logger, quiet but for warnings and errors.
function loggerFor() {
  return new Logger(() => (level, message) => {
    if (level === "error" || level === "warning") console.error(`graphile-worker ${level}: ${message}`);
  });
}

switch (mode) {
  case "migrate":
    await runMigrations({ connectionString, schema, logger: loggerFor() });
    break;
  case "work":
    await work(Number(arg), batched === "1", Number(step));
    break;
  case "latency":
    await latency(Number(arg));
    break;
  default:
    console.error(`worker.mjs: unknown mode ${mode}`);
    process.exit(2);
}
