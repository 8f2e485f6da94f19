/**
 * The push stream: server-sent events, one JSON PushMessage per event, keep-alive comments between.
 * Every event after the hello carries the stream's place in the push log as its SSE id, keep-alives
 * too (stream-cursor.ts). A device that reconnects with `Last-Event-ID` (to this instance or another
 * on the same database) is first replayed, in order and once, the messages of its account it missed,
 * and told so by the `baton-replay: replayed` header (PUSH_REPLAY_HEADER); when the cursor is not usable (none, another
 * log's, older than the log keeps) the header says `full` and the device re-reads its state.
 */
import type { ServerResponse } from 'node:http';
import type { Device } from '../../shared/api/devices.ts';
import { PUSH_REPLAY_HEADER, type PushMessage } from '../../shared/api/push.ts';
import type { PushHub } from '../push/push-hub.ts';
import type { LoggedMessage } from '../push/push-log.ts';
import { parseStreamPosition, StreamCursor } from '../push/stream-cursor.ts';

export interface StreamRequest {
  hub: PushHub;
  device: Device;
  now: number;
  heartbeatMs: number;
  maxPerDevice: number;
  /** The request's `Last-Event-ID`, if any. */
  lastEventId: string | string[] | undefined;
}

/**
 * Serves one device's stream until the client leaves, the device is revoked, the hub closes, or the
 * device opens more than `maxPerDevice` streams (its oldest is closed first).
 */
export async function openStream(request: StreamRequest, res: ServerResponse): Promise<void> {
  const { hub, device } = request;
  const log = hub.log;
  const resume = log ? parseStreamPosition(request.lastEventId) : undefined;
  // Messages delivered while the replay is read wait here; every one taken later is above this floor.
  const startFloor = log?.floor() ?? 0;
  const waiting: [string, number | undefined][] = [];
  let cursor: StreamCursor | undefined;
  let live = false;
  let closed = false;

  const write = (text: string) => {
    if (!res.destroyed && !res.writableEnded) res.write(text);
  };
  const idLine = () => {
    if (!log || !cursor) return '';
    // Once live, everything the instance has taken has reached this stream: its floor is the stream's.
    if (live) cursor.raise(log.floor());
    return `id: ${cursor.format(log.logId)}\n`;
  };
  const emit = (json: string, position: number | undefined) => {
    if (position === undefined || !cursor) return write(`data: ${json}\n\n`);
    if (cursor.admit(position)) write(`${idLine()}data: ${json}\n\n`);
  };
  const send = (_message: PushMessage, json: string, position?: number) => {
    if (live) emit(json, position);
    else waiting.push([json, position]);
  };
  const timer = setInterval(() => live && write(`${idLine()}: keep-alive\n\n`), request.heartbeatMs);
  timer.unref();
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(timer);
    unsubscribe();
    if (!res.writableEnded) res.end();
  };
  const unsubscribe = hub.subscribe(device.accountId, { deviceId: device.id, send, close }, request.maxPerDevice);
  res.on('close', close);
  res.on('error', close);

  let replay: LoggedMessage[] | 'too_old' = 'too_old';
  if (log && resume && resume.logId === log.logId) replay = await log.since(device.accountId, resume.floor).catch(() => 'too_old' as const);
  if (closed) return;
  if (log) cursor = replay !== 'too_old' && resume ? new StreamCursor(resume.floor, resume.seen) : new StreamCursor(startFloor);
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    [PUSH_REPLAY_HEADER]: replay === 'too_old' ? 'full' : 'replayed',
  });
  res.socket?.setNoDelay(true);
  write('retry: 1000\n\n');
  write(
    `${cursor && log ? `id: ${cursor.format(log.logId)}\n` : ''}data: ${JSON.stringify({ type: 'hello', deviceId: device.id, serverTime: request.now })}\n\n`,
  );
  if (replay !== 'too_old') for (const { id, json } of replay) emit(json, id);
  for (const [json, position] of waiting.splice(0)) emit(json, position);
  live = true;
}
