/**
 * npm run bench — runs every benchmark one after another (never two at once: each measures against
 * a baseline taken in its own run, on a quiet machine), shows each one's own output, and ends with
 * a summary of the ratios and one JSON line holding every bench's final JSON.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

interface Bench {
  name: string;
  file: string;
  /** What the ratio is and which way is better. */
  reads: string;
  aim: string;
}

const BENCHES: Bench[] = [
  {
    name: 'backend',
    file: 'backend.ts',
    reads: 'durable transitions/s over signed HTTP ÷ raw SQLite commits/s (higher is better)',
    aim: '≥ 0.25',
  },
  { name: 'seal', file: 'seal.ts', reads: 'sealing throughput ÷ raw AES-256-GCM, worst row (higher is better)', aim: '≥ 0.8' },
  { name: 'readiness', file: 'readiness.ts', reads: 'readiness time ÷ one raw git status (lower is better)', aim: '≤ 1.3' },
  { name: 'packet', file: 'packet.ts', reads: 'handoff_resume time ÷ the raw git commands it needs (lower is better)', aim: 'report' },
  { name: 'handoff', file: 'handoff.ts', reads: 'Move → completed ÷ raw git status + fetch + checkout (lower is better)', aim: 'report' },
  {
    name: 'handoff-scale',
    file: 'handoff-scale.ts',
    reads: 'Move → completed of a 256 MiB Claude transcript ÷ raw seal + upload + download + unseal + git (lower is better)',
    aim: '≤ 1.5',
  },
  {
    name: 'handoff-wan',
    file: 'handoff-wan.ts',
    reads: 'Move → completed over 50 ms, 20 Mbit/s links ÷ (raw git over them + 6 round trips) (lower is better)',
    aim: '≤ 1',
  },
  {
    name: 'fleet',
    file: 'fleet.ts',
    reads: 'max transitions/s with two instances on one PostgreSQL ÷ one instance, 2,000 push streams (higher is better)',
    aim: 'report; push p99 < 100 ms',
  },
  {
    name: 'push',
    file: 'push.ts',
    reads: 'transition → device UI event ÷ raw backend push to a subscriber (lower is better)',
    aim: 'report',
  },
  {
    name: 'two-machines',
    file: 'two-machines.ts',
    reads: 'Move → running on the other machine, across a veth link ÷ the same move on one host (lower is better); join time',
    aim: '≤ 1.2; join < 5 s',
  },
  {
    name: 'soak',
    file: 'soak.ts',
    reads: 'median move over the last 50 of BENCH_SOAK_MOVES (300) moves of one session ÷ the first 50 (lower is better)',
    aim: '≤ 1.15',
  },
  {
    name: 'retention',
    file: 'retention.ts',
    reads: 'one collection pass over 100,000 bodies ÷ a plain batched delete of the same rows and bodies, worst store (lower is better)',
    aim: '≤ 3',
  },
];

const root = fileURLToPath(new URL('..', import.meta.url));
const only = process.argv.slice(2);
const chosen = only.length > 0 ? BENCHES.filter((b) => only.includes(b.name)) : BENCHES;
if (chosen.length === 0) {
  console.error(`No such bench: ${only.join(', ')}. Known: ${BENCHES.map((b) => b.name).join(', ')}.`);
  process.exit(2);
}

const results: { bench: Bench; json: Record<string, unknown> | null; failed: boolean }[] = [];
for (const bench of chosen) {
  console.log(`\n=== bench:${bench.name} ===`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', `bench/${bench.file}`], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  process.stdout.write(run.stdout);
  const last = run.stdout
    .trim()
    .split('\n')
    .reverse()
    .find((line) => line.startsWith('{'));
  let json: Record<string, unknown> | null = null;
  try {
    json = last ? (JSON.parse(last) as Record<string, unknown>) : null;
  } catch {
    json = null;
  }
  results.push({ bench, json, failed: run.status !== 0 || json === null });
}

console.log('\n=== summary (each ratio against a baseline measured in the same run) ===');
const width = Math.max(...results.map((r) => r.bench.name.length));
for (const { bench, json, failed } of results) {
  const ratio = failed ? 'FAILED' : String(json!.ratio);
  console.log(`  ${bench.name.padEnd(width)}  ${ratio.padStart(7)}  aim ${bench.aim.padEnd(7)}  ${bench.reads}`);
}
console.log(JSON.stringify({ benches: Object.fromEntries(results.map((r) => [r.bench.name, r.json])) }));
process.exit(results.some((r) => r.failed) ? 1 : 0);
