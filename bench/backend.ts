/**
 * `npm run bench:backend`: durable handoff transitions per second over signed HTTP (several concurrent
 * clients against a real `baton backend` process) against raw SQLite commits per second on the same
 * handoff rows with the same pragmas, one transaction per step, measured in the same run (rounds
 * alternate; medians are reported). A second row does the same on PostgreSQL: `baton backend
 * --database` against raw commits of the same rows from one client, on one durable throwaway server
 * (fsync on, synchronous commit). The clients run in this process, so their signing and parsing
 * share the machine with the backend; the CPU each side spends per transition is printed too.
 */
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FORWARD_STATES } from '../shared/handoff-states.ts';
import { migrate } from '../backend/store/sqlite/migrate.ts';
import { applyDurablePragmas } from '../backend/store/sqlite/sqlite-store.ts';
import pg from 'pg';
import { startBackendProcess } from '../dev-env/backend-process.ts';
import { startPostgres } from '../dev-env/postgres-server.ts';
import type { BackendClient } from '../electron/sync/backend-client.ts';
import { newId, newMovingPair, opaque, walkHandoff } from '../dev-env/sync-fixtures.ts';
import { openPushStream } from '../electron/sync/push-stream.ts';
import { median } from './median.ts';
import { processCpuMs } from './process-cpu.ts';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const STREAMS = process.env.BENCH_STREAMS !== '0';

/** Walks handoffs between two devices, back and forth, until `deadline`; returns the transitions made. */
async function walk(
  a: BackendClient,
  b: BackendClient,
  sessionId: string,
  generation: number,
  checkpoint: { digest: string; size: number },
  deadline: number,
) {
  let [owner, other] = [a, b];
  let count = 0;
  while (Date.now() < deadline) {
    const walked = await walkHandoff(owner, other, sessionId, generation, checkpoint, () => count++);
    if (!walked.ok) throw new Error(`${walked.step}: ${walked.code} ${walked.message}`);
    generation++;
    [owner, other] = [other, owner];
  }
  return { count, generation, swapped: owner === b };
}

/**
 * A backend process with CLIENTS lanes ready to walk handoffs. Each lane is an account of its own with
 * two devices and a session, as a user's laptop and desktop would be; unless BENCH_STREAMS=0 both
 * devices hold the account's push stream open, so every transition is also fanned out to them.
 */
