/**
 * A hostile HTTP client over a raw TCP socket, for tests of what the backend does before and while it
 * reads a request: request heads signed for any declared body, bytes written at any pace, and when
 * the server answered and closed the socket.
 */
import { connect, type Socket } from 'node:net';
import { canonicalRequest, SIGNATURE_HEADERS } from '../shared/request-signing.ts';
import type { RequestSigner } from '../electron/sync/request-signer.ts';

export interface RawConnection {
  socket: Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves once the server sent something that matches `pattern`. */
  answer(pattern?: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with the milliseconds from connecting until the server let go of the socket (it closed, not just half-closed). */
  closed: Promise<number>;
  /** Writes `bytes` now; false when the socket is gone. */
  write(bytes: string | Buffer): boolean;
  /** Writes `bytes` `chunkSize` at a time, one chunk every `everyMs`, until done or the socket closes; resolves to what was written. */
  trickle(bytes: Buffer, chunkSize: number, everyMs: number): Promise<number>;
}

/** Opens a raw connection to the backend at `baseUrl`. */
export function rawConnect(baseUrl: string): Promise<RawConnection> {
  const url = new URL(baseUrl);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    // Half-open allowed, as a hostile client would: the socket closes only when the server really lets go.
    const socket = connect({ port: Number(url.port), host: url.hostname, allowHalfOpen: true }, () => {
      let text = '';
      const waiters: (() => void)[] = [];
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
        waiters.splice(0).forEach((wake) => wake());
      });
      socket.on('error', () => undefined);
      // After the server's FIN, keep writing a byte now and then: a server that let go of the socket
      // answers with a reset (the socket closes), one that only half-closed it keeps reading.
      socket.once('end', () => {
        const probe = setInterval(() => (socket.destroyed ? clearInterval(probe) : socket.write('\r\n')), 50);
      });
      const closed = new Promise<number>((done) => socket.once('close', () => done(Date.now() - started)));
      const alive = () => !socket.destroyed && socket.writable;
      resolve({
        socket,
        received: () => text,
        closed,
        answer: (pattern = /\r\n\r\n/, timeoutMs = 5000) =>
          new Promise((done, fail) => {
            const timer = setTimeout(() => fail(new Error(`no answer matching ${pattern} within ${timeoutMs} ms: ${text}`)), timeoutMs);
            const check = () => {
              if (pattern.test(text)) {
                clearTimeout(timer);
                done(text);
              } else if (socket.destroyed) {
                clearTimeout(timer);
                fail(new Error(`the socket closed without an answer matching ${pattern}: ${text}`));
              } else waiters.push(check);
            };
            socket.once('close', () => waiters.splice(0).forEach((wake) => wake()));
            check();
          }),
        write: (bytes) => alive() && socket.write(bytes),
        async trickle(bytes, chunkSize, everyMs) {
          let sent = 0;
          while (sent < bytes.length && alive()) {
            socket.write(bytes.subarray(sent, sent + chunkSize));
            sent = Math.min(bytes.length, sent + chunkSize);
            if (sent < bytes.length) await new Promise((wake) => setTimeout(wake, everyMs));
          }
          return sent;
        },
      });
    });
    socket.once('error', reject);
  });
}

/**
 * The head of a request signed by `signer` for a body it declares (size and digest), whatever is
 * then sent; `forge` signs with garbage instead.
 */
export function signedHead(
  signer: RequestSigner,
  request: { method: string; path: string; size: number; sha256: string; now?: number; forge?: boolean; host?: string },
): string {
  const timestamp = request.now ?? Date.now();
  const nonce = `raw-${Math.random().toString(36).slice(2)}-${timestamp}`;
  const canonical = canonicalRequest({
    method: request.method,
    pathAndQuery: request.path,
    bodySize: request.size,
    bodySha256: request.sha256,
    timestamp,
    nonce,
    deviceId: signer.deviceId,
  });
  const signature = request.forge ? Buffer.alloc(64, 7) : Buffer.from(signer.sign(Buffer.from(canonical, 'utf8')));
  return [
    `${request.method} ${request.path} HTTP/1.1`,
    `host: ${request.host ?? '127.0.0.1'}`,
    `content-length: ${request.size}`,
    `${SIGNATURE_HEADERS.device}: ${signer.deviceId}`,
    `${SIGNATURE_HEADERS.timestamp}: ${timestamp}`,
    `${SIGNATURE_HEADERS.nonce}: ${nonce}`,
    `${SIGNATURE_HEADERS.signature}: ${signature.toString('base64url')}`,
    `${SIGNATURE_HEADERS.contentSha256}: ${request.sha256}`,
    '',
    '',
  ].join('\r\n');
}
