/**
 * The harness's device: the very device `baton device` builds (cli/device-command.ts runDevice),
 * with the test seam handed in — a file gate in `--gate-dir` (step-holds.ts) and its turns appended
 * to `--turn-file` (turn-records.ts). No shipped command can build it. two-devices.ts starts it as
 *
 *   node --import tsx dev-env/gated-device.ts --gate-dir DIR --turn-file FILE <baton device flags>
 *
 * so signals (SIGKILL, SIGSTOP, SIGTERM) reach the device itself; it prints what `baton device` prints.
 */
import { runDevice } from '../cli/device-command.ts';
import { fileGate } from './step-holds.ts';
import { turnFile } from './turn-records.ts';

const [gateFlag, gateDir, turnFlag, turns, ...deviceArgs] = process.argv.slice(2);
if (gateFlag !== '--gate-dir' || !gateDir || turnFlag !== '--turn-file' || !turns) {
  console.error('usage: gated-device.ts --gate-dir DIR --turn-file FILE <baton device flags>');
  process.exit(2);
}
try {
  process.exitCode = await runDevice(deviceArgs, {
    gate: fileGate(gateDir),
    observeTurn: turnFile(turns, (message) => console.error(`gated device: ${message}`)),
  });
} catch (error) {
  console.error(`gated device: ${(error as Error).message}`);
  process.exitCode = 1;
}
