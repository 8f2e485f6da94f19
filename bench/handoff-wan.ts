/**
 * bench:handoff-wan — Move → completed between two device processes each behind a slow link of its
 * own (50 ms round trip, 20 Mbit/s each way: dev-env/wan-world.ts; the backend over TLS with its
 * self-signed key pinned, git over git://), against the raw work over the same links in the same
 * run: a demo-agent session against raw git (status on the source, fetch + checkout on the target),
 * and a 32 MiB Claude Code session (the real `claude` against the scripted model server, its
 * transcript grown by dev-env/large-claude-transcript.ts) against the checkpoint's bytes up through
 * the source's link and down through the target's, plus the same raw git.
 *
 * The round trips on a move's critical path, by step: each step's median time over the slow links
 * less its median over plain relays (the same moves, interleaved, in the same run), in round trips;
 * with the connections each device opened and the exchanges it made per move (a TLS connection
 * costs two round trips before its first request). Aim: the demo move within raw git + 6 round trips;
 * the 32 MiB move within 1.2× its raw bytes + git. The JSON line's `ratio` is the demo move's time
 * over (its raw git time + 6 round trips). Last, both devices are restarted with
 * BATON_INLINE_CHECKPOINT_BYTES=0 and the demo row is run again: the moves as they were before a
 * small checkpoint travelled in its relinquish (uploaded first, one round trip more), in the same run.
 *
 * Knobs: BENCH_WAN_RUNS demo moves per mode (default 8, there and back), BENCH_WAN_MIB (default 32;
 * 0 leaves out the Claude row), BENCH_WAN_ROUNDS (default 2), BENCH_WAN_RTT_MS (50), BENCH_WAN_MBIT (20).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { projectSlug } from '../electron/providers/claude-code/paths.ts';
import { createBackendClient, type BackendClient } from '../electron/sync/backend-client.ts';
import { BackendTrust } from '../electron/sync/backend-trust.ts';
import type { DeviceApiEvents } from '../shared/device-api.ts';
import { AgentCliLab } from '../dev-env/agent-clis/agent-cli-lab.ts';
import { growClaudeTranscript } from '../dev-env/large-claude-transcript.ts';
import { createTestAccount, newTestDevice } from '../dev-env/sync-fixtures.ts';
import { deviceId, startDemoSession, waitEligible, waitSession, type DeviceHandle } from '../dev-env/two-devices.ts';
import { startWanWorld, type WanDevice, type WanWorld } from '../dev-env/wan-world.ts';
import { median } from './median.ts';

const RTT_MS = Number(process.env.BENCH_WAN_RTT_MS ?? 50);
const MBIT = Number(process.env.BENCH_WAN_MBIT ?? 20);
const RUNS = Number(process.env.BENCH_WAN_RUNS ?? 8);
const MIB = Number(process.env.BENCH_WAN_MIB ?? 32);
const ROUNDS = Number(process.env.BENCH_WAN_ROUNDS ?? 2);
const TRACE = process.env.BENCH_WAN_TRACE === '1';
/** The round trips the demo move may take beyond raw git (the issue's aim). */
const BUDGET_RTTS = 6;
const WAN = { delayMs: RTT_MS / 2, bitsPerSecond: MBIT * 1e6 };
const ROOT = join(import.meta.dirname, '..');

/** One timed move: its time, each step's time, and what each device's backend link carried. */
interface TimedMove {
  ms: number;
  steps: [string, number][];
  traffic: Record<WanDevice, { connections: number; exchanges: number }>;
  checkpointBytes: number;
  /** With BENCH_WAN_TRACE: every delivery on every link, ms from the click. */
  trace: string[];
}

/** Records every link's deliveries (merged per connection and direction while they come within 3 ms), ms from `since`. */
function traceLinks(ww: WanWorld, since: number, clickedWall: number): { stop(history: { state: string; at: number }[]): string[] } {
  const lines: { at: number; text: string; key: string; bytes: number }[] = [];
  for (const device of ['laptop', 'desktop'] as const)
    for (const kind of ['backend', 'git'] as const) {
      const relay = ww.links[device][kind];
      relay.onDelivery = (d) => {
        const key = `${device} ${kind} #${d.connection} ${d.direction}`;
        const last = lines.at(-1);
        if (last && last.key === key && d.at - last.at < 3) return void (last.bytes += d.bytes);
        lines.push({ at: d.at, key, bytes: d.bytes, text: '' });
      };
    }
  return {
    stop(history) {
      for (const device of ['laptop', 'desktop'] as const)
        for (const kind of ['backend', 'git'] as const) ww.links[device][kind].onDelivery = null;
      const marks = history.map((h) => ({ at: since + (h.at - clickedWall), key: `committed ${h.state}`, bytes: -1, text: '' }));
      return [...lines, ...marks]
        .sort((a, b) => a.at - b.at)
        .map((l) => `${(l.at - since).toFixed(0).padStart(6)} ms  ${l.key}${l.bytes >= 0 ? ` ${l.bytes} B` : ''}`);
    },
  };
}

