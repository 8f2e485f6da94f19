/** What both wire formats share when they answer: server-sent events, chunked text, fresh ids. */
import type { ServerResponse } from 'node:http';
import type { Json } from './conversation.ts';
import type { Reply } from './rules.ts';

export interface Streamer {
  res: ServerResponse;
  /** True once the client has gone away (an interrupted turn); writers stop. */
  closed: () => boolean;
  slowChunkMs: number;
  slowChunks: number;
  /** A fresh id with `prefix`, unique within this server. */
  nextId: (prefix: string) => string;
}

/** Writes one server-sent event. */
export function sse(res: ServerResponse, event: string, data: Json): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** Starts a server-sent event stream. */
export function startEventStream(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The reply text as chunks: a few for a normal reply, many delayed ones for a slow reply (until the client leaves). */
export async function* textChunks(reply: Extract<Reply, { kind: 'text' }>, s: Streamer): AsyncGenerator<string> {
  if (reply.slow !== true) {
    for (const piece of reply.text.match(/[\s\S]{1,16}/g) ?? ['']) yield piece;
    return;
  }
  for (let i = 1; i <= s.slowChunks && !s.closed(); i++) {
    yield `Slow chunk ${i}. `;
    await sleep(s.slowChunkMs);
  }
}

/** A rough token count for usage fields. */
export function usageOf(body: Json): number {
  return Math.max(1, Math.round(JSON.stringify(body).length / 4));
}

/** A JSON error response. */
export function jsonError(res: ServerResponse, status: number, body: Json): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
