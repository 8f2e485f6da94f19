/** The first start after a plain install builds the user interface, says so, and does it once. */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempFolders } from '../dev-env/temp-folders.ts';
import { ensureRendererBuilt, rendererBuilt } from './project-files.ts';

const tempFolder = tempFolders('baton-ui-');
afterEach(() => {
  vi.restoreAllMocks();
});

describe('the user interface on first start', () => {
  it('builds the renderer where it is missing, telling the user, and leaves a built one alone', () => {
    const dir = join(tempFolder(), 'renderer');
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
