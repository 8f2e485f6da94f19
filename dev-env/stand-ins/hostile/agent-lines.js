// What the hostile stand-ins share: writing to stdout as fast as the reader takes it, and a line
// with no end. Each stand-in says what it did in the file named by BATON_HOSTILE_LOG.
import { appendFileSync } from 'node:fs';

process.stdout.on('error', () => process.exit(0)); // the reader went away

/** Appends one line to the hostile log, when there is one. */
export function said(text) {
  if (process.env.BATON_HOSTILE_LOG) appendFileSync(process.env.BATON_HOSTILE_LOG, `${text}\n`);
}

/** Writes `text`, waiting while the pipe is full. */
export function write(text) {
  return process.stdout.write(text) ? Promise.resolve() : new Promise((resolve) => process.stdout.once('drain', resolve));
}

/** Writes `head`, then characters forever: a line that never ends. */
export async function endlessLine(head) {
  said('endless line');
  await write(head);
  const chunk = 'x'.repeat(64 * 1024);
  for (;;) await write(chunk);
}

/** Writes `lineOf(i)` for i = 0, 1, 2… forever. */
export async function flood(lineOf) {
  said('flood');
  for (let i = 0; ; i += 1) await write(`${lineOf(i)}\n`);
}

/** Lines of stdin as they come, each parsed as JSON (others skipped). */
export async function* messages() {
  let text = '';
  for await (const chunk of process.stdin) {
    text += chunk;
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n')) {
      const line = text.slice(0, end);
      text = text.slice(end + 1);
      try {
        yield JSON.parse(line);
      } catch {
        // not a message
      }
    }
  }
}
