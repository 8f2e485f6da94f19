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
 * over (its raw git time + 6 round trips).
 *
 * The rows: the demo row moves with no commit between moves, so the target's fetch and raw git's find
 * nothing new: the move's target has the commit and fetches nothing at all (the least a move costs). The new-commit row (its own lines and `new_commit_*` keys)
 * is the same moves and raw git, each preceded by a new commit (a line added to NOTES.md) in the
 * source's checkout, pushed to origin over the source's own git link (shaped as for the move, before
 * the clock starts): the target's fetch downloads a pack in both, as a move after an agent's turn
 * does. The Claude row is the 32 MiB session. Last, both devices are restarted with
 * BATON_INLINE_CHECKPOINT_BYTES=0 and the demo row is run again: the moves as they were before a
 * small checkpoint travelled in its relinquish (uploaded first, one round trip more), in the same run.
 * Each row's session has a repository of its own (the first the world's, the others made for it),
 * so none finds its folder taken by another row's on a move back. One move and its raw git are
 * measured in wan-moves.ts.
 *
 * Knobs: BENCH_WAN_RUNS demo moves per mode (default 8, there and back), BENCH_WAN_MIB (default 32;
 * 0 leaves out the Claude row), BENCH_WAN_NEW_COMMIT (0 leaves out the new-commit row),
 * BENCH_WAN_ROUNDS (default 2), BENCH_WAN_RTT_MS (50), BENCH_WAN_MBIT (20), BENCH_WAN_TRACE (1: every
 * delivery on the links in each demo row's last move at the round trip, printed).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { projectSlug } from '../electron/providers/claude-code/paths.ts';
import { createBackendClient, type BackendClient } from '../electron/sync/backend-client.ts';
import { BackendTrust } from '../electron/sync/backend-trust.ts';
import { startBenchAgentLab } from './agent-lab.ts';
import { growClaudeTranscript } from '../dev-env/large-claude-transcript.ts';
import { createTestAccount, newTestDevice } from '../dev-env/sync-fixtures.ts';
import { startDemoSession, waitSession } from '../dev-env/two-devices.ts';
import { startWanWorld, type WanDevice, type WanWorld } from '../dev-env/wan-world.ts';
import { median } from './median.ts';
import { nameOf, pushNewCommit, rawGit, rowRepository, sessionWorkspaces, stepMedians, timedMove, type TimedMove } from './wan-moves.ts';

const RTT_MS = Number(process.env.BENCH_WAN_RTT_MS ?? 50);
const MBIT = Number(process.env.BENCH_WAN_MBIT ?? 20);
const RUNS = Number(process.env.BENCH_WAN_RUNS ?? 8);
const MIB = Number(process.env.BENCH_WAN_MIB ?? 32);
const ROUNDS = Number(process.env.BENCH_WAN_ROUNDS ?? 2);
const TRACE = process.env.BENCH_WAN_TRACE === '1';
const NEW_COMMIT = process.env.BENCH_WAN_NEW_COMMIT !== '0';
/** The round trips the demo move may take beyond raw git (the issue's aim). */
const BUDGET_RTTS = 6;
const WAN = { delayMs: RTT_MS / 2, bitsPerSecond: MBIT * 1e6 };

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

/**
 * A demo row: RUNS moves over the slow links and RUNS over links of twice the round trip (the same
 * cap), interleaved two by two, each followed by its raw git. What a step takes longer at twice the
 * round trip, over the round trip, is the round trips on its critical path: work that overlaps a wait
 * on the link hides in both alike. With `newCommit`, before each move and again before its raw git
 * the source's checkout gets a new commit pushed to origin (over its own link, shaped, before the
 * clock starts), so the target's fetch downloads a pack in both, as after an agent's turn.
 */
async function demoRow(ww: WanWorld, repo: string, newCommit = false) {
  const { world } = ww;
  const session = await startDemoSession(world.laptop, repo);
  // Warm-up, over plain relays: the desktop clones.
  await timedMove(ww, world.laptop, world.desktop, session.id);
  await timedMove(ww, world.desktop, world.laptop, session.id);
  const workspaces = await sessionWorkspaces(ww, session.id);
  const runs = { wan: [] as TimedMove[], slower: [] as TimedMove[] };
  const raw = { wan: [] as number[], slower: [] as number[] };
  let [source, target] = [world.laptop, world.desktop];
  for (let i = 0; i < 2 * RUNS; i++) {
    const mode = Math.floor(i / 2) % 2 === 0 ? 'wan' : 'slower';
    const from = nameOf(ww, source);
    ww.shape(mode === 'wan' ? WAN : { ...WAN, delayMs: 2 * WAN.delayMs });
    if (newCommit) await pushNewCommit(ww, from, workspaces, `Note before move ${i + 1}, on the ${from}`);
    runs[mode].push(await timedMove(ww, source, target, session.id, TRACE));
    if (newCommit) await pushNewCommit(ww, from, workspaces, `Note before raw git ${i + 1}, on the ${from}`);
    raw[mode].push(await rawGit(ww, from, workspaces));
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
async function claudeRow(ww: WanWorld, laptopConfig: string) {
  const { world } = ww;
  const { laptop, desktop } = world;
  const session = await laptop.client.take('startSession', {
    workspace: await rowRepository(ww, 'big'),
    provider: 'claude-code',
    prompt: 'say hello',
    title: 'big',
  });
  await waitSession(laptop, session.id, 'the first Claude turn', (d) => d.transcript.some((e) => e.role === 'assistant'), 120_000);
  await timedMove(ww, laptop, desktop, session.id);
  await timedMove(ww, desktop, laptop, session.id);
  const workspaces = await sessionWorkspaces(ww, session.id);
  const transcript = newestTranscript(laptopConfig, workspaces.laptop);
  const transcriptBytes = await growClaudeTranscript(transcript.path, {
    sessionId: transcript.sessionId,
    cwd: workspaces.laptop,
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
    raws.push({ ...bytes, git: await rawGit(ww, nameOf(ww, from), workspaces) });
    ww.shape(null);
    console.log(
      `  ${MIB} MiB round ${round + 1} (${from.name} → ${to.name}): Move ${(move.ms / 1000).toFixed(2)} s; raw up ${(bytes.up / 1000).toFixed(2)} s, down ${(bytes.down / 1000).toFixed(2)} s`,
    );
  }
  return { moves, raws, transcriptBytes };
}

const fmt = (ms: number) => `${ms.toFixed(0)} ms`;

/** A demo row's medians, its aim (raw git + BUDGET_RTTS round trips), and the round trips on its critical path (total and by step). */
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
    budget: rawGitMs + BUDGET_RTTS * RTT_MS,
    roundTrips: (slowerMs - ms) / RTT_MS,
    rawGitRoundTrips: (rawSlowerMs - rawGitMs) / RTT_MS,
    steps: [...steps].map(([step, at]) => ({ step, ms: at, roundTrips: ((slowerSteps.get(step) ?? 0) - at) / RTT_MS })),
    traffic: (d: WanDevice, key: 'connections' | 'exchanges') => median(demo.runs.wan.map((m) => m.traffic[d][key])),
  };
}

type Summary = ReturnType<typeof summarize>;

/** The printed table's lines for a demo row: its medians, aim, ratio and round trips. */
function headlineRows(row: Summary, move: string): [string, string][] {
  return [
    [`${move} → completed (median)`, fmt(row.ms)],
    ['raw git over the same links (median)', fmt(row.rawGitMs)],
    [`aim: raw git + ${BUDGET_RTTS} round trips`, fmt(row.budget)],
    ['ratio (Move / aim)', (row.ms / row.budget).toFixed(2)],
    ['round trips on the critical path', `${row.roundTrips.toFixed(1)} (raw git ${row.rawGitRoundTrips.toFixed(1)})`],
  ];
}

/** Prints `rows` indented, their keys padded to one width. */
function printTable(indent: string, rows: [string, string][]): void {
  const width = Math.max(...rows.map(([k]) => k.length));
  for (const [key, value] of rows) console.log(`${indent}${key.padEnd(width)}  ${value}`);
}

/** Prints each step's round trips on the critical path and median time, and `before`'s beside it where the steps match. */
function printSteps(indent: string, row: Summary, before?: Summary): void {
  for (const [i, { step, ms, roundTrips }] of row.steps.entries()) {
    const was = before?.steps[i]?.step === step ? before.steps[i]! : null;
    const then = was ? `   before ${was.roundTrips.toFixed(1).padStart(4)} (${fmt(was.ms)})` : '';
    console.log(`${indent}${step.padEnd(44)} ${roundTrips.toFixed(1).padStart(5)} (${fmt(ms)})${then}`);
  }
}

/** Prints every delivery on the links during a demo row's last move at the round trip (BENCH_WAN_TRACE). */
function printTrace(indent: string, demo: Awaited<ReturnType<typeof demoRow>>): void {
  const lines = demo.runs.wan.at(-1)!.trace.map((l) => `${indent}  ${l}`);
  console.log(`${indent}the last move at ${RTT_MS} ms, every delivery on the links:\n${lines.join('\n')}`);
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
  const { lab, laptopHome, desktopHome } = await startBenchAgentLab();
  let ww: WanWorld | null = null;
  try {
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

    const demoRun = await demoRow(ww, world.repo);
    const newCommitRun = NEW_COMMIT ? await demoRow(ww, await rowRepository(ww, 'notes'), true) : null;
    const big = MIB > 0 ? await claudeRow(ww, laptopHome.claudeConfigDir) : null;
    // Before: every checkpoint uploaded first, as before it could travel in the relinquish (same run, same links).
    await restartDevices(ww, { BATON_INLINE_CHECKPOINT_BYTES: '0' });
    const beforeRun = await demoRow(ww, await rowRepository(ww, 'before'));
    const demo = summarize(demoRun);
    const before = summarize(beforeRun);
    const newCommit = newCommitRun ? summarize(newCommitRun) : null;

    console.log(`bench:handoff-wan — two device processes, each behind its own ${RTT_MS} ms, ${MBIT} Mbit/s link (TLS, key pinned)`);
    printTable('  ', [
      ...headlineRows(demo, 'demo Move'),
      [
        'before (each checkpoint uploaded first)',
        `${fmt(before.ms)}, ${before.roundTrips.toFixed(1)} round trips (raw git ${fmt(before.rawGitMs)})`,
      ],
      ['runs per mode', String(RUNS)],
    ]);
    console.log(
      `  round trips on the critical path by step (its median at ${2 * RTT_MS} ms less at ${RTT_MS} ms, over ${RTT_MS} ms), and before:`,
    );
    printSteps('    ', demo, before);
    const traffic = (['laptop', 'desktop'] as const).map(
      (d) => `${d} ${demo.traffic(d, 'connections')} new, ${demo.traffic(d, 'exchanges')} exchanges`,
    );
    console.log(`  connections per move (push stream and heartbeats included): ${traffic.join('; ')}`);
    if (TRACE) printTrace('  ', demoRun);
    if (newCommit && newCommitRun) {
      console.log('  a new commit before each move and before its raw git (pushed from the source, before the clock starts):');
      printTable('    ', headlineRows(newCommit, 'demo Move'));
      console.log('    round trips on the critical path by step:');
      printSteps('      ', newCommit);
      if (TRACE) printTrace('    ', newCommitRun);
    }
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
        ratio: Number((demo.ms / demo.budget).toFixed(3)),
        ours_ms: Number(demo.ms.toFixed(1)),
        raw_git_ms: Number(demo.rawGitMs.toFixed(1)),
        budget_ms: Number(demo.budget.toFixed(1)),
        rtt_ms: RTT_MS,
        mbit_per_s: MBIT,
        tls: true,
        critical_round_trips: trips(demo.roundTrips),
        raw_git_round_trips: trips(demo.rawGitRoundTrips),
        round_trips_by_step: Object.fromEntries(demo.steps.map((s) => [s.step, trips(s.roundTrips)])),
        before_ms: Number(before.ms.toFixed(1)),
        before_raw_git_ms: Number(before.rawGitMs.toFixed(1)),
        before_round_trips: trips(before.roundTrips),
        ...(newCommit && {
          new_commit_ms: Number(newCommit.ms.toFixed(1)),
          new_commit_raw_git_ms: Number(newCommit.rawGitMs.toFixed(1)),
          new_commit_ratio: Number((newCommit.ms / newCommit.budget).toFixed(3)),
          new_commit_round_trips: trips(newCommit.roundTrips),
        }),
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