const nameOf = (ww: WanWorld, device: DeviceHandle): WanDevice => (device === ww.world.laptop ? 'laptop' : 'desktop');

/** Moves the session from `source` to `target`; resolves once the target says completed. */
async function timedMove(ww: WanWorld, source: DeviceHandle, target: DeviceHandle, sessionId: string): Promise<TimedMove> {
  await waitEligible(source, sessionId, target.name);
  const targetId = await deviceId(target);
  const ended = new Map<string, DeviceApiEvents['handoffChanged']>();
  let handoffId = '';
  let endedAt = 0;
  let settle = (): void => undefined;
  const off = target.client.on('handoffChanged', (h: DeviceApiEvents['handoffChanged']) => {
    if (h.state !== 'completed' && h.state !== 'cancelled') return;
    if (!ended.has(h.id)) ended.set(h.id, h);
    endedAt ||= Date.now();
    if (h.id === handoffId) settle();
  });
  const counters = () =>
    Object.fromEntries(
      (['laptop', 'desktop'] as const).map((d) => [d, { c: ww.links[d].backend.accepted, e: ww.links[d].backend.exchanges }]),
    );
  const before = counters();
  const clicked = Date.now();
  const started = performance.now();
  const tracing = TRACE ? traceLinks(ww, started, clicked) : null;
  const result = await source.client.call('startMove', { sessionId, targetDeviceId: targetId });
  if (!result.ok) throw new Error(`move refused: ${JSON.stringify(result)}`);
  handoffId = result.value.handoffId;
  if (!ended.has(handoffId)) await new Promise<void>((resolve) => (settle = resolve));
  const ms = performance.now() - started;
  const end = ended.get(handoffId)!;
  off();
  if (end.state === 'cancelled') throw new Error(`the move was cancelled: ${end.cancelReason?.code}`);
  const after = counters();
  const history = end.history;
  const trace = tracing?.stop(history) ?? [];
  const steps: [string, number][] = [[`Move → ${history[0]!.state}`, history[0]!.at - clicked]];
  for (let i = 1; i < history.length; i++) steps.push([`→ ${history[i]!.state}`, history[i]!.at - history[i - 1]!.at]);
  steps.push(['→ the target told', Math.max(0, endedAt - history.at(-1)!.at)]);
  const traffic = Object.fromEntries(
    (['laptop', 'desktop'] as const).map((d) => [d, { connections: after[d]!.c - before[d]!.c, exchanges: after[d]!.e - before[d]!.e }]),
  ) as TimedMove['traffic'];
  const logged = new RegExp(`checkpoint of ${handoffId}: (\\d+) bytes`).exec(source.process.stdout() + source.process.stderr());
  return { ms, steps, traffic, checkpointBytes: logged ? Number(logged[1]) : 0, trace };
}

/** The raw git of a move from `source`: status there, fetch + checkout on the other device (over its git link). */
async function rawGit(ww: WanWorld, source: WanDevice, desktopRepo: string): Promise<number> {
  const target: WanDevice = source === 'laptop' ? 'desktop' : 'laptop';
  const repo = (d: WanDevice) => (d === 'laptop' ? ww.world.repo : desktopRepo);
  const commit = await ww.git(source, repo(source), ['rev-parse', 'HEAD']);
  const started = performance.now();
  await ww.git(source, repo(source), ['status', '--porcelain=v2', '--branch']);
  await ww.git(target, repo(target), ['fetch', '-q', 'origin', 'main']);
  await ww.git(target, repo(target), ['checkout', '-q', '-B', 'main', commit]);
  return performance.now() - started;
}

/** A signed client of one account over each device's backend link, for the raw byte transfers. */
async function rawClients(ww: WanWorld): Promise<Record<WanDevice, BackendClient>> {
  const pins = ww.world.backendPins;
  const first = newTestDevice(ww.links.laptop.backend.url, 'raw', undefined, pins);
  await createTestAccount(first);
  const other = createBackendClient({ baseUrl: ww.links.desktop.backend.url, signer: first.signer, trust: new BackendTrust(pins) });
  return { laptop: first.client, desktop: other };
}

