/**
 * The MCP adapter over the packet functions: tools handoff_create and handoff_resume on the
 * official SDK. Handlers only delegate; results go out as structured content plus a one-line summary.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { handoffCreateShape, handoffResumeShape } from '../packet/handoff-args.ts';
import { handoffCreate, type HandoffCreateResult, type HandoffDeps } from '../packet/handoff-create.ts';
import { handoffResume, type HandoffResumeResult } from '../packet/handoff-resume.ts';
import { counted } from '../../shared/plural.ts';
import { CallQueue } from './call-queue.ts';

export interface HandoffServerOptions {
  /** The repository (or a folder inside it) the tools work on. */
  root: string;
  /** Git executor, clock and memory link handed to the packet functions. */
  deps?: HandoffDeps;
  version?: string;
  /** Where tool calls wait their turn (the command waits on it before closing); one of its own by default. */
  queue?: CallQueue;
}

const CREATE_DESCRIPTION = [
  "Write the handoff packet for the repository's current branch at docs/handoffs/<branch with / as ->.md, so another session",
  '(any provider) can pick the work up. Branch, HEAD, merge base and changed files are read from git and recorded as verified;',
  'your prose is recorded verbatim as asserted. Verification rows are stored with result "not run". Each field is capped at',
  '2048 bytes and the packet at 8192: oversize input is refused, never truncated. Re-creating overwrites the branch packet',
  'and keeps, verbatim, any section a person added under another heading.',
].join(' ');

const RESUME_DESCRIPTION = [
  "Read a branch's handoff packet (default: the current branch's) and re-check its facts against the repository.",
  'Returns verified facts, drift warnings (branch_missing, head_moved, files_diverged, packet_stale_days, dirty_tree),',
  'the asserted prose (sections a person added under other headings in asserted.extra_sections, heading → text, in file order)',
  'and memory. Read-only: it never writes, checks out or runs tests — the warnings are a report, not a go signal.',
].join(' ');

/** One line for people reading the transcript. */
export function summarizeCreate(result: HandoffCreateResult): string {
  if (!result.ok) return `handoff_create refused (${result.reason}): ${result.message}`;
  const facts = result.packet.verified;
  return `Wrote ${result.path} for ${facts.branch} at ${facts.head_sha.slice(0, 12)} (${counted(facts.changed_files.length, 'changed file')}; memory ${memoryWord(result.memory)}).`;
}

/** One line for people reading the transcript. */
export function summarizeResume(result: HandoffResumeResult): string {
  if (!result.ok) return `handoff_resume refused (${result.reason}): ${result.message}`;
  const drift =
    result.warnings.length === 0
      ? 'no drift'
      : `${counted(result.warnings.length, 'drift warning')}: ${result.warnings.map((w) => w.code).join(', ')}`;
  return `Resumed ${result.path} (${result.verified.branch}): ${drift}; memory ${memoryWord(result.memory)}.`;
}

function memoryWord(memory: { status: string; reason?: string; count?: number }): string {
  if (memory.status === 'skipped') return `skipped (${memory.reason})`;
  if (memory.status === 'recalled') return `recalled ${memory.count}`;
  return memory.status;
}

function toolResult(structured: HandoffCreateResult | HandoffResumeResult, summary: string): CallToolResult {
  return {
    content: [{ type: 'text', text: summary }],
    structuredContent: structured as unknown as Record<string, unknown>,
    isError: !structured.ok,
  };
}

/** Builds the MCP server with both tools bound to `options.root`; connect it to a transport to serve. */
export function createHandoffServer(options: HandoffServerOptions): McpServer {
  const server = new McpServer({ name: 'baton', version: options.version ?? '0.1.0' });
  const queue = options.queue ?? new CallQueue();
  server.registerTool(
    'handoff_create',
    {
      title: 'Create handoff packet',
      description: CREATE_DESCRIPTION,
      inputSchema: handoffCreateShape,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args) =>
      queue.run(async () => {
        const result = await handoffCreate(options.root, args, options.deps);
        return toolResult(result, summarizeCreate(result));
      }),
  );
  server.registerTool(
    'handoff_resume',
    {
      title: 'Resume from handoff packet',
      description: RESUME_DESCRIPTION,
      inputSchema: handoffResumeShape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      queue.run(async () => {
        const result = await handoffResume(options.root, args, options.deps);
        return toolResult(result, summarizeResume(result));
      }),
  );
  return server;
}
