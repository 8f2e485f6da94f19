/**
 * A child process that moves one large blob through a backend with the device's streaming client
 * (putBlobFile, then getBlobTo into a hash) and reports its own memory around it, so a test can hold
 * the transfer to a bound that a joined buffer would break. Run as
 * `node --import tsx dev-env/blob-transfer-probe.ts` with its settings as JSON in BATON_PROBE.
 * Prints one JSON line: { idleMiB, peakMiB, uploaded, downloadedSha256, progressReports }.
 */
import { createHash, createPrivateKey, randomFillSync } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createBackendClient } from '../electron/sync/backend-client.ts';
import { keyObjectSigner } from '../electron/sync/request-signer.ts';
import { memoryOf, resetPeak } from './process-memory.ts';

interface ProbeSettings {
  backendUrl: string;
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
