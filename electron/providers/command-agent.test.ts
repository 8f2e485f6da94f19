import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CommandAgentSession } from './command-agent.ts';
import { waitForIdle } from './wait-idle.ts';

// A tiny agent: reads the prompt on stdin, answers on stdout with where it ran; "fail" makes it exit 3.
const script = `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{s=s.trim();
if(s==='fail'){process.stderr.write('boom');process.exit(3)}
process.stdout.write('echo: '+s+'\\n\\nin '+process.cwd()+'\\n')})`;

let workspace: string;
const sessions: CommandAgentSession[] = [];
beforeEach(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), 'baton-cmd-')));
});
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.stop();
  await rm(workspace, { recursive: true, force: true });
});

function agent(argv = [process.execPath, '-e', script]): CommandAgentSession {
  const s = new CommandAgentSession({ argv });
  sessions.push(s);
  return s;
}

describe('command-line agent', () => {
  it('sends the prompt on stdin and shows stdout as the answer, run in the workspace', async () => {
    const cmd = agent();
    expect(await cmd.start(workspace, 'hello')).toEqual({ ok: true, value: undefined });
    await waitForIdle(cmd, 10_000);
    expect(cmd.snapshot().transcript.map((e) => [e.role, e.text])).toEqual([
      ['user', 'hello'],
      ['assistant', `echo: hello\n\nin ${workspace}`],
    ]);
  });

  it('reports a failed run with its exit code and stderr', async () => {
    const cmd = agent();
    await cmd.start(workspace, 'fail');
    await waitForIdle(cmd, 10_000);
    expect(cmd.snapshot().transcript.at(-1)).toMatchObject({ role: 'system', text: 'Command-line agent exited with code 3: boom' });
  });

  it('has nothing to export and cannot import', async () => {
    const cmd = agent();
    expect(cmd.capabilities.checkpointImport).toBe(false);
    expect(await cmd.exportResumeData()).toMatchObject({ ok: false, code: 'unsupported' });
    expect(await cmd.resumeFromImport()).toMatchObject({ ok: false, code: 'unsupported' });
  });

  it('fails with spawn_failed when the command does not exist', async () => {
    const cmd = agent([join(workspace, 'missing-agent')]);
    expect(await cmd.start(workspace, 'x')).toMatchObject({ ok: false, code: 'spawn_failed' });
  });
});
