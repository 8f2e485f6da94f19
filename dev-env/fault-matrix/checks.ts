/**
 * What must hold after every case of the fault matrix, as plain functions of the evidence (the
 * backend's records, what each device showed while the case ran and at its end, the turns each
 * logged). Each returns the violations it found, in words; none means the case held.
 */
import type { TurnRecord } from '../../electron/runtime/sessions/turn-observer.ts';
import type { SessionDetail } from '../../shared/device-api.ts';
import { findTransition, isTerminal, reachedAt } from '../../shared/handoff-states.ts';
import type { BackendView, DeviceName } from './fault-world.ts';

/** One look at a device's view of the session while the case ran. */
export interface Sample {
  device: DeviceName;
  at: number;
  generation: number;
  ownerDeviceId: string;
  entryIds: string[];
}

export interface Evidence {
  ids: Record<DeviceName, string>;
  backend: BackendView;
  final: Record<DeviceName, SessionDetail>;
  samples: Sample[];
  turns: TurnRecord[];
}

const NAMES: readonly DeviceName[] = ['laptop', 'desktop'];

/** The handoff ended, completed or cancelled, along a path the state table allows. */
export function handoffEnded({ backend }: Evidence): string[] {
  const found: string[] = [];
  const { handoff } = backend;
  if (!isTerminal(handoff.state)) found.push(`the handoff did not end: it is ${handoff.state} on the backend`);
  const states = handoff.history.map((h) => h.state);
  if (states[0] !== 'requested') found.push(`the history starts at ${states[0]}`);
  for (let i = 1; i < states.length; i++) {
    if (!findTransition(states[i - 1]!, states[i]!))
      found.push(`the history went ${states[i - 1]} → ${states[i]}, which the table forbids`);
  }
  return found;
}

/** The generation and owner the backend must hold after this handoff. */
function expectedOwnership({ backend }: Evidence): { owner: DeviceName; generation: number } {
  const moved = reachedAt(backend.handoff.history, 'ownership-transferred') !== undefined;
  return moved
    ? { owner: 'desktop', generation: backend.handoff.generation + 1 }
    : { owner: 'laptop', generation: backend.handoff.generation };
}

/** Exactly one owner, the one the backend names, and both devices agree on it and on the generation. */
export function oneOwner(e: Evidence): string[] {
  const found: string[] = [];
  const { owner, generation } = expectedOwnership(e);
  const { session } = e.backend;
  if (session.ownerDeviceId !== e.ids[owner])
    found.push(`the backend names ${nameOf(e, session.ownerDeviceId)} the owner, not the ${owner}`);
  if (session.generation !== generation) found.push(`the backend is at generation ${session.generation}, not ${generation}`);
  const owners = NAMES.filter((name) => e.final[name].isOwner);
  if (owners.length !== 1) found.push(`${owners.length} devices say they own the session (${owners.join(', ') || 'none'})`);
  for (const name of NAMES) {
    const view = e.final[name];
    if (view.ownerDeviceId !== session.ownerDeviceId) found.push(`the ${name} says ${nameOf(e, view.ownerDeviceId)} owns the session`);
    if (view.generation !== session.generation)
      found.push(`the ${name} is at generation ${view.generation}, the backend ${session.generation}`);
  }
  return found;
}

/** No device's view of the generation ever went back, restarts included. */
export function generationMonotonic({ samples }: Evidence): string[] {
  const found: string[] = [];
  for (const name of NAMES) {
    let last = 0;
    for (const sample of samples.filter((s) => s.device === name).sort((a, b) => a.at - b.at)) {
      if (sample.generation < last) found.push(`the ${name}'s generation went back from ${last} to ${sample.generation}`);
      last = Math.max(last, sample.generation);
    }
  }
  return found;
}

