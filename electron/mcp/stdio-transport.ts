/**
 * The stdio transport of `baton mcp`: one JSON-RPC message a line on stdin and stdout, as the
 * SDK's StdioServerTransport, but answering a broken or hostile client instead of hanging up on it.
 * - A line over the limit (the SDK's own, 10 MiB) is never held: its bytes are dropped as they
 *   come, only its last few hundred kept, and when its newline arrives the client gets a JSON-RPC
 *   error naming the limit — with the request's id when the line ends with it (as the SDK's
 *   clients write it), else id null. The server goes on serving.
 * - A line that is not JSON gets a Parse error (-32700); JSON that is not a JSON-RPC message an
 *   Invalid Request (-32600), with its id when it has one.
 * - Input that ends inside an over-limit line cannot be answered: `failure` then says why, and
 *   `baton mcp` exits non-zero with that line on stderr.
 */
import type { Readable, Writable } from 'node:stream';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The longest line read as a message, in bytes (the SDK's own cap). */
export const MAX_MESSAGE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;
/** How much of an over-limit line's end is kept, to find the request id it ends with. */
const TAIL_BYTES = 256;
const NEWLINE = 0x0a;

type Id = string | number | null;

/** The id a JSON-RPC request that ends a line holds as its last member (`…,"id":7}`), else null. */
function trailingId(tail: string): Id {
  const match = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/.exec(tail);
  if (!match) return null;
  const value: unknown = JSON.parse(match[1]!);
  return typeof value === 'string' || typeof value === 'number' ? value : null;
}

function idOf(value: unknown): Id {
  const id = typeof value === 'object' && value !== null && 'id' in value ? value.id : null;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** Newline-delimited JSON-RPC over a readable and a writable stream, with a cap on each message. */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Why the input could not be served to its end (set before onclose); undefined when it could. */
  failure: string | undefined;
  /** Waited for once the input ends, before the transport closes (the calls read last are answered first). */
  beforeClose?: () => Promise<void>;
  private parts: Buffer[] = [];
  private size = 0;
  /** The end of the over-limit line being dropped; null when the line is being kept. */
  private dropped: Buffer | null = null;
  private closed = false;

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
    private readonly limit = MAX_MESSAGE_BYTES,
    /** Told one line for each message refused (stderr, for the client's logs). */
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.once('end', this.onEnd);
    this.input.on('error', this.onInputError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.write(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onInputError);
    this.input.pause();
    this.parts = [];
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer): void => {
    let start = 0;
    while (start < chunk.length && !this.closed) {
      const newline = chunk.indexOf(NEWLINE, start);
      this.take(chunk.subarray(start, newline < 0 ? chunk.length : newline));
      if (newline < 0) return;
      this.endLine();
      start = newline + 1;
    }
  };

  private readonly onEnd = (): void => {
    if (this.dropped) this.failure = `the input ended inside a message over the ${this.limit}-byte limit`;
    else if (this.size > 0) this.endLine();
    void (this.beforeClose?.() ?? Promise.resolve()).then(() => this.close());
  };

  private readonly onInputError = (error: Error): void => {
    this.failure = `reading stdin failed: ${error.message}`;
    void this.close();
  };

  /** Adds a piece of the current line: kept while the line is within the limit, else only its end. */
  private take(piece: Buffer): void {
    if (this.dropped === null && this.size + piece.length <= this.limit) {
      this.parts.push(piece);
      this.size += piece.length;
      return;
    }
    const before = this.dropped ? [this.dropped] : this.parts.slice(-TAIL_BYTES);
    const kept = piece.length >= TAIL_BYTES ? piece : Buffer.concat([...before, piece]);
    this.dropped = kept.subarray(Math.max(0, kept.length - TAIL_BYTES));
    this.parts = [];
    this.size = 0;
  }

  private endLine(): void {
    if (this.dropped) {
      const id = trailingId(this.dropped.toString('utf8'));
      this.dropped = null;
      this.refuse(ErrorCode.InvalidRequest, `Message over the ${this.limit}-byte limit (the MCP SDK's); it was not read.`, id);
      return;
    }
    const line = Buffer.concat(this.parts).toString('utf8').replace(/\r$/, '');
    this.parts = [];
    this.size = 0;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      this.refuse(ErrorCode.ParseError, `Parse error: ${(error as Error).message}`, null);
      return;
    }
    const message = JSONRPCMessageSchema.safeParse(value);
    if (!message.success) this.refuse(ErrorCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message.', idOf(value));
    else this.onmessage?.(message.data);
  }

  private refuse(code: number, message: string, id: Id): void {
    this.log(`baton mcp: refused a message: ${message}`);
    this.write({ jsonrpc: '2.0', id, error: { code, message } }).catch((error: Error) => this.onerror?.(error));
  }

  private write(message: object): Promise<void> {
    return new Promise((done) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) done();
      else this.output.once('drain', done);
    });
  }
}
