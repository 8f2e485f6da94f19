import { describe, expect, it } from 'vitest';
import { PERMISSION_DIFF_MAX } from '../../../shared/permission-request.ts';
import { changesDiff, commandLine, itemEntry, shellWords } from './codex-items.ts';

describe('Codex items as Baton shows them', () => {
  it('splits a command line as a shell would, and gives up on anything a shell would interpret', () => {
    expect(shellWords(`/bin/bash -lc "node -e \\"console.log('hi')\\""`)).toEqual(['/bin/bash', '-lc', `node -e "console.log('hi')"`]);
    expect(shellWords(`bash -c 'npm test; rm -rf ~'`)).toEqual(['bash', '-c', 'npm test; rm -rf ~']);
    expect(shellWords('a\\ b "c d" e')).toEqual(['a b', 'c d', 'e']);
    expect(shellWords('npm test; rm -rf ~')).toBeNull();
    expect(shellWords('echo "$HOME"')).toBeNull();
    expect(shellWords('echo "unclosed')).toBeNull();
  });

  it('shows the script of a shell wrapper, and any other line as Codex gave it', () => {
    expect(commandLine(`/bin/bash -lc "npm test -- --watch"`)).toBe('npm test -- --watch');
    expect(commandLine(`/usr/bin/zsh -c 'git status && rm x'`)).toBe('git status && rm x');
    expect(commandLine('/usr/bin/python3 -c print(1)')).toBe('/usr/bin/python3 -c print(1)');
    expect(commandLine('/bin/bash -lc "$(curl x)"')).toBe('/bin/bash -lc "$(curl x)"');
  });

  it('shows each change as a unified diff with its paths: a new file as added lines, an update as its hunks', () => {
    const add = { path: '/ws/a.txt', kind: { type: 'add' as const }, diff: 'hello\n' };
    const gone = { path: '/ws/d.txt', kind: { type: 'delete' as const }, diff: 'bye\n' };
    const move = { path: '/ws/b.ts', kind: { type: 'update' as const, move_path: '/ws/c.ts' }, diff: '@@ -1 +1 @@\n-x\n+y\n' };
    const header = (path: string) => `Index: ${path}\n${'='.repeat(67)}\n--- ${path}\n+++ ${path}\n`;
    expect(changesDiff([add])).toBe(`${header('/ws/a.txt')}@@ -0,0 +1,1 @@\n+hello\n`);
    expect(changesDiff([gone, move])).toBe(
      `${header('/ws/d.txt')}@@ -1,1 +0,0 @@\n-bye\n--- /ws/b.ts\n+++ /ws/c.ts\n@@ -1 +1 @@\n-x\n+y\n`,
    );
    const long = changesDiff([{ ...move, diff: `@@ -1 +1 @@\n+${'x'.repeat(PERMISSION_DIFF_MAX * 2)}` }]);
    expect(long.length).toBeLessThanOrEqual(PERMISSION_DIFF_MAX);
    expect(long).toMatch(/… \(the diff is 128040 characters; the first 63900 are shown\)$/);
  });

  it('writes a finished command with its exit and the end of its output, a declined one as declined', () => {
    const command = { type: 'commandExecution' as const, id: 'c', command: '/bin/bash -lc ls', cwd: '/ws', commandActions: [] };
    expect(itemEntry({ ...command, status: 'completed', aggregatedOutput: 'a\nb\n', exitCode: 0 })).toEqual({
      role: 'tool',
      text: '$ ls (exit 0)\na\nb',
    });
    expect(itemEntry({ ...command, status: 'declined', aggregatedOutput: null, exitCode: null })?.text).toBe('$ ls (declined)');
    const long = itemEntry({ ...command, status: 'failed', aggregatedOutput: `start${'y'.repeat(3000)}`, exitCode: 1 })?.text;
    expect(long).toBe(`$ ls (exit 1)\n…${'y'.repeat(2000)}`);
    expect(itemEntry({ type: 'reasoning', id: 'r' })).toBeNull();
  });
});