/** `size` fresh random bytes up through `from`'s link and down through `to`'s: milliseconds each way. */
async function rawBytes(
  clients: Record<WanDevice, BackendClient>,
  size: number,
  from: WanDevice,
  to: WanDevice,
  dir: string,
): Promise<{ up: number; down: number }> {
  const path = join(dir, 'raw.bytes');
  const bytes = randomBytes(size);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  await writeFile(path, bytes);
  // Each client's connection is open before the clock starts, as a device's is.
  await Promise.all([clients[from].call('getKeys'), clients[to].call('getKeys')]);
  const t0 = performance.now();
  const put = await clients[from].putBlobFile({ path, size, sha256 });
  if (!put.ok) throw new Error(`raw upload failed: ${put.code} ${put.message}`);
  const t1 = performance.now();
  const hash = createHash('sha256');
  const got = await clients[to].getBlobTo(sha256, async (chunk) => void hash.update(chunk));
  if (!got.ok || hash.digest('hex') !== sha256) throw new Error('raw download failed');
  const t2 = performance.now();
  await rm(path, { force: true });
  return { up: t1 - t0, down: t2 - t1 };
}

/** Median of each step's times, in the order the first move listed them. */
function stepMedians(moves: TimedMove[]): Map<string, number> {
  const by = new Map<string, number[]>();
  for (const move of moves) for (const [step, ms] of move.steps) by.set(step, [...(by.get(step) ?? []), ms]);
  return new Map([...by].map(([step, times]) => [step, median(times)]));
}

/**
 * The demo row: RUNS moves over the slow links and RUNS over links of twice the round trip (the same
 * cap), interleaved two by two, each followed by its raw git. What a step takes longer at twice the
 * round trip, over the round trip, is the round trips on its critical path: work that overlaps a wait
 * on the link hides in both alike.
 */
async function demoRow(ww: WanWorld) {
  const { world } = ww;
  const session = await startDemoSession(world.laptop, world.repo);
  // Warm-up, over plain relays: the desktop clones.
  await timedMove(ww, world.laptop, world.desktop, session.id);
  const desktopRepo = (await world.desktop.client.call('getSession', { sessionId: session.id }))!.workspace;
  await timedMove(ww, world.desktop, world.laptop, session.id);
  const runs = { wan: [] as TimedMove[], slower: [] as TimedMove[] };
  const raw = { wan: [] as number[], slower: [] as number[] };
  let [source, target] = [world.laptop, world.desktop];
  for (let i = 0; i < 2 * RUNS; i++) {
    const mode = Math.floor(i / 2) % 2 === 0 ? 'wan' : 'slower';
    ww.shape(mode === 'wan' ? WAN : { ...WAN, delayMs: 2 * WAN.delayMs });
    runs[mode].push(await timedMove(ww, source, target, session.id));
    raw[mode].push(await rawGit(ww, nameOf(ww, source), desktopRepo));
    ww.shape(null);
    [source, target] = [target, source];
  }
  return { runs, raw };
}

