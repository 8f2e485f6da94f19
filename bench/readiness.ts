/**
 * bench:readiness — readiness evaluation on a 50,000-file repository next to one raw
 * `git status --porcelain=v2 --branch` on the same repo, and workspace pinning next to a raw
 * `git fetch` + `git checkout`, measured in the same run. The repositories are cached in .bench-tmp/.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createGitRunner } from '../electron/git/git-runner.ts';
import { pinWorkspace } from '../electron/git/pinning.ts';
import { evaluateSourceReadiness } from '../electron/git/readiness.ts';
import { gitEnv } from '../dev-env/git-sandbox.ts';
import { median } from './median.ts';

const FILES = 50_000;
const PER_DIR = 250;
const RUNS = 9;
const dir = resolve('.bench-tmp/readiness');
const home = join(dir, 'home');
const origin = join(dir, 'origin.git');
const work = join(dir, 'work');
const targetRoot = join(dir, 'target');
const target = join(targetRoot, 'work');
const marker = join(dir, `ready-${FILES}-v1`);
const env = gitEnv(home);

const git = (cwd: string, args: string[]): string =>
  execFileSync('git', args, { cwd, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] }).trim();

function build(): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(home, { recursive: true });
  mkdirSync(origin, { recursive: true });
  git(origin, ['init', '-q', '--bare']);
  mkdirSync(work);
  git(work, ['init', '-q']);
  for (let d = 0; d < FILES / PER_DIR; d++) {
    const sub = join(work, 'src', `m${d}`);
    mkdirSync(sub, { recursive: true });
    for (let f = 0; f < PER_DIR; f++) writeFileSync(join(sub, `f${f}.ts`), `export const v${d}_${f} = ${d * PER_DIR + f};\n`);
  }
  git(work, ['add', '-A']);
  git(work, ['commit', '-q', '-m', 'Generate 50,000 files']);
  git(work, ['remote', 'add', 'origin', origin]);
  git(work, ['push', '-q', '-u', 'origin', 'main']);
  mkdirSync(targetRoot);
  git(targetRoot, ['clone', '-q', origin, target]);
  // The pin: one more commit on the source, pushed; the target stays at the first one.
  writeFileSync(join(work, 'src', 'm0', 'pinned.ts'), 'export const pinned = true;\n');
  git(work, ['add', '-A']);
  git(work, ['commit', '-q', '-m', 'The pinned commit']);
  git(work, ['push', '-q']);
  writeFileSync(marker, new Date().toISOString());
}

async function timed(fn: () => Promise<unknown> | unknown): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function main(): Promise<void> {
  const started = Date.now();
  if (!existsSync(marker)) build();
  const buildMs = Date.now() - started;
  const run = createGitRunner({ env });
  const base = git(work, ['rev-parse', 'HEAD~1']);
  const pinned = git(work, ['rev-parse', 'HEAD']);
  const resetTarget = (): void => {
    git(target, ['checkout', '-q', '-B', 'main', base]);
    git(target, ['update-ref', 'refs/remotes/origin/main', base]);
  };

  // Warm the index and the page cache once for both sides.
  git(work, ['status', '--porcelain=v2', '--branch']);
  const readinessOurs: number[] = [];
  const readinessRaw: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    readinessRaw.push(await timed(() => git(work, ['status', '--porcelain=v2', '--branch'])));
    readinessOurs.push(
      await timed(async () => {
        const report = await evaluateSourceReadiness([work], { run });
        if (!report.ready) throw new Error(`bench repo not ready: ${JSON.stringify(report.blockers)}`);
      }),
    );
  }

  const pinOurs: number[] = [];
  const pinRaw: number[] = [];
  for (let i = 0; i < Math.ceil(RUNS / 2); i++) {
    resetTarget();
    pinRaw.push(
      await timed(() => {
        git(target, ['fetch', '-q', 'origin']);
        git(target, ['checkout', '-q', '-B', 'main', pinned]);
      }),
    );
    resetTarget();
    pinOurs.push(
      await timed(async () => {
        const outcome = await pinWorkspace([{ remote: origin, branch: 'main', commit: pinned }], { run, workspaceRoot: targetRoot });
        if (!outcome.ok) throw new Error(`pin failed: ${outcome.code} ${outcome.message}`);
      }),
    );
  }

  const rows = [
    {
      what: `readiness (${FILES} files)`,
      ours: median(readinessOurs),
      baseline: median(readinessRaw),
      baselineName: 'git status --porcelain=v2 --branch',
    },
    { what: 'pin workspace', ours: median(pinOurs), baseline: median(pinRaw), baselineName: 'git fetch + git checkout' },
  ];
  console.log(`repository: ${work} (${buildMs > 1000 ? `built in ${(buildMs / 1000).toFixed(1)} s` : 'cached'})`);
  console.log('measure'.padEnd(26) + 'ours ms'.padStart(10) + 'baseline ms'.padStart(14) + 'ratio'.padStart(8) + '  baseline');
  for (const r of rows) {
    console.log(
      r.what.padEnd(26) +
        r.ours.toFixed(1).padStart(10) +
        r.baseline.toFixed(1).padStart(14) +
        (r.ours / r.baseline).toFixed(2).padStart(8) +
        `  ${r.baselineName}`,
    );
  }
  const [ready, pin] = rows as [(typeof rows)[0], (typeof rows)[0]];
  console.log(
    JSON.stringify({
      bench: 'readiness',
      ratio: Number((ready.ours / ready.baseline).toFixed(3)),
      files: FILES,
      runs: RUNS,
      ours_ms: Number(ready.ours.toFixed(2)),
      baseline_ms: Number(ready.baseline.toFixed(2)),
      pin_ours_ms: Number(pin.ours.toFixed(2)),
      pin_baseline_ms: Number(pin.baseline.toFixed(2)),
      pin_ratio: Number((pin.ours / pin.baseline).toFixed(3)),
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
