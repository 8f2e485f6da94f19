import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineTransport } from './stdio-transport.ts';

/** A transport over in-memory streams, with everything it wrote and received. */
async function open(limit = 1024) {
  const input = new PassThrough();
  const output = new PassThrough();
  const logged: string[] = [];
  const transport = new LineTransport(input, output, limit, (line) => logged.push(line));
  const received: unknown[] = [];
  transport.onmessage = (message) => received.push(message);
  let closed = false;
  transport.onclose = () => (closed = true);
  await transport.start();
  const written = () =>
    output
      .read()
      ?.toString()
      .split('\n')
      .filter(Boolean)
      .map((l: string) => JSON.parse(l) as unknown) ?? [];
  return { input, transport, received, logged, written, closed: () => closed };
}

const request = (id: number, extra = '') => `{"method":"ping","params":{"pad":"${extra}"},"jsonrpc":"2.0","id":${id}}\n`;

describe('the MCP line transport', () => {
  it('reads messages split across chunks and several in one chunk', async () => {
    const t = await open();
    const two = request(1) + request(2);
    t.input.write(two.slice(0, 10));
    t.input.write(two.slice(10));
    expect(t.received).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: '' } },
      { jsonrpc: '2.0', id: 2, method: 'ping', params: { pad: '' } },
    ]);
  });

  it('answers a line over the limit with an error naming it, keeping no more than its end, and serves on', async () => {
    const t = await open(1024);
    const big = request(7, 'x'.repeat(5000));
    for (let i = 0; i < big.length; i += 100) t.input.write(big.slice(i, i + 100));
    t.input.write(request(8));
    expect(t.written()).toEqual([{ jsonrpc: '2.0', id: 7, error: { code: -32600, message: expect.stringContaining('1024-byte limit') } }]);
    expect(t.received).toEqual([{ jsonrpc: '2.0', id: 8, method: 'ping', params: { pad: '' } }]);
    expect(t.logged).toHaveLength(1);
    expect(t.closed()).toBe(false);
  });

  it('answers a line that is not JSON, or not JSON-RPC, with the matching JSON-RPC error', async () => {
    const t = await open();
    t.input.write('this is not json\n{"jsonrpc":"2.0","id":"a","method":5}\n[1,2]\n');
    expect(t.written()).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error/) } },
      { jsonrpc: '2.0', id: 'a', error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) } },
    ]);
    expect(t.received).toEqual([]);
  });

  it('says why when the input ends inside a line over the limit, and closes', async () => {
    const t = await open(1024);
    t.input.end('{"method":"ping","params":{"pad":"' + 'x'.repeat(4000));
    await new Promise((done) => setImmediate(done));
    expect(t.closed()).toBe(true);
    expect(t.transport.failure).toBe('the input ended inside a message over the 1024-byte limit');
  });

  it('closes without a failure when the input ends after whole messages', async () => {
    const t = await open();
    t.input.end(request(1));
    await new Promise((done) => setImmediate(done));
    expect(t.received).toHaveLength(1);
    expect(t.closed()).toBe(true);
    expect(t.transport.failure).toBeUndefined();
  });
});