/** Every transcript entry either device showed, or the backend logged, is on the owner, in the order each had it. */
export function entriesKept(e: Evidence): { kept: number; of: number; violations: string[] } {
  const owner = NAMES.find((name) => e.final[name].isOwner) ?? expectedOwnership(e).owner;
  const finalIds = e.final[owner].transcript.map((entry) => entry.id);
  const position = new Map(finalIds.map((id, i) => [id, i]));
  const seen = new Set([
    ...e.samples.flatMap((s) => s.entryIds),
    ...e.backend.entryIds,
    ...NAMES.flatMap((n) => e.final[n].transcript.map((x) => x.id)),
  ]);
  const missing = [...seen].filter((id) => !position.has(id));
  // Where each missing entry was seen, so a failure says which device (or the backend) had it.
  const holders = (id: string) => {
    const where = new Set(e.samples.filter((s) => s.entryIds.includes(id)).map((s) => s.device as string));
    if (e.backend.entryIds.includes(id)) where.add('backend');
    for (const n of NAMES) if (e.final[n].transcript.some((x) => x.id === id)) where.add(`${n} at the end`);
    return `${id} on the ${[...where].join(', ')}`;
  };
  const violations =
    missing.length > 0
      ? [`the ${owner} lacks ${missing.length} of ${seen.size} entries (${missing.slice(0, 3).map(holders).join('; ')})`]
      : [];
  const lists = [...e.samples.map((s) => ({ from: s.device, ids: s.entryIds })), { from: 'backend', ids: e.backend.entryIds }];
  const reordered = lists.find(({ ids }) => {
    const at = ids.map((id) => position.get(id)).filter((p): p is number => p !== undefined);
    return at.some((p, i) => i > 0 && p < at[i - 1]!);
  });
  if (reordered) violations.push(`the ${owner} holds entries the ${reordered.from} had in another order`);
  return { kept: seen.size - missing.length, of: seen.size, violations };
}

/**
 * Every turn ran on the device that owned the session at the generation it held, and inside that
 * device's time as owner by the backend's clock: the source until it relinquished (its turn settled
 * before the checkpoint), the target from the transfer on.
 */
export function turnsOnOwner(e: Evidence): string[] {
  const found: string[] = [];
  const { history } = e.backend.handoff;
  const relinquished = reachedAt(history, 'source-relinquished-and-checkpointed');
  const transferred = reachedAt(history, 'ownership-transferred');
  const ownerAt = (generation: number): DeviceName | null => {
    if (generation === e.backend.handoff.generation) return 'laptop';
    if (transferred !== undefined && generation === e.backend.handoff.generation + 1) return 'desktop';
    return null;
  };
  const period: Record<DeviceName, [number, number]> = {
    laptop: [0, transferred !== undefined ? (relinquished ?? transferred) : Infinity],
    desktop: transferred !== undefined ? [transferred, Infinity] : [Infinity, Infinity],
  };
  for (const turn of e.turns) {
    const device = NAMES.find((name) => e.ids[name] === turn.deviceId);
    if (!device) continue;
    const owner = ownerAt(turn.generation);
    const what = `a turn ${turn.event} on the ${device} at generation ${turn.generation}`;
    if (owner !== device) found.push(`${what}, which ${owner ? `the ${owner}` : 'no device'} owned`);
    const [from, until] = period[device];
    if (turn.event === 'started' && (turn.at < from || turn.at >= until)) found.push(`${what} started outside its time as owner`);
    if (turn.event === 'ended' && turn.at > until) found.push(`${what} ended ${turn.at - until} ms after it gave the session up`);
  }
  return found;
}

function nameOf(e: Evidence, deviceId: string): string {
  return NAMES.find((name) => e.ids[name] === deviceId) ?? `device ${deviceId}`;
}

/** Every check; the entries kept are counted for the table. */
export function checkCase(e: Evidence): { violations: string[]; kept: number; of: number } {
  const entries = entriesKept(e);
  return {
    violations: [...handoffEnded(e), ...oneOwner(e), ...generationMonotonic(e), ...entries.violations, ...turnsOnOwner(e)],
    kept: entries.kept,
    of: entries.of,
  };
}
