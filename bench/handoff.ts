/**
 * bench:handoff — Move → completed for a demo-agent session between two real device processes
 * (median of several moves, back and forth), against the raw git work a handoff cannot avoid,
 * measured in the same run on the same repositories: `git status` on the source, `git fetch` +
 * `git checkout` on the target. Prints a table and ends with one JSON line. Also counts each move's
 * transition commits by side (from the history: states one commit recorded share its time), which
 * says how often the fast paths won their races: the source quiescing with the relinquish (1 commit,
 * else 2), the target claiming with target-activating (3 commits, else 4). move-calls.test.ts only
 * bounds these from above.
 */
import { execFileSync } from 'node:child_process';
import type { DeviceApiEvents } from '../shared/device-api.ts';
import { startDemoSession, startTwoDevices, waitEligible, deviceId, type DeviceHandle } from '../dev-env/two-devices.ts';
import { median } from './median.ts';
import { childrenCpuMs, processCpuMs } from './process-cpu.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);

/** Milliseconds spent reaching each state of a handoff, from the backend's commit times of its history. */
const phases = new Map<string, number[]>();

/** How many moves took how many transition commits, by side: { source: { 1: 6, 2: 1 }, target: { 3: 7 } }. */
const commits = { source: {} as Record<number, number>, target: {} as Record<number, number> };

function recordPhases(history: { state: string; at: number; deviceId?: string | null }[], sourceId: string): void {
  for (let i = 1; i < history.length; i++) {
    const { state, at } = history[i]!;
    phases.set(state, [...(phases.get(state) ?? []), at - history[i - 1]!.at]);
  }
  // After `requested` (the create, not a transition), one commit per distinct time on each side.
  const transitions = history.slice(1);
  for (const side of ['source', 'target'] as const) {
    const mine = transitions.filter((h) => (h.deviceId === sourceId) === (side === 'source'));
    const count = new Set(mine.map((h) => h.at)).size;
    commits[side][count] = (commits[side][count] ?? 0) + 1;
  }
}

/** Moves the session from `source` to `target` and resolves with the milliseconds until the target says completed. */
async function timedMove(source: DeviceHandle, target: DeviceHandle, sessionId: string): Promise<number> {
  await waitEligible(source, sessionId, target.name);
  const targetId = await deviceId(target);
  // Every handoff the target saw end, by id: the end may come before startMove answers with the id.
  const ended = new Map<string, DeviceApiEvents['handoffChanged']>();
  let handoffId = '';
  let settle = (): void => undefined;
  const off = target.client.on('handoffChanged', (h: DeviceApiEvents['handoffChanged']) => {
    if (h.state !== 'completed' && h.state !== 'cancelled') return;
    ended.set(h.id, h);
    if (h.id === handoffId) settle();
  });
  const started = performance.now();
  const result = await source.client.call('startMove', { sessionId, targetDeviceId: targetId });
  if (!result.ok) throw new Error(`move refused: ${JSON.stringify(result)}`);
  handoffId = result.value.handoffId;
  if (!ended.has(handoffId)) await new Promise<void>((resolve) => (settle = resolve));
  const end = ended.get(handoffId)!;
  if (end.state === 'cancelled') throw new Error(`the move was cancelled: ${end.cancelReason?.code}`);
  const elapsed = performance.now() - started;
  off();
  const moved = (await target.client.call('handoffHistory', { sessionId })).find((h) => h.id === handoffId);
  if (moved) recordPhases(moved.history, await deviceId(source));
  return elapsed;
}

