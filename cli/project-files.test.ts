/** The first start after a plain install builds the user interface, says so, and does it once. */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ensureRendererBuilt, rendererBuilt } from './project-files.ts';

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the user interface on first start', () => {
  it('builds the renderer where it is missing, telling the user, and leaves a built one alone', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'baton-ui-')), 'renderer');
    dirs.push(join(dir, '..'));
    const said = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(rendererBuilt(dir)).toBe(false);

    expect(ensureRendererBuilt('baton device', dir)).toBe(true);
    const page = readFileSync(join(dir, 'index.html'), 'utf8');
    expect(page).toContain('Content-Security-Policy');
    expect(page).toMatch(/<script[^>]+src="\.\/assets\/index-[^"]+\.js"/);
    expect(said.mock.calls.flat().join('\n')).toContain('baton device: building the user interface once');

    const builtAt = statSync(join(dir, 'index.html')).mtimeMs;
    said.mockClear();
    expect(ensureRendererBuilt('baton device', dir)).toBe(true);
    expect(statSync(join(dir, 'index.html')).mtimeMs).toBe(builtAt);
    expect(said).not.toHaveBeenCalled();
  }, 60_000);
});
