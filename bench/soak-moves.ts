/**
 * bench:soak's moves (soak.ts): one demo-agent session moved back and forth between two shipped
 * devices, a message before every 10th move and a blocked-then-fixed move every 50th, each move
 * timed from Move to completed with the phases the backend committed, the device CPU it cost and
 * the answer times of the calls the UI makes around it (checkReadiness before, handoffHistory after).
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DeviceApiEvents } from '../shared/device-api.ts';
import { deviceId, waitEligible, waitSession, type DeviceHandle, type TwoDevices } from '../dev-env/two-devices.ts';
import { memoryOf } from '../dev-env/process-memory.ts';
import { childrenCpuMs, processCpuMs } from './process-cpu.ts';

/** One timed move. */
export interface SoakMove {
  index: number;
  ms: number;
  /** Device CPU (both devices and their git processes) over the move, ms. */
  cpuMs: number;
  /** Milliseconds to reach each state after the one before, from the backend's commit times. */
  phases: Record<string, number>;
  readinessMs: number;
  historyMs: number;
  blocked: boolean;
  message: boolean;
}

/** One process's footprint, sampled every 50 moves. */
export interface Footprint {
  after: number;
  process: string;
  rssMiB: number;
  openFiles: number;
}

/** Milliseconds of `work`. */
export async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** How many descriptors the process holds open. */
export function openFiles(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return NaN;
  }
}

/** CPU (own and its git's) both devices have used so far, ms. */
export function devicesCpuMs(devices: DeviceHandle[]): number {
  return devices.reduce((sum, d) => sum + (processCpuMs(d.process.child.pid!) ?? NaN) + (childrenCpuMs(d.process.child.pid!) ?? NaN), 0);
}

/** Sends a message to the owner and waits for its answer (one more assistant entry). */
async function message(owner: DeviceHandle, sessionId: string, n: number): Promise<void> {
  const before = await owner.client.call('getSession', { sessionId });
  const answers = before!.transcriptTotal;
  const sent = await owner.client.call('sendMessage', { sessionId, text: `Keep going (message ${n})` });
  if (!sent.ok) throw new Error(`message refused: ${sent.code} ${sent.message}`);
  await waitSession(
    owner,
    sessionId,
    'the answer to the message',
    (d) => d.transcriptTotal >= answers + 2 && d.agents.every((a) => a.status !== 'running'),
  );
}

/** Leaves a change uncommitted in the source's checkout, checks the move is refused for it, then commits and pushes it. */
async function blockThenFix(source: DeviceHandle, targetId: string, sessionId: string, workspace: string, n: number): Promise<void> {
  writeFileSync(join(workspace, `soak-${n}.txt`), `move ${n}\n`);
  const refused = await source.client.call('startMove', { sessionId, targetDeviceId: targetId });
  if (refused.ok || !('report' in refused)) throw new Error(`a move with uncommitted work was not blocked: ${JSON.stringify(refused)}`);
  const committed = await source.client.call('commitAll', { sessionId, repo: workspace, message: `Soak change ${n}` });
  if (!committed.result.ok) throw new Error(`commit refused: ${committed.result.message}`);
  const pushed = await source.client.call('pushRepo', { sessionId, repo: workspace });
  if (!pushed.result.ok) throw new Error(`push refused: ${pushed.result.message}`);
}

/** Starts a move of the session from `source` to `target` and waits for the target to see it end: the handoff, its milliseconds and its last record. */
export async function moveAndWait(source: DeviceHandle, target: DeviceHandle, sessionId: string, targetId: string, index: number) {
  const ended = new Map<string, DeviceApiEvents['handoffChanged']>();
  let handoffId = '';
  let settle = (): void => undefined;
  const off = target.client.on('handoffChanged', (h) => {
    if (h.state !== 'completed' && h.state !== 'cancelled') return;
    ended.set(h.id, h);
    if (h.id === handoffId) settle();
  });
  const started = performance.now();
  const result = await source.client.call('startMove', { sessionId, targetDeviceId: targetId });
  if (!result.ok) throw new Error(`move ${index} refused: ${JSON.stringify(result)}`);
  handoffId = result.value.handoffId;
  if (!ended.has(handoffId)) await new Promise<void>((resolve) => (settle = resolve));
  const ms = performance.now() - started;
  off();
  return { handoffId, ms, end: ended.get(handoffId)! };
}

/** Moves the session once, from `source` to `target`, and measures it. */
async function timedMove(
  world: TwoDevices,
  source: DeviceHandle,
  target: DeviceHandle,
  sessionId: string,
  index: number,
): Promise<SoakMove> {
  const devices = [world.laptop, world.desktop];
  // The run view offers Move once this device shows the session as its own and taking input.
  await waitSession(source, sessionId, 'the session to be owned here', (d) => d.isOwner && d.inputBlock === null);
  await waitEligible(source, sessionId, target.name);
  const targetId = await deviceId(target);
  const withMessage = index % 10 === 0;
  if (withMessage) await message(source, sessionId, index);
  const blocked = index % 50 === 25;
  if (blocked) {
    const workspace = (await source.client.call('getSession', { sessionId }))!.workspace;
    await blockThenFix(source, targetId, sessionId, workspace, index);
  }
  // The Move dialog asks this device's readiness with the target as it opens.
  const readinessMs = await timed(() => source.client.call('checkReadiness', { sessionId, targetDeviceId: targetId }));
  const cpuBefore = devicesCpuMs(devices);
  const { handoffId, ms, end } = await moveAndWait(source, target, sessionId, targetId, index);
  if (end.state === 'cancelled') throw new Error(`move ${index} was cancelled: ${end.cancelReason?.code} ${end.cancelReason?.message}`);
  // The history view as the run view loads it once the move ended.
  let history: Awaited<ReturnType<typeof target.client.call<'handoffHistory'>>> = [];
  const historyMs = await timed(async () => (history = await target.client.call('handoffHistory', { sessionId })));
  const cpuMs = devicesCpuMs(devices) - cpuBefore;
  const moved = history.find((h) => h.id === handoffId)?.history ?? [];
  const phases = Object.fromEntries(moved.slice(1).map((h, i) => [h.state, h.at - moved[i]!.at]));
  return { index, ms, cpuMs, phases, readinessMs, historyMs, blocked, message: withMessage };
}

/** Every process's resident memory and open descriptors now. */
export function footprints(world: TwoDevices, after: number): Footprint[] {
  const processes = { backend: world.backend, laptop: world.laptop.process, desktop: world.desktop.process };
  return Object.entries(processes).map(([name, p]) => ({
    after,
    process: name,
    rssMiB: memoryOf(p.child.pid!).rssMiB,
    openFiles: openFiles(p.child.pid!),
  }));
}

/** Moves the session `count` times (alternating), calling `every50` after each 50th move. */
export async function soakMoves(
  world: TwoDevices,
  sessionId: string,
  count: number,
  every50: (done: number) => void,
  progress: (move: SoakMove) => void,
): Promise<SoakMove[]> {
  const moves: SoakMove[] = [];
  let [source, target] = [world.laptop, world.desktop];
  for (let i = 1; i <= count; i++) {
    const move = await timedMove(world, source, target, sessionId, i);
    moves.push(move);
    progress(move);
    if (i % 50 === 0) every50(i);
    [source, target] = [target, source];
  }
  return moves;
}
