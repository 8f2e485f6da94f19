/**
 * `npm run bench:fleet`: a fleet of simulated devices on PostgreSQL. ACCOUNTS accounts of two devices
 * each, every device holding its own push stream open (2 × ACCOUNTS streams), move their sessions
 * back and forth through one backend instance, then through two instances on one database (each
 * account's laptop on one, its desktop on the other, so every push crosses instances). For each: the
 * maximum transitions/s with LANES accounts moving at once, and `ratio` = two instances ÷ one. Then,
 * on two instances at half the one-instance maximum (paced), p50/p99 from a transition's commit (its
 * answer) to the push arriving at the other device. One durable throwaway server (fsync on).
 */
import { createHash } from 'node:crypto';
import type { PushMessage } from '../shared/api/push.ts';
import { startBackendProcess, type BackendProcess } from '../dev-env/backend-process.ts';
import { startPostgres } from '../dev-env/postgres-server.ts';
import { newId, newMovingPair, opaque, walkHandoff, type TestDevice } from '../dev-env/sync-fixtures.ts';
import { createBackendClient, type BackendClient } from '../electron/sync/backend-client.ts';
import { openPushStream } from '../electron/sync/push-stream.ts';
import { median } from './median.ts';
import { processCpuMs } from './process-cpu.ts';

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 1000);
const LANES = Number(process.env.BENCH_LANES ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const LATENCY_SAMPLES = Number(process.env.BENCH_SAMPLES ?? 400);
/** Accounts set up at once (each: create, invite, join, approve, a blob, a session, two streams). */
const SETUP_WIDTH = 32;

interface Pair {
  a: TestDevice;
  b: TestDevice;
  clients: [BackendClient, BackendClient];
  sessionId: string;
  generation: number;
}

/** Runs `work` over `items`, `width` at a time. */
async function inParallel<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** A fleet on `instances`: accounts, sessions, a checkpoint each, every device's stream open. */
async function fleet(instances: BackendProcess[]) {
  const pairs: Pair[] = [];
  const closers: (() => void)[] = [];
  const arrivals = new Map<string, (at: number) => void>();
  let streams = 0;
  const body = Buffer.from(opaque(1024));
  const checkpoint = { digest: createHash('sha256').update(body).digest('hex'), size: body.length };
  const setupStarted = performance.now();
  await inParallel(
    Array.from({ length: ACCOUNTS }, (_, i) => i),
    SETUP_WIDTH,
    async (i) => {
      const [ia, ib] = [instances[i % instances.length]!, instances[(i + 1) % instances.length]!];
      const { a, b, sessionId } = await newMovingPair(ia.url, ib.url, i, { digest: checkpoint.digest, body });
      await Promise.all(
        [a, b].map(
          (device) =>
            new Promise<void>((resolve) => {
              const onMessage = (m: PushMessage) => {
                if (m.type === 'handoff') arrivals.get(`${device.id} ${m.handoff.id} ${m.handoff.state}`)?.(performance.now());
              };
              closers.push(openPushStream(device.client, onMessage, { onOpen: () => resolve() }));
            }),
        ),
      );
      streams += 2;
      const clients: [BackendClient, BackendClient] = [
        createBackendClient({ baseUrl: ia.url, signer: a.signer, attempts: 1 }),
        createBackendClient({ baseUrl: ib.url, signer: b.signer, attempts: 1 }),
      ];
      pairs.push({ a, b, clients, sessionId, generation: 1 });
    },
  );

  /** Every lane walks its accounts' sessions for `ms`; transitions per second, and CPU ms per transition of each side. */
  const maximum = async (ms: number) => {
    const deadline = performance.now() + ms;
    let count = 0;
    const backendCpu = () => instances.reduce((sum, instance) => sum + (processCpuMs(instance.child.pid!) ?? NaN), 0);
    const [backendBefore, clientBefore] = [backendCpu(), process.cpuUsage()];
    const lanes = Array.from({ length: LANES }, (_, lane) => pairs.filter((_, i) => i % LANES === lane));
    const started = performance.now();
    await Promise.all(
      lanes.map(async (own) => {
        for (let turn = 0; performance.now() < deadline; turn++) {
          const pair = own[turn % own.length]!;
          const [owner, other] = pair.generation % 2 ? pair.clients : [pair.clients[1], pair.clients[0]];
          const walked = await walkHandoff(owner, other, pair.sessionId, pair.generation, checkpoint, () => count++);
          if (!walked.ok) throw new Error(`${walked.step}: ${walked.code} ${walked.message}`);
          pair.generation++;
        }
      }),
    );
    const client = process.cpuUsage(clientBefore);
    return {
      perSecond: count / ((performance.now() - started) / 1000),
      backendCpuMs: (backendCpu() - backendBefore) / count,
      clientCpuMs: (client.user + client.system) / 1000 / count,
    };
  };

  /** Creates handoffs at `rate` a second (one per account in turn) and times each push at the other device. */
  const latency = async (rate: number) => {
    const samples: number[] = [];
    const gap = 1000 / rate;
    const started = performance.now();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < LATENCY_SAMPLES; i++) {
      const due = started + i * gap;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const pair = pairs[i % pairs.length]!;
      const [owner, watcher] = pair.generation % 2 ? [pair.clients[0], pair.b] : [pair.clients[1], pair.a];
      const handoffId = newId();
      const target = watcher.id;
      const arrived = new Promise<number>((resolve) => arrivals.set(`${watcher.id} ${handoffId} requested`, resolve));
      pending.push(
        (async () => {
          const created = await owner.call('createHandoff', {
            body: { handoffId, sessionId: pair.sessionId, targetDeviceId: target, generation: pair.generation },
          });
          const committed = performance.now();
          if (!created.ok) throw new Error(`createHandoff: ${created.code}`);
          const at = await arrived;
          samples.push(Math.max(0, at - committed));
          arrivals.delete(`${watcher.id} ${handoffId} requested`);
          await owner.call('transitionHandoff', {
            params: { handoffId },
            body: { from: 'requested', to: 'cancelled', generation: pair.generation, reason: { code: 'user_cancelled', sealed: null } },
          });
        })(),
      );
    }
    await Promise.all(pending);
    samples.sort((x, y) => x - y);
    return { p50: samples[Math.floor(samples.length * 0.5)]!, p99: samples[Math.floor(samples.length * 0.99)]! };
  };
  const setupSeconds = (performance.now() - setupStarted) / 1000;
  return { maximum, latency, setupSeconds, streams: () => streams, close: () => closers.forEach((close) => close()) };
}

