/**
 * The world the fault matrix runs in: a backend and two harness devices (the laptop is every move's
 * source, the desktop its target) over links a test can cut (backend-links.ts), each with its file
 * gate (step-holds.ts) and its file of provider turns (turn-records.ts), and a referee: a signed
 * client of the laptop's identity that reads the backend's own records (sessions, handoffs, sealed
 * events) over a link never cut.
 */
import type { TurnRecord } from '../../electron/runtime/sessions/turn-observer.ts';
import type { Handoff } from '../../shared/api/handoffs.ts';
import type { Session } from '../../shared/api/sessions.ts';
import type { TranscriptEntry } from '../../shared/agents.ts';
import { loadProfile } from '../../electron/enrollment/profile.ts';
import { backendPort } from '../../electron/runtime/adapters/backend-port.ts';
import { profileSeal } from '../../electron/runtime/adapters/seal-port.ts';
import { createBackendClient } from '../../electron/sync/backend-client.ts';
import { makeBackendLinks, type BackendLinks } from '../backend-links.ts';
import type { RunningProcess } from '../process-harness.ts';
import { clearHolds } from '../step-holds.ts';
import { readTurns } from '../turn-records.ts';
import { deviceId, startTwoDevices, type DeviceHandle, type TwoDevices } from '../two-devices.ts';
import { FAULT_TIMING, type Party, type Start } from './cases.ts';

export type DeviceName = 'laptop' | 'desktop';
/** Which device plays a role: the laptop moves every session to the desktop. */
export const DEVICE_OF = { source: 'laptop', target: 'desktop' } as const satisfies Record<'source' | 'target', DeviceName>;

/** What the backend itself holds about a session and its handoff. */
export interface BackendView {
  session: Session;
  handoff: Handoff;
  /** The ids of the transcript entries in the session's sealed event log, in log order. */
  entryIds: string[];
}

export interface FaultWorld {
  world: TwoDevices;
  links: BackendLinks;
  ids: Record<DeviceName, string>;
  /** The backend's records of a session and a handoff (null while it does not answer). */
  backendView(sessionId: string, handoffId: string): Promise<BackendView | null>;
  /** A handoff as the backend has it (undefined while it does not answer). */
  backendHandoff(handoffId: string): Promise<Handoff | undefined>;
  /** Every turn both devices recorded for a session. */
  turns(sessionId: string): TurnRecord[];
  /** The device that plays `role`. */
  device(role: 'source' | 'target'): DeviceHandle;
  process(party: Party): RunningProcess;
  /** Makes the source's provider turns as the case's start needs (restarting it when they change). */
  useStart(start: Start): Promise<void>;
  /** Restarts a killed party on its data (the backend) or profile (a device). */
  restart(party: Party): Promise<void>;
  /** Undoes whatever a failed case left: every process running and continued, links up, no holds. */
  heal(): Promise<void>;
  close(): Promise<void>;
}

/** The source's demo-agent turn length for a start. */
const turnMsOf = (start: Start) => String(start === 'turn-running' ? FAULT_TIMING.sourceTurnMs : FAULT_TIMING.idleTurnMs);

/** Starts the world: links, backend, both devices (enrolled). */
export async function startFaultWorld(): Promise<FaultWorld> {
  const links = await makeBackendLinks();
  const timeouts = { BATON_PREPARE_TIMEOUT_MS: String(FAULT_TIMING.deadlineMs), BATON_CLAIM_TIMEOUT_MS: String(FAULT_TIMING.deadlineMs) };
  const world = await startTwoDevices({
    prefix: 'baton-faults-',
    env: timeouts,
    laptopEnv: { BATON_DEMO_TURN_MS: turnMsOf('turn-running'), BATON_TURN_WAIT_MS: String(FAULT_TIMING.turnWaitMs) },
    backendHost: links.backendHost,
    backendLauncher: links.backendLauncher,
    backendAddressesPerDevice: (url) => links.addresses(url),
  }).catch(async (error: Error) => {
    await links.close();
    throw error;
  });
  const ids = { laptop: await deviceId(world.laptop), desktop: await deviceId(world.desktop) };
  const profile = loadProfile(world.laptop.profile);
  if (!profile.ok) throw new Error(`the referee cannot load the laptop profile: ${profile.message}`);
  const client = createBackendClient({ baseUrl: links.refereeUrl(world.backendUrl), signer: profile.value.identity, timeoutMs: 3000 });
  const referee = backendPort(client);
  const seal = profileSeal(profile.value);

  const processOf = (party: Party): RunningProcess => (party === 'backend' ? world.backend : world[DEVICE_OF[party]].process);
  const running = (p: RunningProcess) => p.child.exitCode === null && p.child.signalCode === null;

  const restartDevice = async (name: DeviceName, env: NodeJS.ProcessEnv = world[name].env) => {
    const old: DeviceHandle = world[name];
    world[name] = await world.startDevice({ name: old.name, profile: old.profile, workspaceRoot: old.workspaceRoot, env });
  };

  const fw: FaultWorld = {
    world,
    links,
    ids,
    async backendView(sessionId, handoffId) {
      const [session, handoff, events] = await Promise.all([
        referee.getSession(sessionId).catch(() => null),
        referee.getHandoff(handoffId).catch(() => null),
        referee.listEvents(sessionId, 0).catch(() => null),
      ]);
      if (!session?.ok || !handoff?.ok || !events?.ok) return null;
      const entryIds: string[] = [];
      for (const event of events.value) {
        const opened = seal.openJson(event.sealedBody, { kind: 'session-event', sessionId });
        if (!opened.ok) continue;
        const body = opened.value as { type: string; entry?: TranscriptEntry; entries?: TranscriptEntry[] };
        if (body.type === 'transcript' && body.entry) entryIds.push(body.entry.id);
        if (body.type === 'history') entryIds.push(...(body.entries ?? []).map((e) => e.id));
      }
      return { session: session.value, handoff: handoff.value, entryIds };
    },
    async backendHandoff(handoffId) {
      const handoff = await referee.getHandoff(handoffId).catch(() => null);
      return handoff?.ok ? handoff.value : undefined;
    },
    turns(sessionId) {
      return (['laptop', 'desktop'] as const).flatMap((name) => readTurns(world[name].turnFile).filter((t) => t.sessionId === sessionId));
    },
    device: (role) => world[DEVICE_OF[role]],
    process: processOf,
    async useStart(start) {
      const env = world.laptop.env;
      if (env.BATON_DEMO_TURN_MS === turnMsOf(start)) return;
      await world.laptop.process.stop();
      await restartDevice('laptop', { ...env, BATON_DEMO_TURN_MS: turnMsOf(start) });
    },
    async restart(party) {
      if (party === 'backend') await world.restartBackend();
      else await restartDevice(DEVICE_OF[party]);
    },
    async heal() {
      for (const name of ['laptop', 'desktop'] as const) {
        await links.restore(name);
        clearHolds(world[name]);
      }
      for (const party of ['backend', 'source', 'target'] as const) {
        const p = processOf(party);
        if (running(p)) p.child.kill('SIGCONT');
        else await fw.restart(party);
      }
    },
    async close() {
      await fw.heal().catch(() => undefined);
      await world.cleanup();
      await links.close();
    },
  };
  return fw;
}
