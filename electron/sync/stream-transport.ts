/**
 * Streaming bodies over node:http(s) for blobs of any size (sealed checkpoints): an upload reads its
 * body from a file as the socket takes it, a download hands its body on chunk by chunk as it arrives,
 * each with backpressure, so neither side ever holds the body whole. There is no total time limit: a
 * transfer fails only when no byte moves for `idleTimeoutMs` (a large body on a slow link goes through).
 */
import { open as openFile } from 'node:fs/promises';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { readRange } from '../io/file-chunks.ts';
import { DEFAULT_AGENTS, type AgentPair, type Exchange } from './http-transport.ts';

/** Called with the bytes moved so far. */
export type TransferProgress = (doneBytes: number) => void;

/** Where a downloaded body goes, chunk by chunk; a returned promise pauses the download until it settles. */
export type ChunkSink = (chunk: Buffer) => void | Promise<void>;

export interface UploadInit {
  method: 'PUT' | 'POST';
  headers: Record<string, string>;
  /** The file the body is read from, and how many bytes of it are sent (from its start). */
  file: { path: string; size: number };
  idleTimeoutMs: number;
  onProgress?: TransferProgress;
  /** The agents to go through (default Node's own). */
  agents?: AgentPair;
}

export interface DownloadInit {
  headers: Record<string, string>;
  idleTimeoutMs: number;
  /** The agents to go through (default Node's own). */
  agents?: AgentPair;
}

/** A 2xx answer whose body is still to come: read it with `pump`. */
export interface BodyStream {
  status: number;
  /** The length the server announced, when it did. */
  length: number | null;
  /**
   * Hands the body to `each` chunk by chunk, in order, pausing while a returned promise settles;
   * resolves once the body ended, whole or cut off (see `complete`), rejects with `each`'s error
   * (the body is dropped then).
   */
  read(each: ChunkSink): Promise<void>;
  /** Whether the whole body arrived (asked once `read` resolved). */
  complete(): boolean;
}

/** A download whose answer has begun: a 2xx body to read with `pump`, or any other status with its (small) body read. */
export type Download = (BodyStream & { body?: undefined }) | { status: number; body: Buffer };

function open(
  url: URL,
  method: string,
  init: { headers: Record<string, string>; agents?: AgentPair },
  onResponse: (res: IncomingMessage) => void,
): ClientRequest {
  const secure = url.protocol === 'https:';
  return (secure ? httpsRequest : httpRequest)(
    {
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port,
      path: `${url.pathname}${url.search}`,
      method,
      headers: init.headers,
      agent: (init.agents ?? DEFAULT_AGENTS).request(url),
    },
    onResponse,
  );
}

function readAll(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', reject);
    res.on('close', () => {
      if (!res.complete) reject(new TypeError('fetch failed: the answer was cut off'));
    });
  });
}

/**
 * Sends `init.file`'s first `size` bytes as the body (Content-Length set), chunk by chunk through one
 * reused buffer (each chunk handed to the socket before the next is read), reporting bytes sent, and
 * resolves with the buffered answer. An answer that comes before the body is sent (a refusal from
 * the headers) is the answer; rejects when the server is not reached or goes silent.
 */
export function nodeHttpUpload(input: string, init: UploadInit): Promise<Exchange> {
  const url = new URL(input);
  return new Promise((resolve, reject) => {
    let answered = false;
    let failed: Error | null = null;
    const headers = { ...init.headers, 'content-length': String(init.file.size) };
    const req = open(url, init.method, { headers, ...(init.agents ? { agents: init.agents } : {}) }, (res) => {
      answered = true;
      readAll(res).then((body) => {
        // Answered before the whole body went (a refusal from the headers): this request is over.
        if (!req.writableEnded) req.destroy();
        resolve({ status: res.statusCode ?? 0, body });
      }, reject);
    });
    req.setTimeout(init.idleTimeoutMs, () => req.destroy(new Error(`no progress for ${init.idleTimeoutMs} ms`)));
    req.on('error', (error) => {
      failed = error;
      if (!answered) reject(new TypeError(`fetch failed: ${error.message}`, { cause: error }));
    });
    const sent = (chunk: Buffer) =>
      new Promise<void>((done, stop) => {
        if (answered || failed) return stop(new Error('the request ended'));
        req.write(chunk, (error) => (error ? stop(error) : done()));
      });
    void (async () => {
      const file = await openFile(init.file.path, 'r');
      try {
        let total = 0;
        await readRange(file, 0, init.file.size, async (chunk) => {
          await sent(chunk);
          total += chunk.length;
          init.onProgress?.(total);
        });
        req.end();
      } finally {
        await file.close();
      }
    })().catch((error: Error) => {
      if (!answered && !failed) req.destroy(error);
    });
  });
}

/** Starts a GET and resolves once its answer begins; rejects when the server is not reached or is silent too long. */
export function nodeHttpDownload(input: string, init: DownloadInit): Promise<Download> {
  const url = new URL(input);
  return new Promise((resolve, reject) => {
    const req = open(url, 'GET', init, (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) {
        const length = Number(res.headers['content-length']);
        resolve({
          status,
          length: Number.isFinite(length) ? length : null,
          read: (each) => readBody(res, each),
          complete: () => res.complete,
        });
        return;
      }
      readAll(res).then((body) => resolve({ status, body }), reject);
    });
    req.setTimeout(init.idleTimeoutMs, () => req.destroy(new Error(`no progress for ${init.idleTimeoutMs} ms`)));
    req.on('error', (error) => reject(new TypeError(`fetch failed: ${error.message}`, { cause: error })));
    req.end();
  });
}

/**
 * Reads an answer's body into `each` from its 'data' events (each chunk as the socket gave it; the
 * async iterator would join buffered chunks into new buffers), pausing the socket while `each` works.
 */
function readBody(res: IncomingMessage, each: ChunkSink): Promise<void> {
  return new Promise((resolve, reject) => {
    let failed = false;
    // The chunk being handled: the body is over only once it is done.
    let working: Promise<void> = Promise.resolve();
    res.on('data', (chunk: Buffer) => {
      if (failed) return;
      res.pause();
      working = (async () => each(chunk))().then(
        () => {
          if (!failed) res.resume();
        },
        (error: unknown) => {
          failed = true;
          res.destroy();
          reject(error as Error);
        },
      );
    });
    res.on('error', () => undefined);
    res.on('close', () => void working.then(() => resolve()));
  });
}

/**
 * Reads a download's body into `sink` chunk by chunk (the socket pauses while the sink works),
 * reporting the bytes received; resolves with their count, or rejects when the body is cut off
 * short of its length. A sink's failure is rethrown as it is.
 */
export async function pump(download: BodyStream, sink: ChunkSink, onProgress?: TransferProgress): Promise<number> {
  let received = 0;
  await download.read(async (chunk) => {
    received += chunk.length;
    await sink(chunk);
    onProgress?.(received);
  });
  if (!download.complete() || (download.length !== null && received !== download.length)) {
    throw new TypeError(`fetch failed: the answer was cut off after ${received} bytes`);
  }
  return received;
}