async function setUpHttp(database?: string) {
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-backend-'));
  const backend = await startBackendProcess(database ? ['--database', database] : dir);
  const closers: (() => void)[] = [];
  let pushed = 0;
  const stop = async () => {
    closers.forEach((close) => close());
    await backend.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const body = Buffer.from(opaque(1024));
    const checkpoint = { digest: createHash('sha256').update(body).digest('hex'), size: body.length };
    const lanes: { a: BackendClient; b: BackendClient; sessionId: string; generation: number }[] = [];
    for (let i = 0; i < CLIENTS; i++) {
      const { a, b, sessionId } = await newMovingPair(backend.url, backend.url, i, { digest: checkpoint.digest, body });
      if (STREAMS) {
        for (const device of [a, b]) {
          await new Promise<void>((resolve) => {
            closers.push(openPushStream(device.client, (m) => (pushed += m.type === 'handoff' ? 1 : 0), { onOpen: () => resolve() }));
          });
        }
      }
      lanes.push({ a: a.client, b: b.client, sessionId, generation: 1 });
    }
    /** One round: every lane walks handoffs for `ms`; resolves to transitions per second and CPU per transition. */
    const round = async (ms: number) => {
      const serverBefore = processCpuMs(backend.child.pid!);
      const clientBefore = process.cpuUsage();
      const started = Date.now();
      const results = await Promise.all(lanes.map((l) => walk(l.a, l.b, l.sessionId, l.generation, checkpoint, started + ms)));
      results.forEach((r, i) => {
        const lane = lanes[i]!;
        lane.generation = r.generation;
        if (r.swapped) [lane.a, lane.b] = [lane.b, lane.a];
      });
      const elapsed = (Date.now() - started) / 1000;
      const count = results.reduce((n, r) => n + r.count, 0);
      const serverAfter = processCpuMs(backend.child.pid!);
      const client = process.cpuUsage(clientBefore);
      return {
        count,
        perSecond: count / elapsed,
        serverCpuMs: serverBefore === undefined || serverAfter === undefined ? NaN : (serverAfter - serverBefore) / count,
        clientCpuMs: (client.user + client.system) / 1000 / count,
      };
    };
    return { round, stop, pushed: () => pushed };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** One lane per client for the raw baselines: a session of its own, walked by devices 'a' and 'b'. */
function rawLanes() {
  return Array.from({ length: CLIENTS }, (_, i) => ({ sessionId: `s${i}`, handoffId: '', step: 0, generation: 1, owner: 'a', other: 'b' }));
}

/**
 * Raw commits: what one transition durably writes, with the same pragmas and schema, one transaction
 * per step and nothing else. Each lane walks its handoffs through the same seven steps as over HTTP:
 * `requested` inserts the handoff row; each later step updates it; ownership-transferred also bumps
 * the session's generation and owner; every step appends its history row and records the answer
 * under an idempotency key (a body the size of the real one). Request nonces are left out (they live
 * in another database, synchronous NORMAL), which only makes the baseline faster.
 */
function setUpRawSqlite() {
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-sqlite-'));
  const db = new Database(join(dir, 'baton.sqlite'));
  applyDurablePragmas(db);
  migrate(db, Date.now());
  db.prepare("INSERT INTO accounts (id, current_key_version, created_at) VALUES ('acct', 1, 0)").run();
  const lanes = rawLanes();
  for (const lane of lanes) {
    db.prepare(
      "INSERT INTO sessions (id, account_id, owner_device_id, generation, sealed_meta, created_at, updated_at) VALUES (?, 'acct', 'a', 1, 'm', 0, 0)",
    ).run(lane.sessionId);
  }
  const q = {
    create: db.prepare(
      "INSERT INTO handoffs (id, account_id, session_id, source_device_id, target_device_id, state, generation, created_at, updated_at) VALUES (?, 'acct', ?, ?, ?, 'requested', ?, ?, ?)",
    ),
    move: db.prepare("UPDATE handoffs SET state = ?, updated_at = ? WHERE account_id = 'acct' AND id = ? AND state = ?"),
    transfer: db.prepare(
      "UPDATE sessions SET generation = generation + 1, owner_device_id = ?, updated_at = ? WHERE account_id = 'acct' AND id = ? AND generation = ?",
    ),
    history: db.prepare("INSERT INTO handoff_history (account_id, handoff_id, seq, state, at, device_id) VALUES ('acct', ?, ?, ?, ?, ?)"),
    idem: db.prepare('INSERT INTO idempotency (device_id, key, request_digest, status, body, created_at) VALUES (?, ?, ?, 200, ?, ?)'),
  };
  const answer = JSON.stringify({
    handoff: {
      id: newId(),
      history: Array.from({ length: 7 }, () => ({ state: 'target-prepared', at: Date.now(), deviceId: newId() })),
      checkpoint: { digest: 'f'.repeat(64), size: 1024 },
    },
  });
  const step = db.transaction((lane: (typeof lanes)[number]) => {
    const at = Date.now();
    const state = FORWARD_STATES[lane.step]!;
    if (lane.step === 0) {
      lane.handoffId = newId();
      q.create.run(lane.handoffId, lane.sessionId, lane.owner, lane.other, lane.generation, at, at);
    } else {
      q.move.run(state, at, lane.handoffId, FORWARD_STATES[lane.step - 1]!);
      if (state === 'ownership-transferred') q.transfer.run(lane.other, at, lane.sessionId, lane.generation);
    }
    q.history.run(lane.handoffId, lane.step + 1, state, at, lane.owner);
    q.idem.run(lane.owner, newId(), 'd'.repeat(64), answer, at);
  });
  /** One round of commits for `ms`, lanes in turn; returns commits per second. */
  const round = (ms: number) => {
    const started = performance.now();
    let n = 0;
    while (performance.now() - started < ms) {
      const lane = lanes[n % lanes.length]!;
      step(lane);
      if (++lane.step === FORWARD_STATES.length) {
        Object.assign(lane, { step: 0, generation: lane.generation + 1, owner: lane.other, other: lane.owner });
      }
      n++;
    }
    return n / ((performance.now() - started) / 1000);
  };
  const stop = () => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { round, stop };
}

/**
 * Raw PostgreSQL commits of the same rows (the same schema, migrated as the backend does), one
 * transaction per step from one client, synchronous commit: what the PostgreSQL store writes for one
 * transition, with nothing around it.
 */
async function setUpRawPostgres(database: string) {
  const { migratePostgres } = await import('../backend/store/postgres/migrate.ts');
  const pool = new pg.Pool({ connectionString: database, max: 1 });
  await migratePostgres(pool, Date.now());
  const db = await pool.connect();
  await db.query("INSERT INTO accounts (id, current_key_version, created_at) VALUES ('acct', 1, 0)");
  const lanes = rawLanes();
  for (const lane of lanes) {
    await db.query(
      "INSERT INTO sessions (id, account_id, owner_device_id, generation, sealed_meta, created_at, updated_at) VALUES ($1, 'acct', 'a', 1, 'm', 0, 0)",
      [lane.sessionId],
    );
  }
  const answer = JSON.stringify({
    handoff: { id: newId(), history: Array.from({ length: 7 }, () => ({ state: 'target-prepared', at: Date.now(), deviceId: newId() })) },
  });
  const step = async (lane: (typeof lanes)[number]) => {
    const at = Date.now();
    const state = FORWARD_STATES[lane.step]!;
    await db.query('BEGIN');
    if (lane.step === 0) {
      lane.handoffId = newId();
      await db.query(
        "INSERT INTO handoffs (id, account_id, session_id, source_device_id, target_device_id, state, generation, created_at, updated_at) VALUES ($1, 'acct', $2, $3, $4, 'requested', $5, $6, $6)",
        [lane.handoffId, lane.sessionId, lane.owner, lane.other, lane.generation, at],
      );
    } else {
      await db.query("UPDATE handoffs SET state = $1, updated_at = $2 WHERE account_id = 'acct' AND id = $3 AND state = $4", [
        state,
        at,
        lane.handoffId,
        FORWARD_STATES[lane.step - 1],
      ]);
      if (state === 'ownership-transferred')
        await db.query(
          "UPDATE sessions SET generation = generation + 1, owner_device_id = $1, updated_at = $2 WHERE account_id = 'acct' AND id = $3 AND generation = $4",
          [lane.other, at, lane.sessionId, lane.generation],
        );
    }
    await db.query("INSERT INTO handoff_history (account_id, handoff_id, seq, state, at, device_id) VALUES ('acct', $1, $2, $3, $4, $5)", [
      lane.handoffId,
      lane.step + 1,
      state,
      at,
      lane.owner,
    ]);
    await db.query('INSERT INTO idempotency (device_id, key, request_digest, status, body, created_at) VALUES ($1, $2, $3, 200, $4, $5)', [
      lane.owner,
      newId(),
      'd'.repeat(64),
      answer,
      at,
    ]);
    await db.query('COMMIT');
  };
  const round = async (ms: number) => {
    const started = performance.now();
    let n = 0;
    while (performance.now() - started < ms) {
      const lane = lanes[n % lanes.length]!;
      await step(lane);
      if (++lane.step === FORWARD_STATES.length)
        Object.assign(lane, { step: 0, generation: lane.generation + 1, owner: lane.other, other: lane.owner });
      n++;
    }
    return n / ((performance.now() - started) / 1000);
  };
  const stop = async () => {
    db.release();
    await pool.end();
  };
  return { round, stop };
}

// Rounds alternate between the four so all see the same machine (other work on it varies).
const server = await startPostgres({ prefix: 'baton-bench-pg-' });
const raw = setUpRawSqlite();
const http = await setUpHttp();
const rawPg = await setUpRawPostgres(await server.createDatabase('raw'));
const httpPg = await setUpHttp(await server.createDatabase('backend'));
const baseline: number[] = [];
const ours: number[] = [];
const pgBaseline: number[] = [];
const pgOurs: number[] = [];
const serverCpu: number[] = [];
const clientCpu: number[] = [];
let transitions = 0;
let pushed = 0;
try {
  raw.round(300);
  transitions += (await http.round(500)).count;
  await rawPg.round(300);
  await httpPg.round(500);
  for (let i = 0; i < ROUNDS; i++) {
    baseline.push(raw.round(SECONDS * 1000));
    const round = await http.round(SECONDS * 1000);
    ours.push(round.perSecond);
    transitions += round.count;
    serverCpu.push(round.serverCpuMs);
    clientCpu.push(round.clientCpuMs);
    pgBaseline.push(await rawPg.round(SECONDS * 1000));
    pgOurs.push((await httpPg.round(SECONDS * 1000)).perSecond);
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  pushed = http.pushed();
} finally {
  raw.stop();
  await http.stop();
  await rawPg.stop();
  await httpPg.stop();
  await server.stop();
}
const pgRatio = median(pgOurs) / median(pgBaseline);
const oursMedian = median(ours);
const baselineMedian = median(baseline);
const ratio = oursMedian / baselineMedian;
const row = (name: string, xs: number[], m: number, digits = 0) =>
  `${name.padEnd(44)} ${xs.map((x) => x.toFixed(digits).padStart(7)).join(' ')}   median ${m.toFixed(digits).padStart(7)}`;
console.log(
  `backend benchmark: ${CLIENTS} concurrent clients, ${ROUNDS} alternating rounds of ${SECONDS}s, push streams ${STREAMS ? 'on (2 per account)' : 'off'}`,
);
console.log(row('durable transitions/s over signed HTTP', ours, oursMedian));
console.log(row('raw SQLite commits/s (same rows, FULL, WAL)', baseline, baselineMedian));
console.log(row('  backend CPU ms per transition', serverCpu, median(serverCpu), 3));
console.log(row("  clients' CPU ms per transition (signing…)", clientCpu, median(clientCpu), 3));
console.log(row('PostgreSQL: durable transitions/s over HTTP', pgOurs, median(pgOurs)));
console.log(row('raw PostgreSQL commits/s (same rows, 1 client)', pgBaseline, median(pgBaseline)));
console.log(`PostgreSQL ratio ours/baseline: ${pgRatio.toFixed(3)} (aim ≥ 0.5)`);
if (STREAMS)
  console.log(
    `push: ${pushed} handoff messages delivered for ${transitions} transitions (${(pushed / transitions).toFixed(2)} each; 2 expected)`,
  );
console.log(`ratio ours/baseline: ${ratio.toFixed(3)} (aim ≥ 0.25)`);
console.log(
  JSON.stringify({
    bench: 'backend',
    ratio: Number(ratio.toFixed(4)),
    ours_transitions_per_s: Math.round(oursMedian),
    baseline_commits_per_s: Math.round(baselineMedian),
    backend_cpu_ms_per_transition: Number(median(serverCpu).toFixed(3)),
    client_cpu_ms_per_transition: Number(median(clientCpu).toFixed(3)),
    clients: CLIENTS,
    rounds: ROUNDS,
    seconds_per_round: SECONDS,
    push_streams: STREAMS ? 2 * CLIENTS : 0,
    postgres_ratio: Number(pgRatio.toFixed(4)),
    postgres_transitions_per_s: Math.round(median(pgOurs)),
    postgres_baseline_commits_per_s: Math.round(median(pgBaseline)),
  }),
);
