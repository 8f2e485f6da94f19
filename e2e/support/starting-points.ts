/**
 * What a test starts from, made through the devices' own API rather than the UI (the UI is what the
 * test then checks): a repository of the test's own, a session on the laptop, a session moved to the
 * other device. Each test of a spec makes its own, so that it runs alone (`-g`) as it runs after the
 * others in the world they share, whatever those left behind.
 */
import { join } from 'node:path';
import type { SessionDetail } from '../../shared/device-api.ts';
import type { PermissionLevel } from '../../shared/provider.ts';
import { deviceId, waitEligible, waitSession, type DeviceHandle } from '../../dev-env/two-devices.ts';
import type { World } from './devices.ts';

/**
 * A repository for one test alone: a bare origin named `name` (one commit on main) and the laptop's
 * clone of it at `<laptop workspace root>/<name>`. A move takes it to `<desktop workspace root>/<name>`,
 * so no other test's session or leftover file is in its way.
 */
export function ownRepo(world: World, name: string): string {
  const { sandbox, laptop } = world.devices;
  return sandbox.clone(sandbox.makeOrigin(name), join(laptop.workspaceRoot, name));
}

/** Whether the session's agent has answered (its first turn has an assistant entry). */
const answered = (detail: SessionDetail) => detail.transcript.some((entry) => entry.role === 'assistant');

/**
 * Starts a session on the laptop through its API — the demo agent unless `provider` (its id) says
 * otherwise — and resolves to its id once `ready` holds of it (default: its agent has answered).
 */
export async function sessionOnLaptop(
  world: World,
  input: { title: string; workspace: string; prompt?: string; provider?: string; permission?: PermissionLevel },
  ready: (detail: SessionDetail) => boolean = answered,
): Promise<string> {
  const laptop = world.devices.laptop;
  const { title, workspace, prompt = 'Look around the repository.', provider = 'demo', permission } = input;
  const session = await laptop.client.take('startSession', { title, workspace, prompt, provider, ...(permission ? { permission } : {}) });
  await waitSession(laptop, session.id, `"${title}" to be ready on the laptop`, ready, 60_000);
  return session.id;
}

/** The device of the world named `name`. */
const named = (world: World, name: 'laptop' | 'desktop'): DeviceHandle => world.devices[name];

/**
 * Moves the session to `target` through its owner's API and waits until both devices see the move
 * completed, `target` owning the session one generation on; resolves to its detail on `target`.
 */
export async function movedTo(world: World, sessionId: string, target: 'laptop' | 'desktop'): Promise<SessionDetail> {
  const to = named(world, target);
  const from = named(world, target === 'desktop' ? 'laptop' : 'desktop');
  const before = await from.client.call('getSession', { sessionId });
  if (!before?.isOwner) throw new Error(`${from.name} does not own session ${sessionId}`);
  await waitEligible(from, sessionId, target);
  const targetId = await deviceId(to);
  const moved = await from.client.call('startMove', { sessionId, targetDeviceId: targetId });
  if (!moved.ok) throw new Error(`the move to ${target} was refused: ${JSON.stringify(moved)}`);
  const done = (detail: SessionDetail) =>
    detail.generation === before.generation + 1 && detail.ownerDeviceId === targetId && detail.lastHandoff?.state === 'completed';
  await waitSession(from, sessionId, `${from.name} to see the move to ${target} completed`, done, 60_000);
  return waitSession(to, sessionId, `${target} to own the session`, (d) => done(d) && d.isOwner && d.inputBlock === null, 60_000);
}

/**
 * A session of `provider` (its id) on the laptop whose agent asked to run `command` and was answered
 * "Allow for this session" through the API: the rule is the session's, and the command ran once (the
 * transcript shows `ran`).
 */
export async function sessionWithCommandAllowed(
  world: World,
  input: { title: string; workspace: string; provider: string; command: string; ran: RegExp },
): Promise<string> {
  const laptop = world.devices.laptop;
  const { title, workspace, provider, command, ran } = input;
  const asking = (detail: SessionDetail) => detail.permissionRequests.length > 0;
  const sessionId = await sessionOnLaptop(world, { title, workspace, provider, prompt: `run command ${command}` }, asking);
  const [request] = (await laptop.client.call('getSession', { sessionId }))!.permissionRequests;
  const answer = { sessionId, requestId: request!.id, generation: request!.generation, decision: 'allow-session' } as const;
  const answered = await laptop.client.call('answerPermission', answer);
  if (!answered.ok) throw new Error(`the answer was refused: ${answered.message}`);
  await waitSession(laptop, sessionId, `"${title}" to run the allowed command`, (d) => d.transcript.some((e) => ran.test(e.text)), 60_000);
  return sessionId;
}
