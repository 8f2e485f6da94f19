/**
 * Integration: agent processes cannot hurt the device. A real device process runs sessions whose
 * `claude` and `codex` are hostile stand-ins (dev-env/stand-ins/hostile/: the real CLIs cannot be
 * made to print endless lines): a line with no end, a flood of transcript entries, a flood of
 * permission requests, a Write to /dev/zero, five Edits of a named pipe, and Codex changes through a
 * link out of the workspace or by a relative path out of it. Each turn ends with a sentence, the
 * device stays within its idle memory + 64 MiB (measured on the device process, against its own
 * baseline in the same test), answers at once, and accepts nothing outside the workspace.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, symlinkSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryOf, sampleRss } from '../../dev-env/process-memory.ts';
import { HOSTILE_BIN } from '../../dev-env/stand-ins/stand-ins.ts';
import { startTwoDevices, waitSession, type TwoDevices } from '../../dev-env/two-devices.ts';
import type { SessionDetail } from '../../shared/device-api.ts';

const TEST_TIMEOUT_MS = 120_000;
/** What a hostile turn may add to the device's memory over its idle baseline. */
const MEMORY_BOUND_MIB = 64;

let world: TwoDevices;
let hostileLog: string;

beforeAll(async () => {
  world = await startTwoDevices({ prefix: 'baton-hostile-agents', env: { BATON_TURN_WAIT_MS: '1000' } });
  hostileLog = join(world.sandbox.root, 'hostile.log');
  // The laptop again, its agents the hostile ones.
  await world.laptop.process.stop();
  const env = { PATH: `${HOSTILE_BIN}${delimiter}${process.env.PATH ?? ''}`, BATON_HOSTILE_LOG: hostileLog };
  world.laptop = await world.startDevice({ ...world.laptop, env });
}, 120_000);

afterAll(async () => {
  await world?.cleanup();
});

const said = () => {
  try {
    return readFileSync(hostileLog, 'utf8');
  } catch {
    return '';
  }
};
const lastText = (d: SessionDetail) => d.transcript.at(-1)?.text ?? '';

/** Starts a session of `provider` asked `prompt`, samples the device's memory until `done` holds, and checks the bound. */
async function hostileTurn(
  provider: 'claude-code' | 'codex',
  prompt: string,
  done: (d: SessionDetail) => boolean,
  permission: 'ask' | 'workspace' = 'ask',
): Promise<SessionDetail> {
  const pid = world.laptop.process.child.pid!;
  // The idle baseline: after an ordinary turn of the same agent, so what any turn costs is in it.
  const plain = await world.laptop.client.take('startSession', { workspace: world.repo, provider, prompt: 'say hello', permission });
  await waitSession(world.laptop, plain.id, 'an ordinary turn', (d) => d.transcript.some((e) => e.text === 'hello'));
  const idle = memoryOf(pid).rssMiB;
  const sampler = sampleRss(pid);
  const session = await world.laptop.client.take('startSession', { workspace: world.repo, provider, prompt, permission });
  const detail = await waitSession(world.laptop, session.id, `the ${provider} turn "${prompt}" to end as it should`, done, 90_000);
  const peak = sampler.stop();
  expect(peak - idle, `peak ${peak.toFixed(1)} MiB over an idle ${idle.toFixed(1)} MiB`).toBeLessThan(MEMORY_BOUND_MIB);
  return detail;
}

