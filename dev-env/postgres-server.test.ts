/** The throwaway PostgreSQL server: starts on its own port, answers, makes databases, and leaves nothing behind. */
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { postgresBinDir, startPostgres } from './postgres-server.ts';

describe('a throwaway PostgreSQL server', () => {
  it('starts on 127.0.0.1 with its own data folder, makes a database that answers, and is removed on stop', async () => {
    const server = await startPostgres({ fast: true });
    try {
      const url = await server.createDatabase('baton_probe');
      expect(url).toBe(`${server.url.replace(/\/postgres$/, '')}/baton_probe`);
      const psql = join(postgresBinDir()!, 'psql');
      const answered = spawnSync(psql, [url, '-tAc', 'select 6 * 7'], { encoding: 'utf8' });
      expect(answered.stdout.trim()).toBe('42');
    } finally {
      await server.stop();
    }
    expect(existsSync(server.dataDir)).toBe(false);
  }, 60_000);
});
