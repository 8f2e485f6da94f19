/**
 * Runs one case of the fault matrix: a fresh demo session on the laptop, its first turn in flight or
 * over (the case's start), a Move to the desktop held in the case's state by the devices' gates
 * (step-holds.ts), the fault (kill + restart, pause beyond the deadlines + continue, or a cut link +
 * restore), then waits for the move to end with both devices agreeing, probes who takes input, and
 * checks the evidence (checks.ts).
 */
import type { ActionResult } from '../../shared/errors.ts';
import type { SessionDetail } from '../../shared/device-api.ts';
import { isTerminal, reachedAt } from '../../shared/handoff-states.ts';
import { waitFor } from '../process-harness.ts';
import { hasPassed, holdAt, isHolding } from '../step-holds.ts';
import { waitEligible } from '../two-devices.ts';
import { FAULT_TIMING, HOLDS, isLinkFault, LINK_FAULTS, type FaultCase, type GateHold } from './cases.ts';
import { checkCase, type Sample } from './checks.ts';
import { DEVICE_OF, type BackendView, type DeviceName, type FaultWorld } from './fault-world.ts';

/** One row of the matrix's table. */
export interface CaseRow {
  case: FaultCase;
  /** `completed`, `cancelled (code)`, or the state it was stuck in. */
  outcome: string;
  owner: DeviceName | null;
  generation: number | null;
  /** Transcript entries kept on the owner, of all either device (or the backend) had. */
  kept: number;
  of: number;
  /**
   * From the end of the fault (restart begun, SIGCONT, link restored) until both devices agreed on the
   * ended move; under a slow or lossy link, from the moment it became so (the move went on under it).
   */
  settleMs: number | null;
  violations: string[];
}