describe('hostile agent processes', () => {
  it('stops a Claude Code turn that prints a line with no end, with a sentence', { timeout: TEST_TIMEOUT_MS }, async () => {
    const d = await hostileTurn('claude-code', 'endless line', (s) => lastText(s).includes('printed a line longer than 8 MiB'));
    expect(lastText(d)).toMatch(/^Claude Code printed a line longer than 8 MiB on its stdout, so Baton stopped this turn/);
  });

  it('stops a Codex turn that prints a line with no end, with a sentence', { timeout: TEST_TIMEOUT_MS }, async () => {
    const d = await hostileTurn('codex', 'endless line', (s) => lastText(s).includes('printed a line longer than 8 MiB'));
    expect(lastText(d)).toMatch(/^Codex printed a line longer than 8 MiB on its stdout, so Baton stopped this turn/);
  });

  it('stops a turn that floods the transcript at its cap of entries', { timeout: TEST_TIMEOUT_MS }, async () => {
    const d = await hostileTurn('claude-code', 'entry flood', (s) => lastText(s).includes('transcript entries in one turn'));
    expect(lastText(d)).toMatch(/^Claude Code wrote more than 5000 transcript entries in one turn, so Baton stopped the turn/);
    expect(d.transcript.length).toBeLessThanOrEqual(5_000 + 10);
  });

  it('stops a turn that floods permission requests at its cap, and keeps none of the rest', { timeout: TEST_TIMEOUT_MS }, async () => {
    const d = await hostileTurn('codex', 'request flood', (s) => lastText(s).includes('permission requests in one turn'));
    expect(lastText(d)).toMatch(/^Codex asked more than 200 permission requests in one turn, so Baton stopped the turn/);
    expect(d.permissionRequests).toEqual([]);
  });

  it(
    'shows a Write to /dev/zero without reading it, and five Edits of a named pipe without waiting on it',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const zero = await hostileTurn('claude-code', 'write /dev/zero', (s) => s.permissionRequests.length === 1);
      expect(zero.permissionRequests[0]).toMatchObject({ tool: 'Write', path: '/dev/zero' });
      expect(zero.permissionRequests[0]!.diff).toContain('(file not shown: it is outside the workspace)');
      expect(await world.laptop.client.call('interruptTurn', { sessionId: zero.id })).toEqual({ ok: true, value: undefined });

      execFileSync('mkfifo', [join(world.repo, 'pipe')]);
      const fifo = await hostileTurn('claude-code', 'edit fifo pipe', (s) => s.permissionRequests.length === 5);
      for (const request of fifo.permissionRequests) expect(request.diff).toContain('(file not shown: it is not a regular file)');
      // Nothing waits on the pipe: the device answers, and the turn stops when asked.
      expect(await world.laptop.client.call('interruptTurn', { sessionId: fifo.id })).toEqual({ ok: true, value: undefined });
      await waitSession(world.laptop, fifo.id, 'the requests to end', (s) => s.permissionRequests.length === 0);
    },
  );

  it(
    'asks before a Codex change through a link out of the workspace, or by a relative path out of it, at the workspace level',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      symlinkSync(world.sandbox.root, join(world.repo, 'elsewhere'));
      const declines = () =>
        said()
          .split('\n')
          .filter((line) => line === 'change decline').length;
      // Through the link (by its full path, as Codex reports paths), and relative, out of the workspace.
      const outOfWorkspace = [join(world.repo, 'elsewhere', 'owned.txt'), '../../owned.txt'];
      for (const [i, path] of outOfWorkspace.entries()) {
        const d = await hostileTurn('codex', `change ${path}`, (s) => s.permissionRequests.length === 1, 'workspace');
        expect(d.permissionRequests[0]).toMatchObject({ tool: 'fileChange', path });
        expect(said()).not.toContain('change accept');
        expect(
          await world.laptop.client.call('answerPermission', {
            sessionId: d.id,
            requestId: d.permissionRequests[0]!.id,
            generation: 1,
            decision: 'deny',
          }),
        ).toEqual({ ok: true, value: undefined });
        await waitSession(world.laptop, d.id, 'the change declined', () => declines() === i + 1);
      }
      // Inside the workspace it is accepted at once, as the level says: a relative path is taken from the
      // workspace, not from the device process's own folder (which refused this one and could accept one out of it).
      await hostileTurn('codex', 'change inside.txt', () => said().includes('change accept'), 'workspace');
    },
  );
});
