/**
 * bench:handoff-scale — Move → completed of a Claude Code session (the real `claude` against the
 * scripted model server) between two real device processes, at real sizes: Claude transcripts of 1,
 * 32 and 256 MiB in a small repository, then a 50,000-file repository and a three-repository
 * workspace (1 MiB transcripts). Each row against the raw work in the same run: sealing the same
 * transcript bytes, uploading them to the same backend, downloading and unsealing them to a file,
 * plus raw git status (source) / fetch + checkout (target) of the same repositories. Prints each
 * device's idle and peak resident memory during the move (VmHWM, reset before it), the slowest
 * answer either device's UI API gave while the bytes moved, and the longest either device took to
 * tell its UI of a state the backend committed; ends with one JSON line whose `ratio` is the largest
 * transcript row's.
 *
 * Each row times BENCH_SCALE_ROUNDS moves (default 3, alternating direction; memory, UI and phases
 * from the first), each followed by its raw work, and reports the medians of both.
 *
 * BENCH_SCALE_MIB (default "1,32,256") and BENCH_SCALE_FILES (default 50000) shrink it for a quick look;
 * BENCH_SCALE_FILES=0 leaves out both repository rows (the transcript rows alone).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { checkpointContext } from '../electron/crypto/envelope.ts';
import { startOpen, startSeal } from '../electron/crypto/envelope-stream.ts';
import { generateAdk, KeyRing } from '../electron/crypto/key-ring.ts';
import { ChunkWriter, forEachChunk } from '../electron/io/file-chunks.ts';
import { projectSlug } from '../electron/providers/claude-code/paths.ts';
import type { DeviceApiEvents } from '../shared/device-api.ts';
import { startBenchAgentLab } from './agent-lab.ts';
import { growClaudeTranscript } from '../dev-env/large-claude-transcript.ts';
import { median } from './median.ts';
import { memoryOf, resetPeak, sampleRss } from '../dev-env/process-memory.ts';
import { createTestAccount, newId, newTestDevice } from '../dev-env/sync-fixtures.ts';
import { deviceId, startTwoDevices, waitEligible, waitSession, type DeviceHandle, type TwoDevices } from '../dev-env/two-devices.ts';

const MiB = 1024 * 1024;
const SIZES = (process.env.BENCH_SCALE_MIB ?? '1,32,256').split(',').map(Number);
const FILES = Number(process.env.BENCH_SCALE_FILES ?? 50_000);
/** Moves (and raw transfers) timed per row; a single 256 MiB round swings by a fifth between runs here. */
const ROUNDS = Number(process.env.BENCH_SCALE_ROUNDS ?? 3);
const ROOT = join(import.meta.dirname, '..');

interface Row {
  name: string;
  moveMs: number;
  rawMs: number;
  rawParts: { seal: number; upload: number; download: number; git: number };
  transcriptMiB: number;
  checkpointMiB: number;
  devices: { name: string; idleMiB: number; peakMiB: number }[];
  /** The slowest getStatus answer of either device while the move ran (the ownership strip's source). */
  slowestUiMs: number;
  /** The longest a device's handoffChanged event came after the backend committed that state. */
  stripLagMs: number;
  phases: [string, number][];
}

/**
 * Writes out the dirty pages the last round left (hundreds of MiB of sealed files and blobs), so the
 * next timed move or raw transfer does not pay for its predecessor's writeback.
 */
function settleDisk(): void {
  execFileSync('sync');
}

/** The whole raw work of a round: seal, upload, download and git. */
const rawTotal = (parts: Row['rawParts']): number => parts.seal + parts.upload + parts.download + parts.git;

