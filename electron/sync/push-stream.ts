/**
 * The device side of the push stream: parses server-sent events, validates each message, and
 * reconnects with backoff. With several backend addresses it connects to the client's current one
 * and moves on to the next when an address cannot be reached, is silent past its deadlines or
 * answers 5xx (never on a 4xx); it reconnects at once when the client's addresses are replaced.
 * It keeps the last SSE id it was sent (the stream's place in the backend's push log) and hands it
 * back as `Last-Event-ID` when it reconnects, to whatever address: the backend then replays what
 * was missed, or says it could not (the device re-reads its state).
 */
import { PUSH_REPLAY_HEADER, PushMessage } from '../../shared/api/push.ts';
import { routes } from '../../shared/api/routes.ts';
import type { CodedMessage } from '../../shared/errors.ts';
import { networkErrorText } from './network-error-text.ts';
import type { BackendClient } from './backend-client.ts';
import { keyRefusalOf } from './backend-trust.ts';
import { isGatewayFailure } from './failover.ts';

/** How a (re)opened stream caught up. */
export interface StreamOpened {
  /** True when the backend replays every message sent while the stream was down; false: re-read your state. */
  replayed: boolean;
}

export interface PushStreamHandlers {
  /**
   * Called each time the stream (re)connects, to any address (the client's `baseUrl` is then the
   * one it opened at). Unless `replayed`, messages sent while disconnected are not replayed: re-read
   * whatever state you follow here.
   */
  onOpen?: (opened: StreamOpened) => void;
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

/**
 * Splits server-sent-event text into the data of each event; keeps the unfinished tail. `lastId`: the
 * last `id:` field of the complete blocks (an id sets the stream's last event id even in a block
 * without data, as in EventSource).
 */
export function parseSseChunk(buffer: string): { events: string[]; rest: string; lastId?: string } {
  const events: string[] = [];
  let lastId: string | undefined;
  const blocks = buffer.replace(/\r\n?/g, '\n').split('\n\n');
  const rest = blocks.pop() ?? '';
  const value = (line: string, field: string) => line.slice(line.startsWith(`${field}: `) ? field.length + 2 : field.length + 1);
  for (const block of blocks) {
    const lines = block.split('\n');
    for (const line of lines) if (line.startsWith('id:') && !line.includes('\0')) lastId = value(line, 'id');
    const data = lines.filter((line) => line.startsWith('data:')).map((line) => value(line, 'data'));
    if (data.length > 0) events.push(data.join('\n'));
  }
  return lastId === undefined ? { events, rest } : { events, rest, lastId };
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
  /** The last SSE id received: where to resume. */
  let lastEventId: string | undefined;
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
        headers: { accept: 'text/event-stream', ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) },
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
        if (parsed.lastId !== undefined) lastEventId = parsed.lastId;
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
    let refusedKey: string | null = null;
    for (const url of tried) {
      if (closed) return 'stop';
      const response = await request(url);
      if (response instanceof Error) refusedKey = keyRefusalOf(response)?.code ?? refusedKey;
      if (response instanceof Error || response.status >= 500) {
        lastError = response instanceof Error ? networkErrorText(response.message) : `${url} answered HTTP ${response.status}`;
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
      const replayed = response.headers.get(PUSH_REPLAY_HEADER) === 'replayed';
      // Not replayed: the old place means nothing now; the stream's first event brings a new one.
      if (!replayed) lastEventId = undefined;
      handlers.onOpen?.({ replayed });
      await read(response.body);
      return 'retry';
    }
    if (closed) return 'stop';
    if (failedButAnswered) client.reachability.reached(failedButAnswered);
    else client.reachability.unreachable(tried, lastError);
    report(refusedKey ?? 'unreachable', `no backend address opened the push stream (${tried.join(', ')}): ${lastError}`);
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
