/** `baton mcp`: the stdio MCP server with handoff_create and handoff_resume. Only protocol goes to stdout. */
import { resolve } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallQueue } from '../electron/mcp/call-queue.ts';
import { createHandoffServer } from '../electron/mcp/handoff-server.ts';
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
  ].join('\n'),
  async run(argv) {
    const { values } = parseFlags(argv, { root: { type: 'string' }, profile: { type: 'string' } });
    const root = resolve(typeof values.root === 'string' ? values.root : process.cwd());
    const profile = typeof values.profile === 'string' ? values.profile : process.env.BATON_PROFILE || undefined;
    const memory = await openMemoryLink(profile ? resolve(profile) : undefined);
    const queue = new CallQueue();
    const server = createHandoffServer({ root, deps: { memory }, queue });
    const transport = new StdioServerTransport();
    const closed = new Promise<void>((done) => {
      transport.onclose = () => done();
      // Calls sent just before stdin closed are answered first, in order.
      process.stdin.once('end', () => void queue.idle().then(done));
    });
    const stopped = untilStopped();
    await server.connect(transport);
    console.error(`baton mcp: serving handoff tools for ${root} on stdio`);
    await Promise.race([closed, stopped]);
    await server.close();
    return 0;
  },
};
