/**
 * Carried work for tests (Carry my changes): every kind of change a checkout can hold — staged and
 * unstaged edits, a new file (staged and not), deletions (staged and not), a rename, an executable
 * bit, a symlink, a binary file, an ignored file that must not travel — and a snapshot of a checkout
 * byte for byte (every file's kind, mode and bytes or link target, the index file, HEAD and its
 * branch), so a test can say two checkouts are the same, or one is as it was.
 */
import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GitSandbox } from './git-sandbox.ts';

/** Files a checkout holds before the changes (committed and pushed by `seedCarryRepo`). */
const SEED: Record<string, string> = {
  'src/app.ts': 'export const app = 1;\n',
  'src/old-name.ts': 'export const renamed = true;\n',
  'scripts/run.sh': '#!/bin/sh\necho run\n',
  'docs/gone.md': '# gone\n',
  'docs/unstaged-gone.md': '# unstaged gone\n',
  'staged-then-edited.txt': 'one\n',
  '.gitignore': 'build/\n*.log\n',
};

/** Commits and pushes the files the changes start from. */
export function seedCarryRepo(box: GitSandbox, repo: string): void {
  for (const [file, content] of Object.entries(SEED)) box.writeFile(repo, file, content);
  box.git(repo, ['add', '-A']);
  box.git(repo, ['commit', '-q', '-m', 'Seed the carried files']);
  box.push(repo);
}

/** One unpushed commit (a new file), as a carried move takes along. */
export function commitUnpushed(box: GitSandbox, repo: string, file = 'src/unpushed.ts'): string {
  return box.commitFile(repo, file, 'export const unpushed = 1;\n', 'An unpushed commit');
}

/** Makes every kind of change listed in the file header, on top of `seedCarryRepo`. */
export function makeEveryKindOfChange(box: GitSandbox, repo: string): void {
  box.writeFile(repo, 'src/app.ts', 'export const app = 2; // unstaged edit\n');
  box.writeFile(repo, 'staged-then-edited.txt', 'two\n');
  box.git(repo, ['add', 'staged-then-edited.txt']);
  box.writeFile(repo, 'staged-then-edited.txt', 'three\n');
  box.writeFile(repo, 'src/staged-new.ts', 'export const staged = true;\n');
  box.git(repo, ['add', 'src/staged-new.ts']);
  box.writeFile(repo, 'notes/untracked new.md', '# a new file, not staged\n');
  box.git(repo, ['rm', '-q', 'docs/gone.md']);
  rmSync(join(repo, 'docs/unstaged-gone.md'));
  box.git(repo, ['mv', 'src/old-name.ts', 'src/new-name.ts']);
  chmodSync(join(repo, 'scripts/run.sh'), 0o755);
  symlinkSync('src/app.ts', join(repo, 'app-link'));
  mkdirSync(join(repo, 'assets'), { recursive: true });
  writeFileSync(join(repo, 'assets/blob.bin'), Buffer.from([0, 1, 2, 255, 254, 0, 10, 13, 0x89, 0x50]));
  box.writeFile(repo, 'build/out.js', 'ignored: never carried\n');
  box.writeFile(repo, 'debug.log', 'ignored: never carried\n');
}

/** One entry of a snapshot: a file's mode and bytes' digest, or a link's target (folders are what holds them: git keeps no empty one). */
type Entry = string;

function walk(root: string, dir: string, into: Map<string, Entry>): void {
  for (const name of readdirSync(join(root, dir)).sort()) {
    const rel = dir === '' ? name : `${dir}/${name}`;
    if (rel === '.git') continue;
    const path = join(root, rel);
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) into.set(rel, `link ${readlinkSync(path)}`);
    else if (stat.isDirectory()) walk(root, rel, into);
    else into.set(rel, `file ${(stat.mode & 0o777).toString(8)} ${digest(readFileSync(path))}`);
  }
}

const digest = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The checkout's working files byte for byte (ignored ones included; `.git` left out). */
export function worktreeSnapshot(repo: string): Record<string, Entry> {
  const entries = new Map<string, Entry>();
  walk(repo, '', entries);
  return Object.fromEntries(entries);
}

/** The checkout as a whole: its files, its index file's bytes, HEAD and what it points at. */
export function checkoutSnapshot(
  box: GitSandbox,
  repo: string,
): { files: Record<string, Entry>; index: string; head: string; ref: string } {
  return {
    files: worktreeSnapshot(repo),
    index: digest(readFileSync(join(repo, '.git', 'index'))),
    head: box.head(repo),
    ref: readFileSync(join(repo, '.git', 'HEAD'), 'utf8').trim(),
  };
}

/**
 * The checkout as git sees it: its files, its index's entries (not the file's bytes: git rewrites
 * its stat cache as it likes), HEAD and what it points at. For a checkout Baton may write to (the target).
 */
export function checkoutState(box: GitSandbox, repo: string): { files: Record<string, Entry>; index: string; head: string; ref: string } {
  return { ...checkoutSnapshot(box, repo), index: box.git(repo, ['ls-files', '--stage']) };
}

/** What `git status` says of the checkout, every untracked file listed (what the person would see). */
export function statusOf(box: GitSandbox, repo: string): string {
  return box.git(repo, ['status', '--porcelain=v2', '--untracked-files=all']);
}
