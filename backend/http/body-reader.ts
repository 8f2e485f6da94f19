/**
 * Reading a request body that was declared (size and SHA-256) in signed headers: each chunk is hashed
 * as it arrives and handed to a sink, the digest is compared at the end, and a body that arrives more
 * slowly than the minimum rate is cut off. There is no total time limit: a large body on a slow but
 * steady link goes through. The size needs no check here: Node's parser frames the body by
 * Content-Length, so no more arrives, and less means the client went away. A cut-off body is
 * destroyed with its socket: there is no one left to answer.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { fail, ok, type Result } from '../../shared/errors.ts';
import type { DeclaredBody } from '../auth/signature.ts';

export interface BodyPace {
  /** The least a client must send per second, measured over each window. */
  minBytesPerSecond: number;
  windowMs: number;
}

/** Why a declared body was not received: refused with an answer, or gone (the client left; no answer possible). */
export type BodyCode = 'digest_mismatch' | 'body_too_slow' | 'body_cut_off';

/** Where received chunks go; a returned promise pauses reading until it settles (and does not count against the client's pace). */
export type BodySink = (chunk: Buffer) => void | Promise<void>;

/**
 * Reads the whole declared body into `sink`, hashing it; resolves ok only when every byte arrived at
 * the minimum pace and the bytes hash to the declared digest. Throws only what the sink threw.
 */
export async function readDeclaredBody(
  req: IncomingMessage,
  declared: DeclaredBody,
  pace: BodyPace,
  sink: BodySink,
): Promise<Result<void, BodyCode>> {
  const hash = createHash('sha256');
  let received = 0;
  let atWindowStart = 0;
  let waitedOnSink = false;
  let tooSlow = false;
  let sinkError: unknown;
  const perWindow = (pace.minBytesPerSecond * pace.windowMs) / 1000;
  const timer = setInterval(() => {
    const arrived = received - atWindowStart;
    atWindowStart = received;
    if (waitedOnSink) {
      waitedOnSink = false;
      return;
    }
    if (arrived < perWindow && received < declared.size) {
      tooSlow = true;
      req.destroy();
    }
  }, pace.windowMs);
  timer.unref();
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      received += chunk.length;
      hash.update(chunk);
      const pending = sink(chunk);
      if (pending) {
        waitedOnSink = true;
        await pending.catch((error: unknown) => {
          sinkError = error;
          req.destroy();
        });
      }
    }
  } catch {
    // The stream was destroyed: by the pace check, because the sink failed, or because the client left.
  } finally {
    clearInterval(timer);
  }
  if (sinkError !== undefined) throw sinkError;
  if (tooSlow) {
    return fail('body_too_slow', `the body arrived slower than ${pace.minBytesPerSecond} bytes a second`, {
      minBytesPerSecond: pace.minBytesPerSecond,
    });
  }
  if (!req.complete || received !== declared.size) return fail('body_cut_off', 'the request body was cut off');
  if (hash.digest('hex') !== declared.sha256) return fail('digest_mismatch', 'the body does not match the digest it was signed with');
  return ok(undefined);
}

/** Reads a declared body whole into memory (JSON bodies, already bounded by the size limit from the headers). */
export async function readDeclaredBuffer(req: IncomingMessage, declared: DeclaredBody, pace: BodyPace): Promise<Result<Buffer, BodyCode>> {
  const chunks: Buffer[] = [];
  const read = await readDeclaredBody(req, declared, pace, (chunk) => void chunks.push(chunk));
  return read.ok ? ok(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)) : read;
}