const NAMES: readonly DeviceName[] = ['laptop', 'desktop'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `promise`, or undefined when it takes longer than `ms` (a paused device answers nothing). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([promise.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A device that does not own the session reads the backend before it answers (its events first): over a
 * slow link that is a round trip of 3 s or more, so the settle waits longer than the sampling does.
 */
const SETTLE_READ_MS = 8000;

const detailOf = (fw: FaultWorld, name: DeviceName, sessionId: string, ms = 1500) =>
  within(fw.world[name].client.call('getSession', { sessionId }), ms).then((d) => d ?? undefined);

/** Looks at both devices' view of the session every 250 ms until stopped (the world's handles are read each time: restarts replace them). */
function sample(fw: FaultWorld, sessionId: string): { samples: Sample[]; stop(): Promise<void> } {
  const samples: Sample[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await Promise.all(
        NAMES.map(async (device) => {
          const detail = await detailOf(fw, device, sessionId);
          if (!detail) return;
          const { generation, ownerDeviceId } = detail;
          samples.push({ device, at: Date.now(), generation, ownerDeviceId, entryIds: detail.transcript.map((e) => e.id) });
        }),
      );
      await sleep(250);
    }
  })();
  return {
    samples,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/**
 * Applies the fault and ends it; resolves with when it ended (the recovery began). A slow or lossy
 * link is not ended here: the move goes on through it, and runCase restores the link once it settled.
 */
async function applyFault(fw: FaultWorld, c: FaultCase, release: () => void): Promise<number> {
  const target = fw.process(c.party);
  if (c.fault === 'kill') {
    await target.kill();
    release();
    if (c.party === 'backend') await sleep(FAULT_TIMING.backendDownMs);
    const recovered = Date.now();
    await fw.restart(c.party);
    return recovered;
  }
  if (c.fault === 'pause') {
    target.child.kill('SIGSTOP');
    release();
    await sleep(FAULT_TIMING.outageMs);
    target.child.kill('SIGCONT');
    return Date.now();
  }
  if (c.party === 'backend') throw new Error('a cut is between a device and the backend: name the source or the target');
  const device = DEVICE_OF[c.party];
  if (isLinkFault(c.fault)) {
    fw.links.shape(device, LINK_FAULTS[c.fault]);
    release();
    return Date.now();
  }
  await fw.links.cut(device);
  release();
  await sleep(FAULT_TIMING.outageMs);
  await fw.links.restore(device);
  return Date.now();
}

type Settled = { backend: BackendView; final: Record<DeviceName, SessionDetail> };

/** The backend's and both devices' views once the move ended and both agree with the backend; null after `settleMs`. */
async function settled(fw: FaultWorld, sessionId: string, handoffId: string): Promise<Settled | null> {
  // A device restarted after it finished its part knows no last move (it loads only moves still in progress): that agrees too.
  const ended = (d: SessionDetail | undefined) =>
    d !== undefined && !d.activeHandoff && (d.lastHandoff === null || (d.lastHandoff.id === handoffId && isTerminal(d.lastHandoff.state)));
  return waitFor(
    'the move to end with both devices agreeing',
    async () => {
      const backend = await fw.backendView(sessionId, handoffId);
      if (!backend || !isTerminal(backend.handoff.state)) return undefined;
      // The owner is read last: an entry it makes meanwhile may reach the other device through the backend,
      // and read in the other order the other device would show an entry the owner's (older) answer lacks.
      const laptopOwns = fw.ids.laptop === backend.session.ownerDeviceId;
      const first = await detailOf(fw, laptopOwns ? 'desktop' : 'laptop', sessionId, SETTLE_READ_MS);
      const last = await detailOf(fw, laptopOwns ? 'laptop' : 'desktop', sessionId, SETTLE_READ_MS);
      const [laptop, desktop] = laptopOwns ? [last, first] : [first, last];
      const agrees = (d: SessionDetail | undefined): d is SessionDetail =>
        ended(d) && d!.generation === backend.session.generation && d!.ownerDeviceId === backend.session.ownerDeviceId;
      return agrees(laptop) && agrees(desktop) ? { backend, final: { laptop, desktop } } : undefined;
    },
    FAULT_TIMING.settleMs,
    200,
  ).catch(() => null);
}

/** The owner takes a message and starts its turn; the other device refuses input. */
async function probe(fw: FaultWorld, sessionId: string, owner: DeviceName): Promise<string[]> {
  const other: DeviceName = owner === 'laptop' ? 'desktop' : 'laptop';
  const send = (name: DeviceName) => within(fw.world[name].client.call('sendMessage', { sessionId, text: 'are you there?' }), 5000);
  const sentAt = Date.now();
  let answer: ActionResult | undefined;
  await waitFor(`the ${owner} to take input`, async () => ((answer = await send(owner))?.ok ? true : undefined), 20_000, 250).catch(
    () => undefined,
  );
  if (!answer?.ok) return [`the owner (${owner}) refuses input: ${answer ? `${answer.code}: ${answer.message}` : 'no answer'}`];
  const found: string[] = [];
  const refused = await send(other);
  if (refused?.ok) found.push(`the ${other}, which does not own the session, took input`);
  // A turn already running takes the message next: the laptop's turns outlast the case, so wait for any turn here since the probe.
  const ran = await waitFor(
    `the probe's turn on the ${owner}`,
    async () => {
      const here = fw.turns(sessionId).filter((t) => t.deviceId === fw.ids[owner]);
      return here.at(-1)?.event === 'started' || here.some((t) => t.at >= sentAt) ? true : undefined;
    },
    20_000,
    100,
  ).catch(() => false);
  if (!ran) found.push(`the ${owner} took the message but started no turn within 20 s`);
  return found;
}

/** What a device shows of the session, in a few words (for a case that did not settle). */
function describe(fw: FaultWorld, d: SessionDetail | undefined): string {
  if (!d) return 'does not answer';
  const owner = NAMES.find((name) => fw.ids[name] === d.ownerDeviceId) ?? d.ownerDeviceId;
  const last = d.lastHandoff ? `last move ${d.lastHandoff.state}` : 'no last move';
  return `shows the ${owner} owning it at generation ${d.generation}, ${d.activeHandoff ? `a move ${d.activeHandoff.state}` : 'no move in progress'}, ${last}`;
}

/**
 * Starts the move and holds it where the case says; resolves with the handoff's id, the release of
 * every hold, and what went wrong getting there (nothing when the move is held in the case's state).
 */
async function moveAndHold(
  fw: FaultWorld,
  c: FaultCase,
  sessionId: string,
): Promise<{ handoffId: string; release: () => void; found: string[] }> {
  const held = HOLDS[c.start][c.state] ?? null;
  const releases: (() => void)[] = [];
  const hold = (h: GateHold) => releases.push(holdAt(fw.device(h.device), h.point));
  const release = () => releases.splice(0).forEach((r) => r());
  // Idle, the target prepares once the source has sealed its speculative checkpoint: the fast path.
  const untilSealed =
    c.start === 'idle' && held?.hold.point !== 'target-step-at-requested' ? holdAt(fw.device('target'), 'target-step-at-requested') : null;
  if (held) [held.hold, ...(held.also ? [held.also] : [])].forEach(hold);
  const moved = await fw.world.laptop.client.call('startMove', { sessionId, targetDeviceId: fw.ids.desktop });
  if (!moved.ok) throw new Error(`the move was refused: ${moved.code} ${moved.message}`);
  const handoffId = moved.value.handoffId;
  const found: string[] = [];
  const ended = async () => {
    const handoff = await fw.backendHandoff(handoffId);
    return handoff && isTerminal(handoff.state) ? handoff.state : undefined;
  };
  if (c.start === 'idle') {
    const sealed = await waitFor(
      'the speculative checkpoint to be sealed',
      async () => (hasPassed(fw.device('source'), 'speculative-checkpoint-sealed', handoffId) ? 'sealed' : await ended()),
      30_000,
      50,
    ).catch(() => 'not sealed in 30 s');
    if (sealed !== 'sealed') found.push(`the source's speculative checkpoint was not sealed: ${sealed}`);
    untilSealed?.();
  }
  const reached = await waitFor(
    c.state,
    async () => {
      if (held && isHolding(fw.device(held.hold.device), held.hold.point, handoffId)) return 'held';
      const end = await ended();
      return !held && end === 'completed' ? 'held' : end;
    },
    30_000,
    50,
  ).catch(() => 'nowhere in 30 s');
  const handoff = await fw.backendHandoff(handoffId);
  if (reached !== 'held') found.push(`the move never reached ${c.state}: it ended ${reached} first`);
  else if (handoff && reachedAt(handoff.history, c.state) === undefined)
    found.push(`the move was held at ${held?.hold.point} before it reached ${c.state} (it is ${handoff.state})`);
  if (found.length > 0) release();
  return { handoffId, release, found };
}

/** Runs one case and returns its row (violations included; it throws only when the world itself broke). */
export async function runCase(fw: FaultWorld, c: FaultCase): Promise<CaseRow> {
  await fw.heal();
  await fw.useStart(c.start);
  const { world } = fw;
  // With a turn running, the first turn runs on (FAULT_TIMING.sourceTurnMs): the move starts, and the
  // fault hits, while it does. Idle, it is over before the move starts.
  const session = await world.laptop.client.take('startSession', {
    workspace: world.repo,
    provider: 'demo',
    prompt: 'Work through the backlog',
  });
  if (c.start === 'idle')
    await waitFor('the first turn to end', async () => (fw.turns(session.id).some((t) => t.event === 'ended') ? true : undefined));
  await waitEligible(world.laptop, session.id, 'desktop');
  const watch = sample(fw, session.id);
  const row: CaseRow = { case: c, outcome: '?', owner: null, generation: null, kept: 0, of: 0, settleMs: null, violations: [] };
  try {
    const { handoffId, release, found } = await moveAndHold(fw, c, session.id);
    row.violations.push(...found);
    const recoveredAt = await applyFault(fw, c, release);
    const end = await settled(fw, session.id, handoffId);
    // A slow or lossy link lasted until the move settled (or the settle ran out): the probe runs on a sound one.
    if (isLinkFault(c.fault)) await fw.links.restore(DEVICE_OF[c.party as 'source' | 'target']);
    if (!end) {
      const view = await fw.backendView(session.id, handoffId);
      row.outcome = view ? `stuck: ${view.handoff.state}` : 'backend unreachable';
      const seen = await Promise.all(NAMES.map(async (name) => `the ${name} ${describe(fw, await detailOf(fw, name, session.id))}`));
      row.violations.push(
        `the move did not end with both devices agreeing within ${FAULT_TIMING.settleMs / 1000} s of the fault's end: ${seen.join(', ')}`,
      );
      return row;
    }
    row.settleMs = Date.now() - recoveredAt;
    const { handoff, session: record } = end.backend;
    row.outcome = handoff.state === 'cancelled' ? `cancelled (${handoff.cancelReason?.code ?? '?'})` : handoff.state;
    // A slow or lossy link stops nothing: the move completes, or a deadline it could not meet cancels it.
    if (isLinkFault(c.fault) && handoff.state === 'cancelled' && handoff.cancelReason?.code !== 'target_timeout')
      row.violations.push(`under a ${c.fault} link the move was cancelled (${handoff.cancelReason?.code ?? '?'}), not by a deadline`);
    row.owner = NAMES.find((name) => fw.ids[name] === record.ownerDeviceId) ?? null;
    row.generation = record.generation;
    if (row.owner) row.violations.push(...(await probe(fw, session.id, row.owner)));
    await watch.stop();
    // After the probe: its entries and turn are part of what must hold.
    const after = (await settled(fw, session.id, handoffId)) ?? end;
    const checked = checkCase({
      ids: fw.ids,
      backend: after.backend,
      final: after.final,
      samples: watch.samples,
      turns: fw.turns(session.id),
    });
    row.violations.push(...checked.violations);
    row.kept = checked.kept;
    row.of = checked.of;
    return row;
  } finally {
    await watch.stop();
  }
}
