/**
 * A child process that moves one large blob through a backend with the device's streaming client
 * (putBlobFile, then getBlobTo into a hash) and reports its own memory around it, so a test can hold
 * the transfer to a bound that a joined buffer would break. Run as
 * `node --import tsx dev-env/blob-transfer-probe.ts` with its settings as JSON in BATON_PROBE.
 * Prints one JSON line: { idleMiB, peakMiB, uploaded, downloadedSha256, progressReports }.
 *
 * With `checkpoint: true` the blob is a whole checkpoint whose provider file is the body: sealed into
 * a file as it is written (sealCheckpointToFile), uploaded, then received, unsealed and unpacked into
 * a staging folder (receiveCheckpoint), as a move does; it prints { idleMiB, peakMiB, sealedBytes,
 * stagedSha256, sha256, entries }.
 */
import { createHash, createPrivateKey, randomFillSync } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Handoff } from '../shared/api/handoffs.ts';
import { checkpointContext } from '../electron/crypto/envelope.ts';
import { startOpen, startSeal } from '../electron/crypto/envelope-stream.ts';
import { generateAdk, KeyRing } from '../electron/crypto/key-ring.ts';
import { CHECKPOINT_FORMAT, type Checkpoint } from '../electron/handoff/checkpoint.ts';
import { receiveCheckpoint, sealCheckpointToFile } from '../electron/handoff/checkpoint-transfer.ts';
import { transcriptOf } from '../electron/handoff/checkpoint-transcript.ts';
import { forEachChunk } from '../electron/io/file-chunks.ts';
import { backendPort } from '../electron/runtime/adapters/backend-port.ts';
import { createBackendClient } from '../electron/sync/backend-client.ts';
import { keyObjectSigner } from '../electron/sync/request-signer.ts';
import { memoryOf, resetPeak } from './process-memory.ts';
import { newId } from './sync-fixtures.ts';

interface ProbeSettings {
  backendUrl: string;
  /** The account the device is in (the checkpoint's sealing context). */
  accountId?: string;
  checkpoint?: boolean;
  deviceId: string;
  /** The device's Ed25519 private key, PKCS#8 DER in base64. */
  privateKey: string;
  dir: string;
  mib: number;
}

const settings = JSON.parse(process.env.BATON_PROBE ?? '{}') as ProbeSettings;
const MiB = 1024 * 1024;

/** Writes `mib` MiB of random bytes to a file one reused MiB at a time; resolves with its SHA-256. */
async function writeBody(path: string, mib: number): Promise<string> {
  const hash = createHash('sha256');
  const chunk = Buffer.alloc(MiB);
  const file = await open(path, 'w');
  try {
    for (let i = 0; i < mib; i++) {
      randomFillSync(chunk);
      hash.update(chunk);
      await file.write(chunk);
    }
  } finally {
    await file.close();
  }
  return hash.digest('hex');
}

const signer = keyObjectSigner(
  settings.deviceId,
  createPrivateKey({ key: Buffer.from(settings.privateKey, 'base64'), format: 'der', type: 'pkcs8' }),
);
const client = createBackendClient({ baseUrl: settings.backendUrl, signer });
const path = join(settings.dir, 'probe-body');
const sha256 = await writeBody(path, settings.mib);
// One small call first, so the connection and the client's code are warm before the idle reading.
await client.call('listDevices');
await new Promise((resolve) => setTimeout(resolve, 200));
const idleMiB = memoryOf(process.pid).rssMiB;
resetPeak(process.pid);
if (settings.checkpoint) {
  console.log(JSON.stringify({ idleMiB, ...(await moveCheckpoint()), sha256 }));
  process.exit(0);
}
let progressReports = 0;
const put = await client.putBlobFile({ path, size: settings.mib * MiB, sha256 }, () => (progressReports += 1));
const back = createHash('sha256');
const got = await client.getBlobTo(
  sha256,
  (chunk) => void back.update(chunk),
  () => (progressReports += 1),
);
const peakMiB = memoryOf(process.pid).peakMiB;
await rm(path, { force: true });
console.log(
  JSON.stringify({
    idleMiB,
    peakMiB,
    uploaded: put.ok ? put.value : put,
    downloaded: got.ok ? got.value : got,
    downloadedSha256: back.digest('hex'),
    sha256,
    progressReports,
  }),
);

/** Seals, uploads, receives and unpacks a checkpoint carrying the body as its provider file (see the header). */
async function moveCheckpoint(): Promise<Record<string, unknown>> {
  const ring = new KeyRing([[1, generateAdk()]]);
  const [sessionId, handoffId] = [newId(), newId()];
  const context = checkpointContext(settings.accountId ?? '', sessionId, handoffId);
  const transcript = Array.from({ length: 2000 }, (_, i) => ({
    id: `e${i}`,
    at: i,
    role: 'assistant' as const,
    agentId: 'main',
    text: `entry ${i}`,
  }));
  const checkpoint: Checkpoint = {
    format: CHECKPOINT_FORMAT,
    sessionId,
    handoffId,
    createdAt: 1,
    sourceDeviceId: settings.deviceId,
    sourceDeviceName: 'probe',
    meta: { title: 'probe', provider: 'claude-code', prompt: 'probe' },
    repos: [],
    providerResume: {
      provider: 'claude-code',
      format: 'probe',
      sessionId: null,
      payload: {},
      files: [{ name: 'transcript', path, size: settings.mib * MiB }],
    },
    packets: [],
    agents: [],
    transcript: transcriptOf(transcript),
  };
  const sealed = await sealCheckpointToFile(startSeal(ring, context), checkpoint, join(settings.dir, 'probe-sealed'));
  const put = await client.putBlobFile(sealed);
  if (!put.ok) throw new Error(`upload failed: ${put.code}`);
  await rm(join(settings.dir, 'probe-sealed'), { force: true });
  const handoff = { id: handoffId, sessionId, checkpoint: { digest: sealed.sha256, size: sealed.size } } as Handoff;
  const received = await receiveCheckpoint(
    { backend: backendPort(client), seal: { startCheckpointOpen: (_s, _h, size) => startOpen(ring, context, size) } },
    handoff,
    join(settings.dir, 'probe-staging'),
  );
  const peakMiB = memoryOf(process.pid).peakMiB;
  if (!received.ok) throw new Error(`receive failed: ${received.code} ${received.message}`);
  const staged = createHash('sha256');
  await forEachChunk(received.value.checkpoint.providerResume!.files![0]!.path, (chunk) => void staged.update(chunk));
  return { peakMiB, sealedBytes: sealed.size, stagedSha256: staged.digest('hex'), entries: received.value.checkpoint.transcript.count };
}
