/**
 * `baton open --profile DIR`: prints the UI link of the headless device of a profile (the port and
 * token it keeps: electron/host/ui-address.ts) after checking that the device answers there, and
 * opens it in a browser where one can be started (an interactive terminal with a desktop opener on
 * PATH). Says in words when the device never ran headless or is not running now.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { loadUiAddress, uiUrl } from '../electron/host/ui-address.ts';
import { CONTENT_SECURITY_POLICY } from '../shared/content-security-policy.ts';
import { parseFlags, required, type Command } from './command.ts';

const USAGE = `Usage: baton open --profile DIR [--print]

Prints the link of the device UI of the profile in DIR, as \`baton device\` printed it when it started:
  ui: http://127.0.0.1:PORT/?token=TOKEN
and opens it in a browser when run in a terminal where one can be started (xdg-open, open or start).
The device must be running (\`baton device --profile DIR …\`); the link stays the same across its restarts.

  --profile DIR   the device profile folder
  --print         only print the link, never open a browser`;

/** The desktop's opener of links on this platform, when it is on PATH. */
function browserOpener(): string[] | null {
  if (process.platform === 'win32') return ['cmd', '/c', 'start', '""'];
  const name = process.platform === 'darwin' ? 'open' : 'xdg-open';
  const found = (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, name)));
  return found ? [name] : null;
}

/**
 * Whether a device host answers at `url` and takes its token: any answer of the host but its
 * token page (a UI not built yet is a 404 from it), told from another server by the host's CSP.
 */
async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { method: 'HEAD', signal: AbortSignal.timeout(3000) });
    return response.status !== 401 && response.status < 500 && response.headers.get('content-security-policy') === CONTENT_SECURITY_POLICY;
  } catch {
    return false;
  }
}

export const command: Command = {
  summary: 'print (and open) the UI link of a headless device',
  usage: USAGE,
  async run(argv) {
    const { values } = parseFlags(argv, { profile: { type: 'string' }, print: { type: 'boolean' } });
    const dir = resolve(required(values, 'profile'));
    const kept = loadUiAddress(dir);
    if (kept === null) {
      console.error(
        `baton open: the device profile in ${dir} has no UI address yet: start the device with \`baton device --profile ${dir} …\`, which prints its link.`,
      );
      return 1;
    }
    const url = uiUrl(kept.port, kept.token);
    if (!(await answers(url))) {
      console.error(
        `baton open: the device of ${dir} does not answer at http://127.0.0.1:${kept.port}: start it with \`baton device --profile ${dir} …\` (its link stays ${url}).`,
      );
      return 1;
    }
    console.log(`ui: ${url}`);
    const opener = values.print || !process.stdout.isTTY ? null : browserOpener();
    if (opener) spawn(opener[0]!, [...opener.slice(1), url], { stdio: 'ignore', detached: true }).unref();
    return 0;
  },
};
