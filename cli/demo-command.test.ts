/** `baton demo` as a process: three address lines, a session on the laptop the desktop can take, clean stop. */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DeviceClient, PROJECT_ROOT, waitFor } from '../dev-env/process-harness.ts';

describe('baton demo', () => {
  it('starts a backend and two devices with a demo session on the laptop, and removes everything on SIGTERM', async () => {
    const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'baton.js'), 'demo', '--skip-build'], {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.resume();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const lines = await waitFor(
        'the demo addresses',
        async () => {
          const found = out.split('\n').filter((l) => /^(backend|laptop|desktop): http/.test(l));
          return found.length === 3 ? found : undefined;
        },
        90_000,
        100,
      );
      const address = (name: string) => lines.find((l) => l.startsWith(`${name}: `))!.slice(name.length + 2);
      const laptop = await DeviceClient.connect(address('laptop'));
      const desktop = await DeviceClient.connect(address('desktop'));
      const [session] = await laptop.call('listSessions', {});
      expect(session).toMatchObject({ isOwner: true, generation: 1, provider: 'demo' });
      const eligible = await laptop.call('moveEligibility', { sessionId: session!.id });
      expect(eligible).toEqual([expect.objectContaining({ name: 'desktop', eligible: true })]);
      expect((await desktop.call('listDevices', {})).map((d) => d.name).sort()).toEqual(['desktop', 'laptop']);
      laptop.close();
      desktop.close();
      // The instructions come after the addresses, so they are what is left on the screen.
      expect(out.indexOf('Next:')).toBeGreaterThan(out.indexOf('desktop: http'));
      expect(out).toContain('click Move');
      const repo = /sample repository is (\S+)/.exec(out)?.[1] ?? '';
      expect(existsSync(repo)).toBe(true);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(existsSync(repo)).toBe(false);
    } finally {
      child.kill('SIGKILL');
    }
  }, 120_000);
});
