/**
 * One timed move over bench:handoff-wan's links and the raw git it is set against (status on the
 * source, fetch + checkout on the target, over each device's own git link), the agent's new commit
 * pushed before either when a row asks for one, and each step's median over a row's moves.
 */
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DeviceApiEvents } from '../shared/device-api.ts';
import { deviceId, waitEligible, type DeviceHandle } from '../dev-env/two-devices.ts';
import { GIT_HOST, type WanDevice, type WanWorld } from '../dev-env/wan-world.ts';
import { median } from './median.ts';

/** Each device's checkout of the session's repository. */
export type Workspaces = Record<WanDevice, string>;

/**
 * A repository of one row's own: its origin served by the git host, the laptop's clone of it under the
 * laptop's workspace root naming GIT_HOST (as the world's first one does). Each row's session gets one,
 * so no row's session finds its folder taken by another's (a device runs one session in a folder).
 */
export async function rowRepository(ww: WanWorld, name: string): Promise<string> {
  const { sandbox, laptop } = ww.world;
  const repo = sandbox.clone(sandbox.makeOrigin(name), join(laptop.workspaceRoot, name));
  await ww.git('laptop', repo, ['remote', 'set-url', 'origin', `${GIT_HOST}/${name}.git`]);
  return repo;
}

/**
 * Where each device runs (or last ran) the session, read from the devices once it has been on both:
 * not assumed, since a device never runs two sessions in one folder, so a session moved back while
 * another runs in its first folder there continues in another.
 */
export async function sessionWorkspaces(ww: WanWorld, sessionId: string): Promise<Workspaces> {
  const where = async (device: DeviceHandle) => {
    const view = await device.client.call('getSession', { sessionId });
    if (!view) throw new Error(`${device.name} does not know the session ${sessionId}`);
    return view.workspace;
  };
  return { laptop: await where(ww.world.laptop), desktop: await where(ww.world.desktop) };
}

/** One timed move: its time, each step's time, and what each device's backend link carried. */
export interface TimedMove {
  ms: number;
  steps: [string, number][];
  traffic: Record<WanDevice, { connections: number; exchanges: number }>;
  checkpointBytes: number;
  /** When traced: every delivery on every link, ms from the click. */
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

/** Which of the world's devices `device` is. */
export const nameOf = (ww: WanWorld, device: DeviceHandle): WanDevice => (device === ww.world.laptop ? 'laptop' : 'desktop');

/** Moves the session from `source` to `target`; resolves once the target says completed (`trace`: every delivery kept). */
export async function timedMove(
  ww: WanWorld,
  source: DeviceHandle,
  target: DeviceHandle,
  sessionId: string,
  trace = false,
): Promise<TimedMove> {
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
  const tracing = trace ? traceLinks(ww, started, clicked) : null;
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
  const lines = tracing?.stop(history) ?? [];
  const steps: [string, number][] = [[`Move → ${history[0]!.state}`, history[0]!.at - clicked]];
  for (let i = 1; i < history.length; i++) steps.push([`→ ${history[i]!.state}`, history[i]!.at - history[i - 1]!.at]);
  steps.push(['→ the target told', Math.max(0, endedAt - history.at(-1)!.at)]);
  const traffic = Object.fromEntries(
    (['laptop', 'desktop'] as const).map((d) => [d, { connections: after[d]!.c - before[d]!.c, exchanges: after[d]!.e - before[d]!.e }]),
  ) as TimedMove['traffic'];
  const logged = new RegExp(`checkpoint of ${handoffId}: (\\d+) bytes`).exec(source.process.stdout() + source.process.stderr());
  return { ms, steps, traffic, checkpointBytes: logged ? Number(logged[1]) : 0, trace: lines };
}

/** The raw git of a move from `source`: status there, fetch + checkout on the other device (over its git link). */
export async function rawGit(ww: WanWorld, source: WanDevice, workspaces: Workspaces): Promise<number> {
  const target: WanDevice = source === 'laptop' ? 'desktop' : 'laptop';
  const commit = await ww.git(source, workspaces[source], ['rev-parse', 'HEAD']);
  const started = performance.now();
  await ww.git(source, workspaces[source], ['status', '--porcelain=v2', '--branch']);
  await ww.git(target, workspaces[target], ['fetch', '-q', 'origin', 'main']);
  await ww.git(target, workspaces[target], ['checkout', '-q', '-B', 'main', commit]);
  return performance.now() - started;
}

/**
 * The agent's work before a move: a line added to NOTES.md in `device`'s checkout, committed and
 * pushed to origin over the device's own git link (as shaped then), so the checkout is clean and
 * pushed again and the other device's fetch downloads a pack.
 */
export async function pushNewCommit(ww: WanWorld, device: WanDevice, workspaces: Workspaces, line: string): Promise<void> {
  const cwd = workspaces[device];
  await appendFile(join(cwd, 'NOTES.md'), `${line}\n`);
  await ww.git(device, cwd, ['add', 'NOTES.md']);
  await ww.git(device, cwd, ['commit', '-q', '-m', line]);
  await ww.git(device, cwd, ['push', '-q', 'origin', 'main']);
}

/** Median of each step's times, in the order the first move listed them. */
export function stepMedians(moves: TimedMove[]): Map<string, number> {
  const by = new Map<string, number[]>();
  for (const move of moves) for (const [step, ms] of move.steps) by.set(step, [...(by.get(step) ?? []), ms]);
  return new Map([...by].map(([step, times]) => [step, median(times)]));
}