/** Milliseconds of `work`. */
async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** Moves the session and resolves once the target says completed, with the move's time and checkpoint size. */
async function move(
  source: DeviceHandle,
  target: DeviceHandle,
  sessionId: string,
): Promise<{ ms: number; checkpointBytes: number; phases: [string, number][]; stripLagMs: number }> {
  await waitEligible(source, sessionId, target.name);
  const targetId = await deviceId(target);
  let handoffId = '';
  let settle!: (error?: Error) => void;
  const ended = new Promise<void>((resolve, reject) => (settle = (error) => (error ? reject(error) : resolve())));
  // How long after the backend committed a state each window heard of it (what its ownership strip shows).
  let stripLagMs = 0;
  const heard = (h: DeviceApiEvents['handoffChanged']) => {
    if (h.id === handoffId) stripLagMs = Math.max(stripLagMs, Date.now() - (h.history.at(-1)?.at ?? Date.now()));
  };
  const offSource = source.client.on('handoffChanged', heard);
  const off = target.client.on('handoffChanged', (h: DeviceApiEvents['handoffChanged']) => {
    heard(h);
    if (h.id !== handoffId) return;
    if (h.state === 'completed') settle();
    if (h.state === 'cancelled') settle(new Error(`the move was cancelled: ${h.cancelReason?.code} ${h.cancelReason?.message}`));
  });
  const started = performance.now();
  const result = await source.client.call('startMove', { sessionId, targetDeviceId: targetId });
  if (!result.ok) throw new Error(`move refused: ${JSON.stringify(result)}`);
  handoffId = result.value.handoffId;
  if ((await target.client.call('handoffHistory', { sessionId })).some((h) => h.id === handoffId && h.state === 'completed')) settle();
  await ended;
  const ms = performance.now() - started;
  off();
  offSource();
  // The source's log says how big the sealed checkpoint was.
  const logged = new RegExp(`checkpoint of ${handoffId}: (\\d+) bytes`).exec(source.process.stdout() + source.process.stderr());
  // Milliseconds to reach each state after the one before, from the backend's commit times.
  const history = (await target.client.call('handoffHistory', { sessionId })).find((h) => h.id === handoffId)?.history ?? [];
  const phases = history.slice(1).map((h, i): [string, number] => [h.state, h.at - history[i]!.at]);
  return { ms, checkpointBytes: logged ? Number(logged[1]) : 0, phases, stripLagMs };
}

/** Polls both devices' getStatus every 50 ms until stopped; resolves with the slowest answer. */
function watchUi(devices: DeviceHandle[]): { stop(): Promise<number> } {
  let slowest = 0;
  let running = true;
  const loops = devices.map(async (device) => {
    while (running) {
      slowest = Math.max(slowest, await timed(() => device.client.call('getStatus', {})));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      return slowest;
    },
  };
}

/** The raw byte work of a checkpoint of `path`'s bytes: seal to a file, upload, download and unseal to a file. */
async function rawTransfer(world: TwoDevices, path: string, dir: string): Promise<Row['rawParts']> {
  const device = newTestDevice(world.backendUrl, 'raw');
  const { accountId } = await createTestAccount(device);
  const ring = new KeyRing([[1, generateAdk()]]);
  const context = checkpointContext(accountId, newId(), newId());
  const sealedPath = join(dir, 'raw.sealed');
  let sha256 = '';
  let size = 0;
  const seal = await timed(async () => {
    const sealer = startSeal(ring, context);
    const out = await ChunkWriter.create(sealedPath);
    const hash = createHash('sha256');
    const put = async (bytes: Buffer) => {
      hash.update(bytes);
      await out.write(bytes);
    };
    await put(sealer.head);
    await forEachChunk(path, (chunk) => put(sealer.update(chunk)));
    await put(sealer.final());
    await out.close();
    sha256 = hash.digest('hex');
    size = out.size;
  });
  const upload = await timed(async () => {
    const put = await device.client.putBlobFile({ path: sealedPath, size, sha256 });
    if (!put.ok) throw new Error(`raw upload failed: ${put.code} ${put.message}`);
  });
  const download = await timed(async () => {
    const opener = startOpen(ring, context, size);
    const out = await ChunkWriter.create(join(dir, 'raw.plain'));
    const got = await device.client.getBlobTo(sha256, async (chunk) => {
      const plain = opener.update(chunk);
      if (!plain.ok) throw new Error(plain.message);
      await out.write(plain.value);
    });
    await out.close();
    if (!got.ok || !opener.final().ok) throw new Error('raw download failed');
  });
  await rm(sealedPath, { force: true });
  await rm(join(dir, 'raw.plain'), { force: true });
  return { seal, upload, download, git: 0 };
}

/** The unavoidable git work of a move of these repositories: status on the source, fetch + checkout on the target. */
function rawGit(env: NodeJS.ProcessEnv, repos: { source: string; target: string }[]): number {
  const git = (cwd: string, args: string[]) =>
    execFileSync('git', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 * MiB })
      .toString()
      .trim();
  const commits = repos.map((r) => git(r.source, ['rev-parse', 'HEAD']));
  const started = performance.now();
  for (const repo of repos) git(repo.source, ['status', '--porcelain=v2', '--branch']);
  repos.forEach((repo, i) => {
    git(repo.target, ['fetch', '-q', 'origin', 'main']);
    git(repo.target, ['checkout', '-q', '-B', 'main', commits[i]!]);
  });
  return performance.now() - started;
}