const server = await startPostgres({ prefix: 'baton-bench-fleet-' });
const results: Record<string, number> = {};
try {
  const one: number[] = [];
  const two: number[] = [];
  let oneMax = 0;
  for (const count of [1, 2]) {
    const database = await server.createDatabase(`fleet${count}`);
    const instances: BackendProcess[] = [];
    for (let i = 0; i < count; i++) instances.push(await startBackendProcess(['--database', database]));
    const world = await fleet(instances);
    try {
      await world.maximum(1000);
      const rounds = count === 1 ? one : two;
      const cpu: { backend: number[]; client: number[] } = { backend: [], client: [] };
      for (let r = 0; r < 3; r++) {
        const round = await world.maximum(SECONDS * 1000);
        rounds.push(round.perSecond);
        cpu.backend.push(round.backendCpuMs);
        cpu.client.push(round.clientCpuMs);
      }
      results[`backend_cpu_${count}`] = median(cpu.backend);
      results[`client_cpu_${count}`] = median(cpu.client);
      results[`streams_${count}`] = world.streams();
      results[`setup_s_${count}`] = world.setupSeconds;
      if (count === 1) oneMax = median(one);
      else {
        // Half the one-instance maximum in transitions: each sample is two (a create, then its cancel).
        const { p50, p99 } = await world.latency(oneMax / 2 / 2);
        results.push_p50_ms = p50;
        results.push_p99_ms = p99;
      }
    } finally {
      world.close();
      for (const instance of instances) await instance.stop();
    }
  }
  const ratio = median(two) / median(one);
  console.log(`fleet benchmark: ${ACCOUNTS} accounts, ${results.streams_2} push streams, ${LANES} accounts moving at once`);
  console.log(
    `set-up (accounts, enrolment, sessions, streams open): one instance ${results.setup_s_1!.toFixed(1)} s, two ${results.setup_s_2!.toFixed(1)} s`,
  );
  console.log(`max transitions/s, one instance:   ${one.map((x) => x.toFixed(0)).join(' ')}   median ${median(one).toFixed(0)}`);
  console.log(`max transitions/s, two instances:  ${two.map((x) => x.toFixed(0)).join(' ')}   median ${median(two).toFixed(0)}`);
  console.log(
    `commit → push at the other device (across instances), at ${(oneMax / 2).toFixed(0)} transitions/s: p50 ${results.push_p50_ms!.toFixed(1)} ms, p99 ${results.push_p99_ms!.toFixed(1)} ms (aim p99 < 100 ms)`,
  );
  console.log(
    `CPU ms per transition: backend ${results.backend_cpu_1!.toFixed(2)} (one instance), ${results.backend_cpu_2!.toFixed(2)} (two, together); ` +
      `this process (the simulated devices: signing, ${results.streams_2} streams) ${results.client_cpu_1!.toFixed(2)} / ${results.client_cpu_2!.toFixed(2)}`,
  );
  console.log(`ratio two/one instances: ${ratio.toFixed(3)}`);
  console.log(
    JSON.stringify({
      bench: 'fleet',
      ratio: Number(ratio.toFixed(4)),
      one_instance_transitions_per_s: Math.round(median(one)),
      two_instances_transitions_per_s: Math.round(median(two)),
      push_p50_ms: Number(results.push_p50_ms!.toFixed(2)),
      push_p99_ms: Number(results.push_p99_ms!.toFixed(2)),
      push_streams: results.streams_2,
      backend_cpu_ms_per_transition_one: Number(results.backend_cpu_1!.toFixed(3)),
      backend_cpu_ms_per_transition_two: Number(results.backend_cpu_2!.toFixed(3)),
      client_cpu_ms_per_transition: Number(results.client_cpu_2!.toFixed(3)),
      setup_one_s: Number(results.setup_s_1!.toFixed(1)),
      setup_two_s: Number(results.setup_s_2!.toFixed(1)),
      accounts: ACCOUNTS,
      lanes: LANES,
    }),
  );
} finally {
  await server.stop();
}
