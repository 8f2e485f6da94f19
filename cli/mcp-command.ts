/** `baton mcp`: the stdio MCP server with handoff_create and handoff_resume. Only protocol goes to stdout. */
import { resolve } from 'node:path';
import { CallQueue } from '../electron/mcp/call-queue.ts';
import { createHandoffServer } from '../electron/mcp/handoff-server.ts';
import { LineTransport, MAX_MESSAGE_BYTES } from '../electron/mcp/stdio-transport.ts';
import { openMemoryLink } from '../electron/packet/account-memory.ts';
import { parseFlags, untilStopped, type Command } from './command.ts';

export const command: Command = {
  summary: 'serve the handoff_create / handoff_resume MCP tools over stdio',
  usage: [
    'Usage: baton mcp [--root DIR] [--profile DIR]',
    '',
    'A stdio MCP server (for Claude Code, Codex or any MCP client) with two tools:',
    '  handoff_create   write docs/handoffs/<branch>.md for the current branch',
    '  handoff_resume   read a packet back and report what drifted',
    '',
    'Options:',
    '  --root DIR      the repository the tools work on (default: the current directory)',
    '  --profile DIR   an enrolled Baton device profile for the memory link (default: $BATON_PROFILE;',
    '                  without one, memory is reported as skipped: no_backend)',
    '',
    `A message over ${MAX_MESSAGE_BYTES} bytes, or one that is not JSON-RPC, is answered with a JSON-RPC error;`,
    'input that ends inside an over-limit message makes the server exit 1, saying so on stderr.',
  ].join('\n'),
  async run(argv) {
    const { values } = parseFlags(argv, { root: { type: 'string' }, profile: { type: 'string' } });
    const root = resolve(typeof values.root === 'string' ? values.root : process.cwd());
    const profile = typeof values.profile === 'string' ? values.profile : process.env.BATON_PROFILE || undefined;
    const memory = await openMemoryLink(profile ? resolve(profile) : undefined);
    const queue = new CallQueue();
    const server = createHandoffServer({ root, deps: { memory }, queue });
    const transport = new LineTransport(process.stdin, process.stdout, MAX_MESSAGE_BYTES, (line) => console.error(line));
    const closed = new Promise<void>((done) => {
      transport.onclose = () => done();
    });
    // Calls sent just before stdin closed are answered, in order, before the transport closes.
    transport.beforeClose = () => queue.idle();
    const stopped = untilStopped();
    await server.connect(transport);
    console.error(`baton mcp: serving handoff tools for ${root} on stdio`);
    await Promise.race([closed, stopped]);
    await server.close();
    if (transport.failure === undefined) return 0;
    console.error(`baton mcp: ${transport.failure}`);
    return 1;
  },
};
