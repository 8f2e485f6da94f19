/**
 * The device side of the push stream: parses server-sent events, validates each message, and
 * reconnects with backoff. With several backend addresses it connects to the client's current one
 * and moves on to the next when an address cannot be reached, is silent past its deadlines or
 * answers 5xx (never on a 4xx); it reconnects at once when the client's addresses are replaced.
 */
import { PushMessage } from '../../shared/api/push.ts';
import { routes } from '../../shared/api/routes.ts';
import type { CodedMessage } from '../../shared/errors.ts';
import type { BackendClient } from './backend-client.ts';
import { isGatewayFailure } from './failover.ts';

export interface PushStreamHandlers {
  /**
   * Called each time the stream (re)connects, to any address (the client's `baseUrl` is then the
   * one it opened at). Messages sent while disconnected are not replayed: re-read whatever state
   * you follow here.
   */
  onOpen?: () => void;
  /** Called on a refused connection, a dropped stream or an invalid message; the stream keeps trying unless revoked. */
  onError?: (error: CodedMessage) => void;
}

export interface PushStreamOptions {
  /** First reconnect delay (default 250 ms); doubles up to maxBackoffMs. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** An address that has not answered the stream request within this is passed over (default 10 s). */
  connectTimeoutMs?: number;
  /** An open stream silent for this long (the backend sends keep-alives) is dropped and reopened (default 45 s). */
  idleTimeoutMs?: number;
}

/** Splits server-sent-event text into the data of each event; keeps the unfinished tail. */
export function parseSseChunk(buffer: string): { events: string[]; rest: string } {
  const events: string[] = [];
  const blocks = buffer.replace(/\r\n?/g, '\n').split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    const data = block
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
    if (data.length > 0) events.push(data.join('\n'));
  }
  return { events, rest };
}

/** Opens the account's push stream; every valid message goes to `onMessage`. Returns the close function. */
export function openPushStream(
  client: BackendClient,
  onMessage: (message: PushMessage) => void,
  handlers: PushStreamHandlers = {},
  options: PushStreamOptions = {},
): () => void {
  const initial = options.initialBackoffMs ?? 250;
  const max = options.maxBackoffMs ?? 10_000;
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 45_000;
  let backoff = initial;
  let closed = false;
  let controller: AbortController | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake: (() => void) | undefined;
  let hurry = false;
  const report = (code: string, message: string) => handlers.onError?.({ code, message });
  // New addresses: drop the current connection and reconnect at once, from the first of them.
  const stopWatching = client.addresses.onReplaced(() => {
    backoff = initial;
    hurry = true;
    controller?.abort();
    wake?.();
  });

  /** One stream request to `url`: the response, or why the address is passed over. */
  const request = async (url: string): Promise<Response | Error> => {
    controller = new AbortController();
    const deadline = setTimeout(() => controller?.abort(new Error(`no answer within ${connectTimeoutMs} ms`)), connectTimeoutMs);
    try {
      return await client.signedFetch('GET', routes.stream.path, {
        signal: controller.signal,
        headers: { accept: 'text/event-stream' },
        at: url,
      });
    } catch (error) {
      return error as Error;
    } finally {
      clearTimeout(deadline);
    }
  };

  /** Reads an open stream until it ends, drops or stays silent past the idle deadline. */
  const read = async (body: ReadableStream<Uint8Array>): Promise<void> => {
    const decoder = new TextDecoder();
    let buffer = '';
    let idle: ReturnType<typeof setTimeout> | undefined;
    let silent = false;
    const arm = () => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        silent = true;
        controller?.abort();
      }, idleTimeoutMs);
    };
    arm();
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        arm();
        const parsed = parseSseChunk(buffer + decoder.decode(chunk, { stream: true }));
        buffer = parsed.rest;
        for (const data of parsed.events) {
          let message: PushMessage;
          try {
            const result = PushMessage.safeParse(JSON.parse(data));
            if (!result.success) throw new Error(result.error.message.slice(0, 200));
            message = result.data;
          } catch (error) {
            report('bad_message', `ignored an invalid push message: ${(error as Error).message}`);
            continue;
          }
          onMessage(message);
        }
      }
      if (!closed) report('stream_ended', 'the push stream ended');
    } catch (error) {
      if (silent) report('stream_silent', `the stream was silent for ${idleTimeoutMs} ms; reopening it`);
      else if (!closed) report('stream_dropped', (error as Error).message);
    } finally {
      clearTimeout(idle);
    }
  };

  /** Tries the addresses in turn from the current one; reads the first stream that opens. */
  const connectOnce = async (): Promise<'retry' | 'stop'> => {
    const tried = client.addresses.order();
    let lastError = 'no attempt made';
    let failedButAnswered: string | null = null;
    for (const url of tried) {
      if (closed) return 'stop';
      const response = await request(url);
      if (response instanceof Error || response.status >= 500) {
        lastError = response instanceof Error ? response.message : `${url} answered HTTP ${response.status}`;
        if (response instanceof Response) {
          if (!isGatewayFailure(response.status)) failedButAnswered = url;
          await response.body?.cancel().catch(() => undefined);
        }
        client.addresses.failed(url);
        continue;
      }
      client.reachability.reached(url);
      if (!response.ok || !response.body) {
        const body = (await response.json().catch(() => undefined)) as { error?: { code?: string; message?: string } } | undefined;
        const failure = { code: body?.error?.code, message: body?.error?.message };
        report(failure.code ?? 'bad_response', failure.message ?? `HTTP ${response.status}`);
        return failure.code === 'device_revoked' ? 'stop' : 'retry';
      }
      client.addresses.answered(url);
      backoff = initial;
      handlers.onOpen?.();
      await read(response.body);
      return 'retry';
    }
    if (closed) return 'stop';
    if (failedButAnswered) client.reachability.reached(failedButAnswered);
    else client.reachability.unreachable(tried, lastError);
    report('unreachable', `no backend address opened the push stream (${tried.join(', ')}): ${lastError}`);
    return 'retry';
  };

  const loop = async () => {
    while (!closed) {
      const next = await connectOnce();
      if (closed || next === 'stop') return;
      if (hurry) {
        hurry = false;
        continue;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, backoff);
      });
      wake = undefined;
      backoff = Math.min(max, backoff * 2);
    }
  };
  void loop();

  return () => {
    closed = true;
    stopWatching();
    if (timer) clearTimeout(timer);
    wake?.();
    controller?.abort();
  };
}
