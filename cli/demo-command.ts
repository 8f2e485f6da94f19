/**
 * `baton demo`: everything needed to try Move on one machine — a backend, a sample repository with
 * a bare origin, two devices ("laptop" creates the account, "desktop" joins by invite) on separate
 * profiles and workspace roots, and a demo-agent session on the laptop (composed in demo-world.ts).
 * Prints the addresses, then what to do with them; SIGTERM (or Ctrl-C) stops everything and removes the temporary folder.
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
and then the steps to try it: open both addresses, pick the session on the laptop and click Move.
Everything lives in a temporary
folder that is removed when the demo stops (SIGTERM or Ctrl-C).

  --skip-build   do not build the renderer when it is missing (the addresses then serve the API only)`;

/** What to do once the demo runs, in order. */
function demoSteps(title: string): string[] {
  return [
    'Next:',
    '  1. Open the laptop address in one browser window and the desktop address in another.',
    `  2. On the laptop, open "${title}" and click Move; pick desktop and start the move.`,
    '  3. Watch it move: the desktop now runs the session; type to it there.',
  ];
}

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
        // The addresses first, then what to do with them: the last thing on the screen is the next step.
        console.log(
          [
            `backend: ${world.backendUrl}`,
            `laptop: ${world.laptopUrl}`,
            `desktop: ${world.desktopUrl}`,
            '',
            ...demoSteps(world.session.title),
            '',
            `The sample repository is ${world.repo} (origin ${world.origin}). Stop the demo with Ctrl-C.`,
          ].join('\n'),
        );
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
