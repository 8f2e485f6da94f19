/** The push stream: server-sent events, one JSON PushMessage per event, keep-alive comments between. */
import type { ServerResponse } from 'node:http';
import type { Device } from '../../shared/api/devices.ts';
import type { PushMessage } from '../../shared/api/push.ts';
import type { PushHub } from '../push/push-hub.ts';

/**
 * Serves one device's stream until the client leaves, the device is revoked, the hub closes, or the
 * device opens more than `maxPerDevice` streams (its oldest is closed first).
 */
export function openStream(
  hub: PushHub,
  device: Device,
  now: number,
  heartbeatMs: number,
  res: ServerResponse,
  maxPerDevice: number,
): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.socket?.setNoDelay(true);
  const write = (text: string) => {
    if (!res.destroyed && !res.writableEnded) res.write(text);
  };
  const send = (message: PushMessage, json = JSON.stringify(message)) => write(`data: ${json}\n\n`);
  const timer = setInterval(() => write(': keep-alive\n\n'), heartbeatMs);
  timer.unref();
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(timer);
    unsubscribe();
    if (!res.writableEnded) res.end();
  };
  const unsubscribe = hub.subscribe(device.accountId, { deviceId: device.id, send, close }, maxPerDevice);
  res.on('close', close);
  res.on('error', close);
  write('retry: 1000\n\n');
  send({ type: 'hello', deviceId: device.id, serverTime: now });
}
