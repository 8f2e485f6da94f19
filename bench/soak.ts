/**
 * bench:soak — whether a session's hundredth move costs what its first did. One backend and two
 * shipped `baton device` processes; one demo-agent session moved back and forth BENCH_SOAK_MOVES
 * times (default 300), a message every 10th move and a blocked-then-fixed move every 50th. The
 * baseline is the same run's first 50 moves: the ratio is the median move over the last 50 ÷ the
 * first 50 (aim ≤ 1.15). Then (BENCH_SOAK_TRANSCRIPT entries, default 50,000; 0 leaves it out) a
 * session with a long transcript against one of 50: its start, move and the run view's reads
 * (soak-transcript.ts; aim ≤ 1.2).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDemoSession, startTwoDevices } from '../dev-env/two-devices.ts';
import { median } from './median.ts';
import { footprints, soakMoves, timed, type Footprint, type SoakMove } from './soak-moves.ts';
import { longTranscript } from './soak-transcript.ts';

const MOVES = Number(process.env.BENCH_SOAK_MOVES ?? 300);
const WINDOW = Math.min(50, Math.floor(MOVES / 2));
/** The long transcript's entries (0 leaves that part out), against a session of SHORT_ENTRIES. */
const LONG_ENTRIES = Number(process.env.BENCH_SOAK_TRANSCRIPT ?? 50_000);
const SHORT_ENTRIES = 50;
const TRANSCRIPT_ROUNDS = Number(process.env.BENCH_SOAK_TRANSCRIPT_ROUNDS ?? 3);

/** A folder's size on disk, KiB. */
function duKiB(path: string): number {
  return Number(execFileSync('du', ['-sk', path]).toString().split('\t')[0]);
}

function lines(path: string): number {
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean).length : 0;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function main(): Promise<number> {
  const world = await startTwoDevices({ prefix: 'baton-soak-', env: { BATON_DEMO_TURN_MS: '20' }, shipped: true });
  try {
    const session = await startDemoSession(world.laptop, world.repo);
    const sample: Footprint[] = [...footprints(world, 0)];
    const sizes: { after: number; laptopKiB: number; desktopKiB: number; backendKiB: number; journalLines: number }[] = [];
    const sizeNow = (after: number) =>
      sizes.push({
        after,
        laptopKiB: duKiB(world.laptop.profile),
        desktopKiB: duKiB(world.desktop.profile),
        backendKiB: duKiB(world.backendData),
        journalLines: lines(join(world.laptop.profile, 'runtime', 'handoffs', 'journal.jsonl')),
      });
    sizeNow(0);
    const moves: SoakMove[] = await soakMoves(
      world,
      session.id,
      MOVES,
      (done) => {
        sample.push(...footprints(world, done));
        sizeNow(done);
      },
      (m) => {
        if (process.env.BENCH_SOAK_TRACE === '1')
          console.error(
            `move ${m.index}: ${m.ms.toFixed(0)} ms, cpu ${m.cpuMs.toFixed(0)}, readiness ${m.readinessMs.toFixed(0)}, history ${m.historyMs.toFixed(0)} ${JSON.stringify(m.phases)}`,
          );
      },
    );
    // Moves with a message or a blocked start before them are timed from the Move all the same.
    const first = moves.slice(1, WINDOW + 1);
    const last = moves.slice(-WINDOW);
    const of = (ms: SoakMove[], pick: (m: SoakMove) => number) => median(ms.map(pick));
    const ratio = of(last, (m) => m.ms) / of(first, (m) => m.ms);
    const answerMs = {
      listSessions: await timed(() => world.laptop.client.call('listSessions', {})),
      getSession: await timed(() => world.laptop.client.call('getSession', { sessionId: session.id })),
      handoffHistory: await timed(() => world.laptop.client.call('handoffHistory', { sessionId: session.id })),
    };
    console.log(`bench:soak — one demo session moved ${MOVES} times between two device processes`);
    const row = (name: string, pick: (m: SoakMove) => number) => {
      const [early, late] = [of(first, pick), of(last, pick)];
      const times = early > 0 ? `×${(late / early).toFixed(2)}` : '';
      console.log(`  ${name.padEnd(40)} first ${early.toFixed(1).padStart(8)}  last ${late.toFixed(1).padStart(8)}  ${times}`);
    };
    row('Move → completed, median ms', (m) => m.ms);
    console.log(
      `  ${'Move → completed, p95 ms'.padEnd(40)} first ${quantile(
        first.map((m) => m.ms),
        0.95,
      )
        .toFixed(1)
        .padStart(8)}  last ${quantile(
        last.map((m) => m.ms),
        0.95,
      )
        .toFixed(1)
        .padStart(8)}`,
    );
    row('device CPU per move, ms', (m) => m.cpuMs);
    row('checkReadiness, ms', (m) => m.readinessMs);
    row('handoffHistory, ms', (m) => m.historyMs);
    for (const state of Object.keys(moves.at(-1)!.phases)) row(`  ${state}`, (m) => m.phases[state] ?? NaN);
    console.log('  footprint every 50 moves (RSS MiB / open files):');
    for (const after of [...new Set(sample.map((s) => s.after))]) {
      const at = sample.filter((s) => s.after === after);
      console.log(
        `    after ${String(after).padStart(4)}: ${at.map((s) => `${s.process} ${s.rssMiB.toFixed(0)} / ${s.openFiles}`).join(', ')}`,
      );
    }
    console.log("  folder sizes (KiB) and the laptop's handoff journal (lines):");
    for (const s of sizes)
      console.log(
        `    after ${String(s.after).padStart(4)}: laptop ${s.laptopKiB}, desktop ${s.desktopKiB}, backend ${s.backendKiB}, journal ${s.journalLines}`,
      );
    console.log(
      `  device API answers at the end (ms): ${JSON.stringify(Object.fromEntries(Object.entries(answerMs).map(([k, v]) => [k, Number(v.toFixed(1))])))}`,
    );
    return ratio;
  } finally {
    await world.cleanup();
  }
}

const ratio = await main();
const transcript: Record<string, number> = {};
if (LONG_ENTRIES > 0) {
  const { ratios } = await longTranscript(LONG_ENTRIES, SHORT_ENTRIES, TRANSCRIPT_ROUNDS);
  console.log(`  a session of ${LONG_ENTRIES} transcript entries ÷ one of ${SHORT_ENTRIES} (median of ${TRANSCRIPT_ROUNDS} rounds):`);
  for (const [what, r] of Object.entries(ratios)) console.log(`    ${what.padEnd(8)} ×${r.toFixed(2)}`);
  for (const [what, r] of Object.entries(ratios)) transcript[`transcript_${what}_ratio`] = Number(r.toFixed(3));
}
console.log(JSON.stringify({ bench: 'soak', ratio: Number(ratio.toFixed(3)), moves: MOVES, ...transcript }));