/** The unavoidable git work of one handoff: status on the source, fetch + checkout on the target. */
function rawGit(env: NodeJS.ProcessEnv, sourceRepo: string, targetRepo: string): number {
  const git = (cwd: string, args: string[]) =>
    execFileSync('git', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
      .toString()
      .trim();
  const commit = git(sourceRepo, ['rev-parse', 'HEAD']);
  const started = performance.now();
  git(sourceRepo, ['status', '--porcelain=v2', '--branch']);
  git(targetRepo, ['fetch', '-q', 'origin', 'main']);
  git(targetRepo, ['checkout', '-q', '-B', 'main', commit]);
  return performance.now() - started;
}

async function main(): Promise<void> {
  const world = await startTwoDevices({ prefix: 'baton-bench-', env: { BATON_DEMO_TURN_MS: '20' }, shipped: true });
  try {
    world.sandbox.commitFile(world.repo, 'src/parser.ts', 'export const parse = (s: string) => s.split(",");\n', 'Add the parser');
    world.sandbox.push(world.repo);
    const session = await startDemoSession(world.laptop, world.repo);
    // Warm-up: the first move clones the repository on the desktop; it is not timed.
    await timedMove(world.laptop, world.desktop, session.id);
    const desktopRepo = (await world.desktop.client.call('getSession', { sessionId: session.id }))!.workspace;
    phases.clear();
    commits.source = {};
    commits.target = {};
    // CPU used over the timed moves (the raw git runs in this process are not counted).
    const devices = [world.laptop, world.desktop];
    const cpuOf = {
      backend: () => processCpuMs(world.backend.child.pid!) ?? NaN,
      devices: () => devices.reduce((sum, d) => sum + (processCpuMs(d.process.child.pid!) ?? NaN), 0),
      'git (both devices)': () => devices.reduce((sum, d) => sum + (childrenCpuMs(d.process.child.pid!) ?? NaN), 0),
    };
    const cpuBefore = Object.fromEntries(Object.entries(cpuOf).map(([who, read]) => [who, read()]));
    const ours: number[] = [];
    const baseline: number[] = [];
    let [source, target] = [world.desktop, world.laptop];
    for (let run = 0; run < RUNS; run++) {
      ours.push(await timedMove(source, target, session.id));
      const [sourceRepo, targetRepo] = source === world.laptop ? [world.repo, desktopRepo] : [desktopRepo, world.repo];
      baseline.push(rawGit(world.env, sourceRepo, targetRepo));
      [source, target] = [target, source];
    }
    const cpuPerMove = Object.entries(cpuOf).map(([who, read]) => [who, (read() - cpuBefore[who]!) / RUNS] as const);
    const oursMs = median(ours);
    const baselineMs = median(baseline);
    const rows: [string, string][] = [
      ['Move → completed (median)', `${oursMs.toFixed(1)} ms`],
      ['raw git: source status + target fetch + checkout (median)', `${baselineMs.toFixed(1)} ms`],
      ['orchestration overhead', `${(oursMs - baselineMs).toFixed(1)} ms`],
      ['ratio (ours / raw git)', `${(oursMs / baselineMs).toFixed(2)}`],
      ['runs', String(RUNS)],
    ];
    const width = Math.max(...rows.map(([k]) => k.length));
    console.log('bench:handoff — demo-agent session between two device processes');
    for (const [key, value] of rows) console.log(`  ${key.padEnd(width)}  ${value}`);
    console.log("  where the time goes (median ms to reach each state after the one before, from the backend's commit times;");
    console.log('  before requested: the readiness evaluation and the request itself):');
    for (const [state, times] of phases) console.log(`    ${state.padEnd(38)} ${median(times).toFixed(1).padStart(7)}`);
    const tallied = (side: keyof typeof commits) =>
      Object.entries(commits[side])
        .map(([count, moves]) => `${count} commits × ${moves}`)
        .join(', ');
    console.log(`  transition commits per move (fewest: source 1, target 3): source ${tallied('source')}; target ${tallied('target')}`);
    console.log('  CPU per move (ms, mean over the timed moves, from /proc; the bench host has two cores):');
    for (const [who, ms] of cpuPerMove) console.log(`    ${who.padEnd(38)} ${ms.toFixed(1).padStart(7)}`);
    console.log(
      JSON.stringify({
        bench: 'handoff',
        ratio: Number((oursMs / baselineMs).toFixed(3)),
        ours_ms: Number(oursMs.toFixed(1)),
        baseline_ms: Number(baselineMs.toFixed(1)),
        overhead_ms: Number((oursMs - baselineMs).toFixed(1)),
        runs: RUNS,
        commits_per_move: commits,
        phase_ms: Object.fromEntries([...phases].map(([state, times]) => [state, Number(median(times).toFixed(1))])),
        cpu_ms_per_move: Object.fromEntries(cpuPerMove.map(([who, ms]) => [who, Number(ms.toFixed(1))])),
      }),
    );
  } finally {
    await world.cleanup();
  }
}

await main();