/** The Claude transcript file the laptop's CLI wrote last for `workspace`. */
function newestTranscript(configDir: string, workspace: string): { path: string; sessionId: string } {
  const folder = join(configDir, 'projects', projectSlug(workspace));
  const files = readdirSync(folder)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => ({ f, at: statSync(join(folder, f)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  if (files.length === 0) throw new Error(`no Claude transcript under ${folder}`);
  return { path: join(folder, files[0]!.f), sessionId: files[0]!.f.slice(0, -'.jsonl'.length) };
}

/** The Claude row: a session moved there and back over plain relays, grown to MIB, then ROUNDS timed moves over slow links. */
async function claudeRow(ww: WanWorld, laptopConfig: string, desktopRepo: string) {
  const { world } = ww;
  const { laptop, desktop } = world;
  const session = await laptop.client.take('startSession', {
    workspace: world.repo,
    provider: 'claude-code',
    prompt: 'say hello',
    title: 'big',
  });
  await waitSession(laptop, session.id, 'the first Claude turn', (d) => d.transcript.some((e) => e.role === 'assistant'), 120_000);
  await timedMove(ww, laptop, desktop, session.id);
  await timedMove(ww, desktop, laptop, session.id);
  const transcript = newestTranscript(laptopConfig, world.repo);
  const transcriptBytes = await growClaudeTranscript(transcript.path, {
    sessionId: transcript.sessionId,
    cwd: world.repo,
    bytes: MIB * 1024 * 1024,
  });
  const clients = await rawClients(ww);
  const scratch = join(world.sandbox.root, 'raw');
  mkdirSync(scratch, { recursive: true });
  const moves: TimedMove[] = [];
  const raws: { up: number; down: number; git: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const [from, to] = round % 2 === 0 ? [laptop, desktop] : [desktop, laptop];
    ww.shape(WAN);
    const move = await timedMove(ww, from, to, session.id);
    moves.push(move);
    const bytes = await rawBytes(clients, move.checkpointBytes, nameOf(ww, from), nameOf(ww, to), scratch);
    raws.push({ ...bytes, git: await rawGit(ww, nameOf(ww, from), desktopRepo) });
    ww.shape(null);
    console.log(
      `  ${MIB} MiB round ${round + 1} (${from.name} → ${to.name}): Move ${(move.ms / 1000).toFixed(2)} s; raw up ${(bytes.up / 1000).toFixed(2)} s, down ${(bytes.down / 1000).toFixed(2)} s`,
    );
  }
  return { moves, raws, transcriptBytes };
}

const fmt = (ms: number) => `${ms.toFixed(0)} ms`;

/** A demo row's medians, and the round trips on its critical path (total and by step). */
function summarize(demo: Awaited<ReturnType<typeof demoRow>>) {
  const ms = median(demo.runs.wan.map((m) => m.ms));
  const slowerMs = median(demo.runs.slower.map((m) => m.ms));
  const rawGitMs = median(demo.raw.wan);
  const rawSlowerMs = median(demo.raw.slower);
  const steps = stepMedians(demo.runs.wan);
  const slowerSteps = stepMedians(demo.runs.slower);
  return {
    ms,
    rawGitMs,
    roundTrips: (slowerMs - ms) / RTT_MS,
    rawGitRoundTrips: (rawSlowerMs - rawGitMs) / RTT_MS,
    steps: [...steps].map(([step, at]) => ({ step, ms: at, roundTrips: ((slowerSteps.get(step) ?? 0) - at) / RTT_MS })),
    traffic: (d: WanDevice, key: 'connections' | 'exchanges') => median(demo.runs.wan.map((m) => m.traffic[d][key])),
  };
}

/** Restarts both devices with `env` added (the profiles, ports and links stay). */
async function restartDevices(ww: WanWorld, env: NodeJS.ProcessEnv): Promise<void> {
  for (const name of ['laptop', 'desktop'] as const) {
    const old = ww.world[name];
    old.client.close();
    await old.process.stop();
    ww.world[name] = await ww.world.startDevice({ ...old, env: { ...old.env, ...env } });
  }
}

async function main(): Promise<void> {
  process.env.TMPDIR = join(ROOT, '.bench-tmp');
  mkdirSync(process.env.TMPDIR, { recursive: true });
  const lab = await AgentCliLab.start();
  let ww: WanWorld | null = null;
  try {
    const [laptopHome, desktopHome] = [await lab.home('laptop'), await lab.home('desktop')];
    ww = await startWanWorld({
      prefix: 'baton-wan-',
      shipped: true,
      // The shipped heartbeat (the harness's 1 s would keep connections warmer than a device does).
      env: { BATON_DEMO_TURN_MS: '20', BATON_HEARTBEAT_MS: '5000', BATON_PREPARE_TIMEOUT_MS: '600000', BATON_CLAIM_TIMEOUT_MS: '600000' },
      laptopEnv: laptopHome.env,
      desktopEnv: desktopHome.env,
    });
    const { world } = ww;
    world.sandbox.commitFile(world.repo, 'src/parser.ts', 'export const parse = (s: string) => s.split(",");\n', 'Add the parser');
    await ww.git('laptop', world.repo, ['push', '-q', 'origin', 'main']);

    const demoRun = await demoRow(ww);
    const desktopRepo = join(world.desktop.workspaceRoot, 'app');
    const big = MIB > 0 ? await claudeRow(ww, laptopHome.claudeConfigDir, desktopRepo) : null;
    // Before: every checkpoint uploaded first, as before it could travel in the relinquish (same run, same links).
    await restartDevices(ww, { BATON_INLINE_CHECKPOINT_BYTES: '0' });
    const beforeRun = await demoRow(ww);
    const demo = summarize(demoRun);
    const before = summarize(beforeRun);
    const budget = demo.rawGitMs + BUDGET_RTTS * RTT_MS;

    console.log(`bench:handoff-wan — two device processes, each behind its own ${RTT_MS} ms, ${MBIT} Mbit/s link (TLS, key pinned)`);
    const rows: [string, string][] = [
      ['demo Move → completed (median)', fmt(demo.ms)],
      ['raw git over the same links (median)', fmt(demo.rawGitMs)],
      [`aim: raw git + ${BUDGET_RTTS} round trips`, fmt(budget)],
      ['ratio (Move / aim)', (demo.ms / budget).toFixed(2)],
      ['round trips on the critical path', `${demo.roundTrips.toFixed(1)} (raw git ${demo.rawGitRoundTrips.toFixed(1)})`],
      [
        'before (each checkpoint uploaded first)',
        `${fmt(before.ms)}, ${before.roundTrips.toFixed(1)} round trips (raw git ${fmt(before.rawGitMs)})`,
      ],
      ['runs per mode', String(RUNS)],
    ];
    const width = Math.max(...rows.map(([k]) => k.length));
    for (const [key, value] of rows) console.log(`  ${key.padEnd(width)}  ${value}`);
    console.log(
      `  round trips on the critical path by step (its median at ${2 * RTT_MS} ms less at ${RTT_MS} ms, over ${RTT_MS} ms), and before:`,
    );
    for (const [i, { step, ms, roundTrips }] of demo.steps.entries()) {
      const was = before.steps[i]?.step === step ? before.steps[i]! : null;
      const then = was ? `   before ${was.roundTrips.toFixed(1).padStart(4)} (${fmt(was.ms)})` : '';
      console.log(`    ${step.padEnd(44)} ${roundTrips.toFixed(1).padStart(5)} (${fmt(ms)})${then}`);
    }
    const traffic = (['laptop', 'desktop'] as const).map(
      (d) => `${d} ${demo.traffic(d, 'connections')} new, ${demo.traffic(d, 'exchanges')} exchanges`,
    );
    console.log(`  connections per move (push stream and heartbeats included): ${traffic.join('; ')}`);
    if (TRACE)
      console.log(
        `  the last move at ${RTT_MS} ms, every delivery on the links:\n${demoRun.runs.wan
          .at(-1)!
          .trace.map((l) => `    ${l}`)
          .join('\n')}`,
      );
    let bigJson = {};
    if (big) {
      const moveMs = median(big.moves.map((m) => m.ms));
      const part = (key: 'up' | 'down' | 'git') => median(big.raws.map((r) => r[key]));
      const rawMs = median(big.raws.map((r) => r.up + r.down + r.git));
      const ckptMiB = big.moves[0]!.checkpointBytes / 1024 / 1024;
      console.log(`  ${MIB} MiB Claude session (checkpoint ${ckptMiB.toFixed(1)} MiB), medians of ${ROUNDS}:`);
      console.log(
        `    Move → completed ${fmt(moveMs)}; raw up + down + git ${fmt(rawMs)} (${fmt(part('up'))} + ${fmt(part('down'))} + ${fmt(part('git'))}); ratio ${(moveMs / rawMs).toFixed(2)} (aim ≤ 1.2)`,
      );
      console.log(`    by step: ${[...stepMedians(big.moves)].map(([step, ms]) => `${step} ${fmt(ms)}`).join(', ')}`);
      bigJson = {
        claude_mib: MIB,
        claude_checkpoint_mib: Number(ckptMiB.toFixed(1)),
        claude_move_ms: Number(moveMs.toFixed(0)),
        claude_raw_ms: Number(rawMs.toFixed(0)),
        claude_ratio: Number((moveMs / rawMs).toFixed(3)),
      };
    }
    const trips = (n: number) => Number(n.toFixed(2));
    console.log(
      JSON.stringify({
        bench: 'handoff-wan',
        ratio: Number((demo.ms / budget).toFixed(3)),
        ours_ms: Number(demo.ms.toFixed(1)),
        raw_git_ms: Number(demo.rawGitMs.toFixed(1)),
        budget_ms: Number(budget.toFixed(1)),
        rtt_ms: RTT_MS,
        mbit_per_s: MBIT,
        tls: true,
        critical_round_trips: trips(demo.roundTrips),
        raw_git_round_trips: trips(demo.rawGitRoundTrips),
        round_trips_by_step: Object.fromEntries(demo.steps.map((s) => [s.step, trips(s.roundTrips)])),
        before_ms: Number(before.ms.toFixed(1)),
        before_raw_git_ms: Number(before.rawGitMs.toFixed(1)),
        before_round_trips: trips(before.roundTrips),
        runs: RUNS,
        ...bigJson,
      }),
    );
  } finally {
    await ww?.close();
    await lab.close();
  }
}

await main();
