/**
 * bench:seal — seal/unseal throughput of the checkpoint envelope against raw AES-256-GCM of
 * node:crypto on the same bytes, for 1 MiB and 64 MiB bodies, measured in the same run. "seal" is
 * what the app does for a checkpoint: `sealParts` (head, ciphertext, tag, uploaded unjoined); the
 * joined `seal()` (small payloads) is printed as an extra row outside the ratio.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { checkpointContext, seal, sealParts, unseal } from '../electron/crypto/envelope.ts';
import { generateAdk, KeyRing } from '../electron/crypto/key-ring.ts';
import { median } from './median.ts';

const MiB = 1 << 20;
const ring = new KeyRing([[1, generateAdk()]]);
const context = checkpointContext('account-bench0000000', 'session-bench0000000', 'handoff-bench0000000');
const rawKey = randomBytes(32);

function timed(run: () => void): number {
  const start = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

interface Row {
  size: string;
  op: string;
  ours_ms: number;
  baseline_ms: number;
  ours_mib_s: number;
  baseline_mib_s: number;
  ratio: number;
}

/** Median of per-run ratios baseline/ours: each run times ours and the baseline back to back, so load drift cancels. */
function pairedRatio(ours: number[], baseline: number[]): number {
  return median(ours.map((o, i) => baseline[i]! / o));
}

function measure(bytes: number, runs: number): Row[] {
  const body = randomBytes(bytes);
  const envelope = seal(ring, context, body);
  const nonce = randomBytes(12);
  const rawCipher = createCipheriv('aes-256-gcm', rawKey, nonce);
  const rawCiphertext = rawCipher.update(body);
  rawCipher.final();
  const rawTag = rawCipher.getAuthTag();
  const samples = {
    seal: [] as number[],
    joined: [] as number[],
    unseal: [] as number[],
    encrypt: [] as number[],
    decrypt: [] as number[],
  };
  for (let i = 0; i < runs + 1; i++) {
    const s = timed(() => sealParts(ring, context, body));
    const u = timed(() => {
      if (!unseal(ring, context, envelope).ok) throw new Error('unseal failed');
    });
    const e = timed(() => {
      const cipher = createCipheriv('aes-256-gcm', rawKey, randomBytes(12));
      cipher.update(body);
      cipher.final();
      cipher.getAuthTag();
    });
    const d = timed(() => {
      const decipher = createDecipheriv('aes-256-gcm', rawKey, nonce);
      decipher.setAuthTag(rawTag);
      decipher.update(rawCiphertext);
      decipher.final();
    });
    // The joined seal() runs last, so the paired rows above keep the order they always had.
    const j = timed(() => seal(ring, context, body));
    if (i === 0) continue; // warm-up
    samples.seal.push(s);
    samples.joined.push(j);
    samples.unseal.push(u);
    samples.encrypt.push(e);
    samples.decrypt.push(d);
  }
  const size = `${bytes / MiB} MiB`;
  const row = (op: string, ours: number[], baseline: number[]): Row => {
    const oursMs = median(ours);
    const baselineMs = median(baseline);
    return {
      size,
      op,
      ours_ms: oursMs,
      baseline_ms: baselineMs,
      ours_mib_s: bytes / MiB / (oursMs / 1000),
      baseline_mib_s: bytes / MiB / (baselineMs / 1000),
      ratio: pairedRatio(ours, baseline),
    };
  };
  return [
    row('seal vs raw encrypt', samples.seal, samples.encrypt),
    row('unseal vs raw decrypt', samples.unseal, samples.decrypt),
    row('seal() joined (extra)', samples.joined, samples.encrypt),
  ];
}

const all = [...measure(MiB, 201), ...measure(64 * MiB, 11)];
/** The rows that count: what a checkpoint does (sealParts, unseal); the joined seal() row is informative only. */
const rows = all.filter((r) => !r.op.includes('(extra)'));
console.log('size    operation               ours ms   raw ms   ours MiB/s   raw MiB/s   ratio');
for (const r of all) {
  console.log(
    `${r.size.padEnd(7)} ${r.op.padEnd(23)} ${r.ours_ms.toFixed(2).padStart(7)} ${r.baseline_ms.toFixed(2).padStart(8)} ${r.ours_mib_s.toFixed(0).padStart(12)} ${r.baseline_mib_s.toFixed(0).padStart(11)} ${r.ratio.toFixed(2).padStart(7)}`,
  );
}
const ratio = Math.min(...rows.map((r) => r.ratio));
console.log(`\nratio (throughput ours / raw AES-256-GCM, median of paired runs, worst row): ${ratio.toFixed(2)} (aim ≥ 0.8)`);
const key = (r: Row) => `${r.op.split(' ')[0]}_${r.size.replace(' ', '').toLowerCase()}`;
console.log(
  JSON.stringify({
    bench: 'seal',
    ratio: Number(ratio.toFixed(3)),
    ...Object.fromEntries(
      rows.flatMap((r) => [
        [`${key(r)}_ours_ms`, Number(r.ours_ms.toFixed(3))],
        [`${key(r)}_baseline_ms`, Number(r.baseline_ms.toFixed(3))],
      ]),
    ),
  }),
);
