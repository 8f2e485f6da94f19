/**
 * `baton demo`: everything needed to try Move on one machine — a backend, a sample repository with
 * a bare origin, two devices ("laptop" creates the account, "desktop" joins by invite) on separate
 * profiles and workspace roots, and a demo-agent session on the laptop (composed in demo-world.ts).
 * Prints both UI addresses; SIGTERM (or Ctrl-C) stops everything and removes the temporary folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFlags, untilStopped, type Command } from './command.ts';
import { startDemoWorld } from './demo-world.ts';
import { ensureRendererBuilt, RENDERER_DIR } from './project-files.ts';

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
    if (!values['skip-build']) ensureRendererBuilt('baton demo');
    console.error('baton demo: starting the backend and two devices…');
    const root = mkdtempSync(join(tmpdir(), 'baton-demo-'));
    const log = (message: string) => console.error(`${new Date().toISOString().slice(11, 23)} ${message}`);
    try {
      const world = await startDemoWorld({ root, rendererDir: RENDERER_DIR, log });
      try {
        console.error(`baton demo: the laptop owns "${world.session.title}"; open both addresses and Move it.`);
        console.log(`backend: ${world.backendUrl}`);
        console.log(`laptop: ${world.laptopUrl}`);
        console.log(`desktop: ${world.desktopUrl}`);
        console.error(`baton demo: sample repository ${world.repo} (origin ${world.origin}). Stop with Ctrl-C.`);
        await stopped;
      } finally {
        await world.stop();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    return 0;
  },
};
