/** `baton backend`: one line when listening, clean exit on SIGTERM, usage errors; --data or --database (or its environment variable). */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { freshDatabase } from '../dev-env/test-postgres.ts';

const BATON = join(import.meta.dirname, '..', 'bin', 'baton.js');

function run(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const child = spawn(process.execPath, [BATON, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

it('prints exactly one line `backend: http://HOST:PORT`, serves /healthz and exits 0 on SIGTERM', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-cli-backend-'));
  try {
    const backend = run(['backend', '--data', dir, '--port', '0']);
    await expect.poll(backend.out, { timeout: 20_000 }).toMatch(/\n$/);
    const match = /^backend: (http:\/\/127\.0\.0\.1:(\d+))\n$/.exec(backend.out());
    expect(match).not.toBeNull();
    expect(Number(match![2])).toBeGreaterThan(0);
    // The blob limit is published: a device estimates a checkpoint against it before a move.
    expect(await (await fetch(`${match![1]}/healthz`)).json()).toEqual({
      ok: true,
      store: { kind: 'sqlite', reachable: true },
      maxBlobBytes: 1024 * 1024 * 1024,
      keepCheckpoints: 10,
    });
    backend.child.kill('SIGTERM');
    expect(await backend.exited).toBe(0);
    expect(backend.out().split('\n').filter(Boolean)).toHaveLength(1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('refuses to start without --data, with its usage', async () => {
  const backend = run(['backend', '--port', '0']);
  expect(await backend.exited).toBe(2);
  expect(backend.err()).toContain('--data is required');
  expect(backend.err()).toContain('Usage: baton backend');
});

it('takes its blob limit from --max-blob-mib and the checkpoints it keeps from --keep-checkpoints, and publishes both on /healthz', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-cli-backend-'));
  try {
    const backend = run(['backend', '--data', dir, '--port', '0', '--max-blob-mib', '3', '--keep-checkpoints', '3']);
    await expect.poll(backend.out, { timeout: 20_000 }).toMatch(/\n$/);
    const url = /^backend: (\S+)\n$/.exec(backend.out())![1]!;
    expect(await (await fetch(`${url}/healthz`)).json()).toMatchObject({ ok: true, maxBlobBytes: 3 * 1024 * 1024, keepCheckpoints: 3 });
    backend.child.kill('SIGTERM');
    expect(await backend.exited).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('refuses a --max-blob-mib that is not a whole positive number of MiB, with its usage', async () => {
  const backend = run(['backend', '--data', '/nonexistent-baton', '--max-blob-mib', '0.5']);
  expect(await backend.exited).toBe(2);
  expect(backend.err()).toContain('--max-blob-mib must be a whole number of MiB');
});

it('refuses a --keep-checkpoints that is not a whole number from 0 to 1000, with its usage', async () => {
  for (const keep of ['2.5', '1001', 'ten']) {
    const backend = run(['backend', '--data', '/nonexistent-baton', '--keep-checkpoints', keep]);
    expect(await backend.exited).toBe(2);
    expect(backend.err()).toContain('--keep-checkpoints must be a whole number from 0 to 1000');
  }
});

it('runs on PostgreSQL from --database or BATON_DATABASE_URL, and /healthz says so without the connection string', async () => {
  const database = await freshDatabase('baton_cli');
  // The server's own role (\`postgres\` as root, the user who started it otherwise), now with a password.
  const withPassword = new URL(database);
  withPassword.password = 's3cret-pw';
  for (const [args, env] of [
    [['backend', '--database', withPassword.href, '--port', '0'], process.env],
    [['backend', '--port', '0'], { ...process.env, BATON_DATABASE_URL: withPassword.href }],
  ] as const) {
    const backend = run([...args], env);
    await expect.poll(backend.out, { timeout: 20_000 }).toMatch(/\n$/);
    const url = /^backend: (http:\/\/\S+)$/m.exec(backend.out())![1]!;
    const health = await (await fetch(`${url}/healthz`)).text();
    expect(JSON.parse(health)).toEqual({
      ok: true,
      store: { kind: 'postgres', reachable: true },
      maxBlobBytes: 1024 * 1024 * 1024,
      keepCheckpoints: 10,
    });
    backend.child.kill('SIGTERM');
    expect(await backend.exited).toBe(0);
    expect(health + backend.out() + backend.err()).not.toMatch(/s3cret-pw|127\.0\.0\.1:\d+\/baton_cli/);
  }
});

it('refuses --data with --database, and a database that does not answer with one line naming where but not the password', async () => {
  const both = run(['backend', '--data', '/tmp/x', '--database', 'postgres://u@127.0.0.1/db']);
  expect(await both.exited).toBe(2);
  expect(both.err()).toContain('give --data DIR or --database URL, not both');
  const unreachable = run(['backend', '--database', 'postgres://baton:hunter22@127.0.0.1:1/nowhere', '--port', '0']);
  expect(await unreachable.exited).toBe(1);
  expect(unreachable.err().trim().split('\n')).toHaveLength(1);
  expect(unreachable.err()).toContain('cannot reach the database at 127.0.0.1:1/nowhere');
  expect(unreachable.err()).not.toContain('hunter22');
});
