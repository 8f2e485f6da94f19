/**
 * `npm run bench:backend`: durable handoff transitions per second over signed HTTP (several concurrent
 * clients against a real `baton backend` process) against raw SQLite commits per second on the same
 * handoff rows with the same pragmas, one transaction per row update, measured in the same run.
 */
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FORWARD_STATES, type HandoffState } from '../shared/handoff-states.ts';
import { migrate } from '../backend/store/sqlite-migrations.ts';
import { applyDurablePragmas } from '../backend/store/sqlite-store.ts';
import { startBackendProcess } from '../electron/sync/backend-process.ts';
import type { BackendClient } from '../electron/sync/backend-client.ts';
import { createTestAccount, joinTestDevice, newId, newTestDevice, opaque } from '../electron/sync/sync-fixtures.ts';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Walks handoffs between two devices, back and forth, until `deadline`; returns the transitions made. */
async function walk(a: BackendClient, b: BackendClient, sessionId: string, generation: number, checkpoint: { digest: string; size: number }, deadline: number) {
  let [owner, other] = [a, b];
  let count = 0;
  while (Date.now() < deadline) {
    const handoffId = newId();
    const created = await owner.call('createHandoff', { body: { handoffId, sessionId, targetDeviceId: other.deviceId, generation } });
    if (!created.ok) throw new Error(`createHandoff: ${created.code}`);
    count++;
    const steps: [BackendClient, HandoffState, HandoffState, number, Record<string, unknown>][] = [
      [other, 'requested', 'target-prepared', generation, {}],
      [owner, 'target-prepared', 'source-quiescing', generation, {}],
      [owner, 'source-quiescing', 'source-relinquished-and-checkpointed', generation, { checkpoint }],
      [other, 'source-relinquished-and-checkpointed', 'ownership-transferred', generation, {}],
      [other, 'ownership-transferred', 'target-activating', generation + 1, {}],
      [other, 'target-activating', 'completed', generation + 1, { resumePath: 'checkpoint-import' }],
    ];
    for (const [device, from, to, gen, extra] of steps) {
      const moved = await device.call('transitionHandoff', { params: { handoffId }, body: { from, to, generation: gen, ...extra } });
      if (!moved.ok) throw new Error(`${from} → ${to}: ${moved.code} ${moved.message}`);
      count++;
    }
    generation++;
    [owner, other] = [other, owner];
  }
  return { count, generation, swapped: owner === b };
}

/** A backend process with CLIENTS lanes (two devices and a session each) ready to walk handoffs. */
async function setUpHttp() {
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-backend-'));
  const backend = await startBackendProcess(dir);
  const stop = async () => {
    await backend.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const anchor = newTestDevice(backend.url, 'anchor');
    await createTestAccount(anchor);
    const body = Buffer.from(opaque(1024));
    const checkpoint = { digest: createHash('sha256').update(body).digest('hex'), size: body.length };
    if (!(await anchor.client.putBlob(checkpoint.digest, body)).ok) throw new Error('putBlob failed');
    const lanes: { a: BackendClient; b: BackendClient; sessionId: string; generation: number }[] = [];
    for (let i = 0; i < CLIENTS; i++) {
      const a = newTestDevice(backend.url, `a${i}`);
      const b = newTestDevice(backend.url, `b${i}`);
      await joinTestDevice(anchor, a);
      await joinTestDevice(anchor, b);
      const sessionId = newId();
      if (!(await a.client.call('createSession', { body: { sessionId, sealedMeta: opaque() } })).ok) throw new Error('createSession failed');
      lanes.push({ a: a.client, b: b.client, sessionId, generation: 1 });
    }
    /** One round: every lane walks handoffs for `ms`; resolves to transitions per second. */
    const round = async (ms: number) => {
      const started = Date.now();
      const results = await Promise.all(lanes.map((l) => walk(l.a, l.b, l.sessionId, l.generation, checkpoint, started + ms)));
      results.forEach((r, i) => {
        const lane = lanes[i]!;
        lane.generation = r.generation;
        if (r.swapped) [lane.a, lane.b] = [lane.b, lane.a];
      });
      return results.reduce((n, r) => n + r.count, 0) / ((Date.now() - started) / 1000);
    };
    return { round, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Raw commits: the same handoff rows, the same pragmas, one transaction per row update. */
function setUpRawSqlite() {
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-sqlite-'));
  const db = new Database(join(dir, 'baton.sqlite'));
  {
    applyDurablePragmas(db);
    migrate(db, Date.now());
    db.prepare("INSERT INTO accounts (id, current_key_version, created_at) VALUES ('acct', 1, 0)").run();
    const ids = Array.from({ length: CLIENTS }, (_, i) => `s${i}`);
    for (const id of ids) {
      db.prepare("INSERT INTO sessions (id, account_id, owner_device_id, generation, sealed_meta, created_at, updated_at) VALUES (?, 'acct', 'd', 1, 'm', 0, 0)").run(id);
      db.prepare("INSERT INTO handoffs (id, account_id, session_id, source_device_id, target_device_id, state, generation, created_at, updated_at) VALUES (?, 'acct', ?, 'a', 'b', 'requested', 1, 0, 0)").run(`h${id}`, id);
    }
    const update = db.prepare('UPDATE handoffs SET state = ?, updated_at = ? WHERE id = ?');
    const commit = db.transaction((state: string, id: string) => update.run(state, Date.now(), id));
    /** One round of commits for `ms`; returns commits per second. */
    const round = (ms: number) => {
      const started = performance.now();
      let n = 0;
      while (performance.now() - started < ms) {
        commit(FORWARD_STATES[n % 6]!, `h${ids[n % ids.length]}`);
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
}

// Rounds alternate between the two so both see the same machine (other work on it varies).
const raw = setUpRawSqlite();
const http = await setUpHttp();
const baseline: number[] = [];
const ours: number[] = [];
try {
  raw.round(300);
  await http.round(500);
  for (let i = 0; i < ROUNDS; i++) {
    baseline.push(raw.round(SECONDS * 1000));
    ours.push(await http.round(SECONDS * 1000));
  }
} finally {
  raw.stop();
  await http.stop();
}
const oursMedian = median(ours);
const baselineMedian = median(baseline);
const ratio = oursMedian / baselineMedian;
const row = (name: string, xs: number[], m: number) => `${name.padEnd(44)} ${xs.map((x) => x.toFixed(0).padStart(7)).join(' ')}   median ${m.toFixed(0).padStart(7)}`;
console.log(`backend benchmark: ${CLIENTS} concurrent clients, ${ROUNDS} rounds of ${SECONDS}s`);
console.log(row('durable transitions/s over signed HTTP', ours, oursMedian));
console.log(row('raw SQLite commits/s (same rows, FULL, WAL)', baseline, baselineMedian));
console.log(`ratio ours/baseline: ${ratio.toFixed(3)} (aim ≥ 0.25)`);
console.log(JSON.stringify({ bench: 'backend', ratio: Number(ratio.toFixed(4)), ours_transitions_per_s: Math.round(oursMedian), baseline_commits_per_s: Math.round(baselineMedian), clients: CLIENTS, seconds_per_round: SECONDS }));
