/**
 * `baton demo`: everything needed to try Move on one machine — a backend, a sample repository with
 * a bare origin, two devices ("laptop" creates the account, "desktop" joins by invite) on separate
 * profiles and workspace roots, and a demo-agent session on the laptop. Prints both UI addresses;
 * SIGTERM (or Ctrl-C) stops every process and removes the temporary folder.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseFlags, untilStopped, type Command } from './command.ts';
import { rendererDir } from '../electron/runtime/compose.ts';
import { PROJECT_ROOT } from '../electron/runtime/process-harness.ts';
import { startDemoSession, startTwoDevices, waitEligible } from '../electron/runtime/two-devices.ts';

const USAGE = `Usage: baton demo [--skip-build]

Starts a sync backend, a sample git repository with a bare origin, and two headless devices,
"laptop" and "desktop", then starts a demo-agent session on the laptop and prints:
  backend: URL
  laptop: http://127.0.0.1:PORT/?token=TOKEN
  desktop: http://127.0.0.1:PORT/?token=TOKEN
Open both addresses, pick the session on the laptop and click Move. Everything lives in a temporary
folder that is removed when the demo stops (SIGTERM or Ctrl-C).

  --skip-build   do not build the renderer when it is missing (the addresses then serve the API only)`;

export const command: Command = {
  summary: 'run a backend and two devices with a sample repo, to try Move',
  usage: USAGE,
  async run(argv) {
    const { values } = parseFlags(argv, { 'skip-build': { type: 'boolean' } });
    const stopped = untilStopped();
    if (!values['skip-build'] && !existsSync(join(rendererDir(PROJECT_ROOT), 'index.html'))) {
      console.error('baton demo: building the renderer first (npm run build:renderer)…');
      const built = spawnSync('npm', ['run', 'build:renderer'], { cwd: PROJECT_ROOT, stdio: ['ignore', 2, 2] });
      if (built.status !== 0) console.error('baton demo: the renderer did not build, so the addresses serve the device API only.');
    }
    console.error('baton demo: starting the backend and two devices…');
    const world = await startTwoDevices({ prefix: 'baton-demo-', env: { BATON_HEARTBEAT_MS: '2000', BATON_DEMO_TURN_MS: '1500' } });
    try {
      world.sandbox.commitFile(world.repo, 'src/parser.ts', 'export function parse(input: string): string[] {\n  return input.split(",");\n}\n', 'Add the parser');
      world.sandbox.commitFile(world.repo, 'test/parser.test.ts', 'import { parse } from "../src/parser";\n// flaky: fix me\n', 'Add a parser test');
      world.sandbox.push(world.repo);
      const session = await startDemoSession(world.laptop, world.repo, 'Find out why the parser test is flaky');
      await waitEligible(world.laptop, session.id, 'desktop').catch(() => undefined);
      console.error(`baton demo: the laptop owns "${session.title}"; open both addresses and Move it.`);
      console.log(`backend: ${world.backendUrl}`);
      console.log(`laptop: ${world.laptop.process.url}`);
      console.log(`desktop: ${world.desktop.process.url}`);
      console.error(`baton demo: sample repository ${world.repo} (origin ${world.origin}). Stop with Ctrl-C.`);
      await stopped;
    } finally {
      await world.cleanup();
    }
    return 0;
  },
};
