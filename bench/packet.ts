/**
 * bench:packet — handoff_resume on a repository of 50,000 files, against the raw git commands a
 * resume needs, run one after another as separate processes, in the same run.
 * The repository is built once and cached under .bench-tmp/packet-50k.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createExecGit } from '../electron/packet/git-read.ts';
import { handoffCreate } from '../electron/packet/handoff-create.ts';
import { handoffResume } from '../electron/packet/handoff-resume.ts';
import { median } from './median.ts';

const FILES = 50_000;
const RUNS = 15;
const BRANCH = 'feature/bench';
const dir = resolve(import.meta.dirname, '../.bench-tmp/packet-50k');
const home = resolve(import.meta.dirname, '../.bench-tmp/home');
const env: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: home,
  GIT_CONFIG_NOSYSTEM: '1',
  LC_ALL: 'C',
  GIT_OPTIONAL_LOCKS: '0',
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@baton.invalid',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@baton.invalid',
};
const git = (args: string[]) => execFileSync('git', args, { cwd: dir, env, encoding: 'utf8', maxBuffer: 256 << 20 }).trim();

/** Builds the 50k-file repo (main = origin/main, a branch with a few commits and a packet) unless cached. */
async function ensureRepo(): Promise<void> {
  if (existsSync(join(dir, '.git', 'bench-ready'))) return;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  mkdirSync(home, { recursive: true });
  git(['init', '-q', '-b', 'main']);
  for (let i = 0; i < FILES; i += 1) {
    const sub = join(dir, 'src', `d${Math.floor(i / 500)}`);
    if (i % 500 === 0) mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `f${i}.ts`), `export const v${i} = ${i};\n`);
  }
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'fifty thousand files']);
  git(['update-ref', 'refs/remotes/origin/main', 'HEAD']);
  git(['checkout', '-q', '-b', BRANCH]);
  for (let c = 0; c < 5; c += 1) {
    writeFileSync(join(dir, 'src', `d${c}`, `f${c * 500}.ts`), `export const changed = ${c};\n`);
    git(['commit', '-q', '-am', `change ${c}`]);
  }
  const created = await handoffCreate(
    dir,
    { goal: 'Benchmark resume', next_action: 'Measure' },
    { exec: createExecGit(env), now: () => new Date() },
  );
  if (!created.ok) throw new Error(`could not write the packet: ${created.message}`);
  git(['status', '--porcelain']); // settle the index stat cache once
  writeFileSync(join(dir, '.git', 'bench-ready'), '');
}

const run = promisify(execFile);
/** The git commands a resume needs, each its own process, one after another. */
async function baseline(): Promise<void> {
  const g = (args: string[]) => run('git', args, { cwd: dir, env, maxBuffer: 256 << 20 });
  await g(['rev-parse', '--show-toplevel']);
  await g(['branch', '--show-current']);
  await g(['rev-parse', '--verify', '--quiet', `refs/heads/${BRANCH}^{commit}`]);
  const head = (await g(['rev-parse', '--verify', 'HEAD^{commit}'])).stdout.trim();
  const base = (await g(['rev-parse', '--verify', 'origin/main^{commit}'])).stdout.trim();
  const mergeBase = (await g(['merge-base', base, head])).stdout.trim();
  await g(['diff', '--name-only', '-z', mergeBase, head, '--']);
  await g(['status', '--porcelain', '-z', '--untracked-files=all']);
}

async function medianTime(task: () => Promise<unknown>): Promise<number> {
  await task(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = process.hrtime.bigint();
    await task();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(times);
}

await ensureRepo();
const exec = createExecGit(env);
const check = await handoffResume(dir, {}, { exec });
if (!check.ok) throw new Error(`resume failed: ${check.message}`);
// Alternate the two so neither gets a warmer cache.
const ours: number[] = [];
const base: number[] = [];
for (let round = 0; round < 3; round += 1) {
  ours.push(await medianTime(() => handoffResume(dir, {}, { exec })));
  base.push(await medianTime(baseline));
}
const oursMs = median(ours);
const baselineMs = median(base);
const ratio = oursMs / baselineMs;
console.log(`handoff_resume on a repository of ${FILES.toLocaleString('en')} files (median of ${RUNS} runs, middle of 3 rounds)`);
console.log('');
console.log('| what                                             | median ms |');
console.log('| ------------------------------------------------ | --------- |');
console.log(`| handoffResume (packet read + drift, 8 git reads) | ${oursMs.toFixed(1).padStart(9)} |`);
console.log(`| raw git: 8 commands, one after another           | ${baselineMs.toFixed(1).padStart(9)} |`);
console.log('');
console.log(`ratio ours/baseline: ${ratio.toFixed(2)} (warnings: ${check.warnings.map((w) => w.code).join(', ') || 'none'})`);
console.log(
  JSON.stringify({
    bench: 'packet',
    ratio: Number(ratio.toFixed(3)),
    ours_ms: Number(oursMs.toFixed(2)),
    baseline_ms: Number(baselineMs.toFixed(2)),
    files: FILES,
    runs: RUNS,
  }),
);
