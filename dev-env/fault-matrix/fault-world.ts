/**
 * The world the fault matrix runs in: a backend and two devices (the laptop is every move's source,
 * the desktop its target) over links a test can cut (backend-links.ts), each device logging its
 * provider turns (BATON_TEST_TURN_LOG), and a referee: a signed client of the laptop's identity that
 * reads the backend's own records (sessions, handoffs, sealed events) over a link never cut.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Handoff } from '../../shared/api/handoffs.ts';
import type { Session } from '../../shared/api/sessions.ts';
import type { TranscriptEntry } from '../../shared/agents.ts';
import { loadProfile } from '../../electron/enrollment/profile.ts';
import { backendPort } from '../../electron/runtime/adapters/backend-port.ts';
import { profileSeal } from '../../electron/runtime/adapters/seal-port.ts';
import type { TurnRecord } from '../../electron/runtime/turn-log.ts';
import { createBackendClient } from '../../electron/sync/backend-client.ts';
import { makeBackendLinks, type BackendLinks } from '../backend-links.ts';
import type { RunningProcess } from '../process-harness.ts';
import { deviceId, startTwoDevices, type DeviceHandle, type TwoDevices } from '../two-devices.ts';
import { FAULT_TIMING, type Party } from './cases.ts';

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
  /** The state of a handoff on the backend (undefined while it does not answer). */
  backendState(handoffId: string): Promise<Handoff['state'] | undefined>;
  /** Every turn both devices logged for a session. */
  turns(sessionId: string): TurnRecord[];
  process(party: Party): RunningProcess;
  /** Restarts a killed party on its data (the backend) or profile (a device). */
  restart(party: Party): Promise<void>;
  /** Undoes whatever a failed case left: every process running and continued, links up, no holds. */
  heal(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the world: links, backend, both devices (enrolled), turn logs. */
export async function startFaultWorld(): Promise<FaultWorld> {
  const links = await makeBackendLinks();
  const logDir = mkdtempSync(join(tmpdir(), 'baton-fault-turns-'));
  const turnLog = (name: DeviceName) => join(logDir, `${name}-turns.jsonl`);
  const timeouts = { BATON_PREPARE_TIMEOUT_MS: String(FAULT_TIMING.deadlineMs), BATON_CLAIM_TIMEOUT_MS: String(FAULT_TIMING.deadlineMs) };
  const world = await startTwoDevices({
    prefix: 'baton-faults-',
    env: timeouts,
    laptopEnv: {
      BATON_DEMO_TURN_MS: String(FAULT_TIMING.sourceTurnMs),
      BATON_TURN_WAIT_MS: String(FAULT_TIMING.turnWaitMs),
      BATON_TEST_TURN_LOG: turnLog('laptop'),
    },
    desktopEnv: { BATON_TEST_TURN_LOG: turnLog('desktop') },
    backendHost: links.backendHost,
    backendLauncher: links.backendLauncher,
    backendAddressesPerDevice: (url) => links.addresses(url),
  }).catch(async (error: Error) => {
    await links.close();
    rmSync(logDir, { recursive: true, force: true });
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

  const restartDevice = async (name: DeviceName) => {
    const old: DeviceHandle = world[name];
    world[name] = await world.startDevice({ name: old.name, profile: old.profile, workspaceRoot: old.workspaceRoot, env: old.env });
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
    async backendState(handoffId) {
      const handoff = await referee.getHandoff(handoffId).catch(() => null);
      return handoff?.ok ? handoff.value.state : undefined;
    },
    turns(sessionId) {
      return (['laptop', 'desktop'] as const).flatMap((name) => {
        const file = turnLog(name);
        if (!existsSync(file)) return [];
        return readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => JSON.parse(line) as TurnRecord)
          .filter((record) => record.sessionId === sessionId);
      });
    },
    process: processOf,
    async restart(party) {
      if (party === 'backend') await world.restartBackend();
      else await restartDevice(DEVICE_OF[party]);
    },
    async heal() {
      for (const name of ['laptop', 'desktop'] as const) {
        await links.restore(name);
        for (const hold of readdirSync(world[name].holdDir)) rmSync(join(world[name].holdDir, hold), { force: true });
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
      rmSync(logDir, { recursive: true, force: true });
    },
  };
  return fw;
}