/** The Claude transcript file of the session the laptop's CLI wrote last for `workspace`. */
function newestTranscript(configDir: string, workspace: string): { path: string; sessionId: string } {
  const folder = join(configDir, 'projects', projectSlug(workspace));
  const files = readdirSync(folder)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => ({ f, at: statSync(join(folder, f)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  if (files.length === 0) throw new Error(`no Claude transcript under ${folder}`);
  return { path: join(folder, files[0]!.f), sessionId: files[0]!.f.slice(0, -'.jsonl'.length) };
}

/**
 * One row: a Claude session in `workspace` on the laptop, moved there and back once (the desktop
 * clones, both CLIs have imported), its transcript grown to `mib`, then the timed move to the desktop.
 */
async function row(
  world: TwoDevices,
  lab: { laptopConfig: string },
  name: string,
  workspace: string,
  repos: { source: string; target: string }[],
  mib: number,
): Promise<Row> {
  const { laptop, desktop } = world;
  const session = await laptop.client.take('startSession', { workspace, provider: 'claude-code', prompt: 'say hello', title: name });
  await waitSession(laptop, session.id, 'the first Claude turn', (d) => d.transcript.some((e) => e.role === 'assistant'), 120_000);
  await move(laptop, desktop, session.id);
  await move(desktop, laptop, session.id);
  const transcript = newestTranscript(lab.laptopConfig, workspace);
  const transcriptBytes = await growClaudeTranscript(transcript.path, {
    sessionId: transcript.sessionId,
    cwd: workspace,
    bytes: mib * MiB,
  });
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const devices = [laptop, desktop].map((d) => ({ handle: d, pid: d.process.child.pid!, idleMiB: 0, reset: false }));
  for (const d of devices) {
    d.idleMiB = memoryOf(d.pid).rssMiB;
    d.reset = resetPeak(d.pid);
  }
  const samplers = devices.map((d) => sampleRss(d.pid, 20));
  const ui = watchUi([laptop, desktop]);
  settleDisk();
  const moved = await move(laptop, desktop, session.id);
  const slowestUiMs = await ui.stop();
  const sampled = samplers.map((s) => s.stop());
  const peaks = devices.map((d, i) => Math.max(sampled[i]!, d.reset ? memoryOf(d.pid).peakMiB : 0));
  // Each device's log of the move (its last lines), to read where the time went.
  const logs = join(ROOT, '.bench-tmp', 'handoff-scale-logs');
  mkdirSync(logs, { recursive: true });
  const keepLogs = (round: number) => {
    for (const d of [laptop, desktop]) writeFileSync(join(logs, `${name.replace(/\W+/g, '-')}-${round}-${d.name}.log`), d.process.stderr());
  };
  keepLogs(1);
  const scratch = join(world.sandbox.root, 'raw');
  mkdirSync(scratch, { recursive: true });
  const raw = async () => {
    settleDisk();
    return { ...(await rawTransfer(world, transcript.path, scratch)), git: rawGit(world.env, repos) };
  };
  // Further rounds alternate direction, each move followed by its raw work: the medians are reported.
  const moves = [moved.ms];
  const raws = [await raw()];
  for (let round = 1; round < ROUNDS; round++) {
    const [from, to] = round % 2 === 1 ? [desktop, laptop] : [laptop, desktop];
    settleDisk();
    const again = await move(from, to, session.id);
    keepLogs(round + 1);
    moves.push(again.ms);
    console.log(
      `  ${name} round ${round + 1} (${from.name} → ${to.name}): ${again.phases.map(([state, ms]) => `${state} ${ms}`).join(', ')}`,
    );
    raws.push(await raw());
  }
  const rawParts = {
    seal: median(raws.map((r) => r.seal)),
    upload: median(raws.map((r) => r.upload)),
    download: median(raws.map((r) => r.download)),
    git: median(raws.map((r) => r.git)),
  };
  console.log(
    `  ${name}: each round's Move ms ${moves.map((m) => m.toFixed(0)).join(', ')}; raw ms ${raws.map((r) => rawTotal(r).toFixed(0)).join(', ')}`,
  );
  return {
    name,
    moveMs: median(moves),
    rawMs: median(raws.map(rawTotal)),
    rawParts,
    transcriptMiB: transcriptBytes / MiB,
    checkpointMiB: moved.checkpointBytes / MiB,
    devices: devices.map((d, i) => ({ name: d.handle.name, idleMiB: d.idleMiB, peakMiB: peaks[i]! })),
    slowestUiMs,
    phases: moved.phases,
    stripLagMs: moved.stripLagMs,
  };
}

/** Commits `count` small files (100 a folder) to `repo` in one commit and pushes it. */
function fillRepository(world: TwoDevices, repo: string, count: number): void {
  for (let i = 0; i < count; i++) {
    const folder = join(repo, 'src', `m${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `f${i}.ts`), `export const v${i} = ${i};\n`);
  }
  const git = (args: string[]) => execFileSync('git', args, { cwd: repo, env: world.env, stdio: 'ignore' });
  git(['add', '-A']);
  git(['commit', '-q', '-m', `Add ${count} files`]);
  world.sandbox.push(repo);
}

function print(rows: Row[]): void {
  const header = [
    'row',
    'ckpt MiB',
    'Move ms',
    'raw ms',
    'ratio',
    'seal/up/down/git ms',
    'laptop idle→peak MiB',
    'desktop idle→peak MiB',
    'UI max ms',
    'strip lag ms',
  ];
  const lines = rows.map((r) => [
    r.name,
    r.checkpointMiB.toFixed(1),
    r.moveMs.toFixed(0),
    r.rawMs.toFixed(0),
    (r.moveMs / r.rawMs).toFixed(2),
    [r.rawParts.seal, r.rawParts.upload, r.rawParts.download, r.rawParts.git].map((n) => n.toFixed(0)).join('/'),
    ...r.devices.map((d) => `${d.idleMiB.toFixed(0)}→${d.peakMiB.toFixed(0)} (+${(d.peakMiB - d.idleMiB).toFixed(0)})`),
    r.slowestUiMs.toFixed(0),
    r.stripLagMs.toFixed(0),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  console.log('bench:handoff-scale — Claude Code session between two device processes, against the raw work in the same run');
  for (const line of [header, ...lines]) console.log(`  ${line.map((c, i) => c.padEnd(widths[i]!)).join('  ')}`);
  console.log(`  Move and raw: medians of ${ROUNDS} rounds (memory, UI, strip lag and phases: the first move)`);
  console.log('  aims at the largest transcript: Move ≤ 1.5× raw; each device peak ≤ idle + 64 MiB + one checkpoint');
  console.log('  UI max: slowest getStatus answer of either device during the move; strip lag: longest from a backend commit to');
  console.log("  either device's handoffChanged event (what its ownership strip shows) during the move");
  console.log("  where each row's move spends its time (ms to reach each state after the one before, backend commit times):");
  for (const r of rows) console.log(`    ${r.name.padEnd(20)} ${r.phases.map(([state, ms]) => `${state} ${ms}`).join(', ')}`);
}

/** The repository rows: a FILES-file repository, then a three-repository workspace (1 MiB transcripts). */
async function repositoryRows(
  w: TwoDevices,
  config: { laptopConfig: string },
  rows: Row[],
  target: (name: string) => string,
): Promise<void> {
  const mono = w.sandbox.clone(w.sandbox.makeOrigin('mono'), join(w.laptop.workspaceRoot, 'mono'));
  fillRepository(w, mono, FILES);
  rows.push(await row(w, config, `${FILES} files`, mono, [{ source: mono, target: target('mono') }], 1));
  const trio = join(w.laptop.workspaceRoot, 'trio');
  mkdirSync(trio);
  const names = ['api', 'web', 'docs'];
  for (const name of names) {
    const repo = w.sandbox.clone(w.sandbox.makeOrigin(name), join(trio, name));
    w.sandbox.commitFile(repo, 'index.ts', 'export {};\n', `Start ${name}`);
    w.sandbox.push(repo);
  }
  rows.push(
    await row(
      w,
      config,
      'three repositories',
      trio,
      names.map((name) => ({ source: join(trio, name), target: target(name) })),
      1,
    ),
  );
}

async function main(): Promise<void> {
  const { lab, laptopHome, desktopHome } = await startBenchAgentLab();
  let world: TwoDevices | null = null;
  try {
    world = await startTwoDevices({
      prefix: 'baton-scale-',
      shipped: true,
      env: { BATON_PREPARE_TIMEOUT_MS: '600000', BATON_CLAIM_TIMEOUT_MS: '600000' },
      laptopEnv: laptopHome.env,
      desktopEnv: desktopHome.env,
    });
    const w = world;
    const target = (name: string) => join(w.desktop.workspaceRoot, name);
    w.sandbox.commitFile(w.repo, 'src/parser.ts', 'export const parse = (s: string) => s.split(",");\n', 'Add the parser');
    w.sandbox.push(w.repo);
    const rows: Row[] = [];
    const config = { laptopConfig: laptopHome.claudeConfigDir };
    for (const mib of SIZES) {
      rows.push(await row(w, config, `${mib} MiB transcript`, w.repo, [{ source: w.repo, target: target('app') }], mib));
    }
    if (FILES > 0) await repositoryRows(w, config, rows, target);
    print(rows);
    const largest = rows.filter((r) => r.name.endsWith('transcript')).at(-1)!;
    const over = Math.max(...largest.devices.map((d) => d.peakMiB - d.idleMiB));
    console.log(
      JSON.stringify({
        bench: 'handoff-scale',
        ratio: Number((largest.moveMs / largest.rawMs).toFixed(3)),
        peak_rss_over_idle_mib: Number(over.toFixed(1)),
        checkpoint_mib: Number(largest.checkpointMiB.toFixed(1)),
        rounds: ROUNDS,
        rows: rows.map((r) => ({
          row: r.name,
          move_ms: Number(r.moveMs.toFixed(0)),
          raw_ms: Number(r.rawMs.toFixed(0)),
          ratio: Number((r.moveMs / r.rawMs).toFixed(3)),
          checkpoint_mib: Number(r.checkpointMiB.toFixed(1)),
          peak_over_idle_mib: Object.fromEntries(r.devices.map((d) => [d.name, Number((d.peakMiB - d.idleMiB).toFixed(1))])),
          slowest_ui_ms: Number(r.slowestUiMs.toFixed(0)),
          strip_lag_ms: Number(r.stripLagMs.toFixed(0)),
        })),
      }),
    );
  } finally {
    await world?.cleanup();
    await lab.close();
  }
}

await main();
