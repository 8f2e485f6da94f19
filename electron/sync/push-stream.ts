/** The device side of the push stream: parses server-sent events, validates each message, reconnects with backoff. */
import { PushMessage } from '../../shared/api/push.ts';
import { routes } from '../../shared/api/routes.ts';
import type { CodedMessage } from '../../shared/errors.ts';
import type { BackendClient } from './backend-client.ts';

export interface PushStreamHandlers {
  /**
   * Called each time the stream (re)connects. Messages sent while disconnected are not replayed:
   * re-read whatever state you follow here.
   */
  onOpen?: () => void;
  /** Called on a refused connection, a dropped stream or an invalid message; the stream keeps trying unless revoked. */
  onError?: (error: CodedMessage) => void;
}

export interface PushStreamOptions {
  /** First reconnect delay (default 250 ms); doubles up to maxBackoffMs. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
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
  let backoff = initial;
  let closed = false;
  let controller: AbortController | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const report = (code: string, message: string) => handlers.onError?.({ code, message });

  const connectOnce = async (): Promise<'retry' | 'stop'> => {
    controller = new AbortController();
    let response: Response;
    try {
      response = await client.signedFetch('GET', routes.stream.path, {
        signal: controller.signal,
        headers: { accept: 'text/event-stream' },
      });
    } catch (error) {
      if (!closed) report('unreachable', (error as Error).message);
      return 'retry';
    }
    if (!response.ok || !response.body) {
      const body = (await response.json().catch(() => undefined)) as { error?: { code?: string; message?: string } } | undefined;
      const failure = { code: body?.error?.code, message: body?.error?.message };
      report(failure.code ?? 'bad_response', failure.message ?? `HTTP ${response.status}`);
      return failure.code === 'device_revoked' ? 'stop' : 'retry';
    }
    backoff = initial;
    handlers.onOpen?.();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
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
      if (!closed) report('stream_dropped', (error as Error).message);
    }
    return 'retry';
  };

  const loop = async () => {
    while (!closed) {
      const next = await connectOnce();
      if (closed || next === 'stop') return;
      await new Promise<void>((resolve) => (timer = setTimeout(resolve, backoff)));
      backoff = Math.min(max, backoff * 2);
    }
  };
  void loop();

  return () => {
    closed = true;
    if (timer) clearTimeout(timer);
    controller?.abort();
  };
}
