/**
 * The lines an agent's CLI writes on stdout or stderr, read with a cap. Node's readline gathers a
 * line however long it grows: a CLI printing a line with no end took the device to hundreds of MiB
 * and then "Invalid string length". Here no line is gathered past AGENT_LINE_MAX_BYTES (the carry
 * of io/line-reader.ts): a longer one stops the reading at once, and the caller stops the process.
 */
import type { Readable } from 'node:stream';
import { LineSplitter, LineTooLong } from '../io/line-reader.ts';

/** The longest line read from an agent's output: room for a large tool result, none for a line with no end. */
export const AGENT_LINE_MAX_BYTES = 8 * 1024 * 1024;

/** What a process's caller is told when one of its lines passed the cap: a sentence to say after the CLI's name. */
export function overlongLineText(stream: 'stdout' | 'stderr', limit = AGENT_LINE_MAX_BYTES): string {
  const mib = Math.round(limit / (1024 * 1024));
  return `printed a line longer than ${mib} MiB on its ${stream}, so Baton stopped this turn (the device's memory stays bounded); send the message again to go on`;
}

/**
 * Calls `onLine` with each line of `stream` (its newline, and a carriage return before it, taken off),
 * in order; once a line passes `limit` bytes, stops reading (nothing more is delivered) and calls
 * `onTooLong` once (what still comes is drained). Resolves once the stream closes.
 */
export function readLines(
  stream: Readable,
  onLine: (line: string) => void,
  onTooLong: () => void,
  limit = AGENT_LINE_MAX_BYTES,
): Promise<void> {
  let stopped = false;
  const lines = new LineSplitter((bytes) => {
    if (stopped) return;
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    try {
      onLine(bytes.toString('utf8', 0, end));
    } catch {
      // The caller's handler is its own: a line it cannot take does not stop the ones after it.
    }
  }, limit);
  const take = (chunk: Buffer): void => {
    if (stopped) return;
    try {
      lines.take(chunk);
    } catch (error) {
      // Only a line over the limit throws (the handler never does).
      if (!(error instanceof LineTooLong)) throw error;
      stopped = true;
      stream.removeListener('data', take);
      stream.on('data', () => undefined); // what still comes is read and dropped: the process never blocks on a full pipe
      onTooLong();
    }
  };
  stream.on('data', take);
  return new Promise((resolve) => {
    stream.once('close', () => resolve());
    stream.once('end', () => {
      if (!stopped) void lines.end();
    });
  });
}
