/**
 * bench:push — how soon a device's UI hears of a handoff transition the backend committed: the
 * device API event on each device's bridge (backend → push stream → device runtime → WebSocket), for
 * a demo-agent session moved back and forth between two real device processes. The baseline, for the
 * very same transitions in the same run: the backend's own push stream read directly by a subscriber
 * in this process (backend → SSE, nothing in between). Latency is the receipt time minus the
 * backend's commit time of that state (one clock: everything runs on this machine).
 * Prints a table and ends with one JSON line.
 */
import type { PushMessage } from '../shared/api/push.ts';
import type { DeviceApiEvents } from '../shared/device-api.ts';
import { loadProfile } from '../electron/enrollment/profile.ts';
import { startDemoSession, startTwoDevices, waitEligible, deviceId, waitSession, type DeviceHandle } from '../dev-env/two-devices.ts';
import { createBackendClient } from '../electron/sync/backend-client.ts';
import { openPushStream } from '../electron/sync/push-stream.ts';
import { median } from './median.ts';

const MOVES = Number(process.env.BENCH_RUNS ?? 8);

/** Latency of the newest history entry of `handoff`, keyed by handoff and state (first receipt only). */
function recorder() {
  const seen = new Map<string, number>();
  return {
    seen,
    record(handoff: { id: string; history: { state: string; at: number }[] }) {
      const now = Date.now();
      const last = handoff.history.at(-1);
      const key = last && `${handoff.id} ${last.state}`;
      if (key && !seen.has(key)) seen.set(key, now - last.at);
    },
  };
}

async function move(source: DeviceHandle, target: DeviceHandle, sessionId: string): Promise<void> {
  await waitEligible(source, sessionId, target.name);
  const started = await source.client.call('startMove', { sessionId, targetDeviceId: await deviceId(target) });
  if (!started.ok) throw new Error(`move refused: ${JSON.stringify(started)}`);
  await waitSession(
    target,
    sessionId,
    'the move to complete',
    (detail) => detail.isOwner && detail.activeHandoff === null && detail.inputBlock === null,
  );
}

async function main(): Promise<void> {
  const world = await startTwoDevices({ prefix: 'baton-bench-push-', env: { BATON_DEMO_TURN_MS: '20' }, shipped: true });
  const raw = recorder();
  const bridges = [recorder(), recorder()];
  let closeRaw = () => {};
  try {
    world.sandbox.commitFile(world.repo, 'src/parser.ts', 'export const parse = (s: string) => s.split(",");\n', 'Add the parser');
    world.sandbox.push(world.repo);
    const session = await startDemoSession(world.laptop, world.repo);
    // Warm-up: the first move clones the repository on the desktop; it is not measured.
    await move(world.laptop, world.desktop, session.id);

    const profile = loadProfile(world.laptop.profile);
    if (!profile.ok) throw new Error(profile.message);
    const client = createBackendClient({ baseUrl: world.backendUrl, signer: profile.value.identity });
    const opened = new Promise<void>((resolve) => {
      closeRaw = openPushStream(
        client,
        (message: PushMessage) => {
          if (message.type === 'handoff') raw.record(message.handoff);
        },
        { onOpen: () => resolve() },
      );
    });
    await opened;
    const offs = [world.laptop, world.desktop].map((device, i) =>
      device.client.on('handoffChanged', (h: DeviceApiEvents['handoffChanged']) => bridges[i]!.record(h)),
    );

    let [source, target] = [world.desktop, world.laptop];
    for (let run = 0; run < MOVES; run++) {
      await move(source, target, session.id);
      [source, target] = [target, source];
    }
    offs.forEach((off) => off());

    // Only transitions every party saw count, so both figures cover the same set.
    const keys = [...raw.seen.keys()].filter((key) => bridges.every((b) => b.seen.has(key)));
    const rawMs = keys.map((key) => raw.seen.get(key)!);
    const oursMs = keys.flatMap((key) => bridges.map((b) => b.seen.get(key)!));
    const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))]!;
    const oursMedian = median(oursMs);
    const rawMedian = Math.max(median(rawMs), 1);
    const rows: [string, string][] = [
      ['device UI event after a transition (median, both devices)', `${oursMedian.toFixed(1)} ms`],
      ['  90th percentile / max', `${p90(oursMs).toFixed(1)} / ${Math.max(...oursMs).toFixed(1)} ms`],
      ['raw backend push to a direct subscriber (median)', `${median(rawMs).toFixed(1)} ms`],
      ['  90th percentile / max', `${p90(rawMs).toFixed(1)} / ${Math.max(...rawMs).toFixed(1)} ms`],
      ['ratio (ours / raw push, raw floored at 1 ms)', (oursMedian / rawMedian).toFixed(2)],
      ['transitions', `${keys.length} over ${MOVES} moves`],
    ];
    const width = Math.max(...rows.map(([k]) => k.length));
    console.log('bench:push — backend transition → device UI event, two device processes');
    for (const [key, value] of rows) console.log(`  ${key.padEnd(width)}  ${value}`);
    console.log(
      JSON.stringify({
        bench: 'push',
        ratio: Number((oursMedian / rawMedian).toFixed(3)),
        ours_ms: oursMedian,
        ours_p90_ms: p90(oursMs),
        ours_max_ms: Math.max(...oursMs),
        baseline_ms: median(rawMs),
        baseline_p90_ms: p90(rawMs),
        transitions: keys.length,
        moves: MOVES,
      }),
    );
  } finally {
    closeRaw();
    await world.cleanup();
  }
}

await main();
