/**
 * Folds Claude Code messages (from the live stream-json output or from a transcript file — both
 * carry Anthropic message content blocks) into the agent map and transcript. A `Task` (or `Agent`)
 * tool_use is a subagent under the agent that called it, finished when its tool_result arrives.
 */
import type { SessionState } from '../session-state.ts';

export const MAIN_AGENT = 'main';
const SUBAGENT_TOOLS = new Set(['Task', 'Agent']);
const TEXT_MAX = 4000;

type Block = Record<string, unknown>;

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function clip(text: string, max = TEXT_MAX): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The text of a tool_result's content (a string or a list of text blocks). */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (part && typeof part === 'object' ? (str((part as Block).text) ?? '') : '')).join('\n');
}

/** A short description of a tool call's input, e.g. `Read /a/b.ts` or `Bash ls -la`. */
function describeToolUse(name: string, input: unknown): string {
  if (!input || typeof input !== 'object') return name;
  const fields = input as Record<string, unknown>;
  const detail =
    str(fields.command) ?? str(fields.file_path) ?? str(fields.path) ?? str(fields.pattern) ?? str(fields.url) ?? str(fields.description);
  return detail === null ? name : `${name} ${clip(detail, 300)}`;
}

export interface FoldOptions {
  /** Include the user's own text blocks (true for transcript files; the live stream does not echo input). */
  userText: boolean;
}

export class MessageFolder {
  constructor(
    private readonly state: SessionState,
    private readonly options: FoldOptions,
  ) {}

  /** Folds one message; `parentToolUseId` names the subagent that wrote it, if any. */
  fold(role: 'user' | 'assistant', content: unknown, parentToolUseId: string | null): void {
    const author = parentToolUseId !== null && this.state.agent(parentToolUseId) ? parentToolUseId : MAIN_AGENT;
    if (typeof content === 'string') {
      this.text(role, author, content);
      return;
    }
    if (!Array.isArray(content)) return;
    for (const block of content) {
      if (!block || typeof block !== 'object') continue;
      const b = block as Block;
      if (b.type === 'text') this.text(role, author, str(b.text) ?? '');
      else if (b.type === 'tool_use') this.toolUse(author, b);
      else if (b.type === 'tool_result') this.toolResult(author, b);
    }
  }

  private text(role: 'user' | 'assistant', author: string, text: string): void {
    if (text.trim() === '' || (role === 'user' && !this.options.userText)) return;
    this.state.addEntry(role, author, clip(text));
  }

  private toolUse(author: string, block: Block): void {
    const name = str(block.name) ?? 'tool';
    const id = str(block.id);
    if (SUBAGENT_TOOLS.has(name) && id !== null) {
      const input = (block.input && typeof block.input === 'object' ? block.input : {}) as Record<string, unknown>;
      const description = str(input.description) ?? 'Subagent';
      // Past the turn's caps no entry is kept, and no agent is added either.
      if (this.state.addEntry('tool', author, `Started subagent "${description}"`) === null) return;
      this.state.upsertAgent({ id, parentId: author, name: description, role: str(input.subagent_type) ?? 'subagent', status: 'running' });
      return;
    }
    this.state.addEntry('tool', author, describeToolUse(name, block.input));
  }

  private toolResult(author: string, block: Block): void {
    const id = str(block.tool_use_id);
    const text = resultText(block.content).trim();
    const failed = block.is_error === true;
    const subagent = id !== null ? this.state.agent(id) : undefined;
    if (subagent && subagent.parentId !== null) {
      this.state.setStatus(subagent.id, failed ? 'failed' : 'done');
      this.state.addEntry('tool', subagent.id, clip(`Subagent "${subagent.name}" ${failed ? 'failed' : 'finished'}: ${text}`));
      return;
    }
    if (text !== '') this.state.addEntry('tool', author, clip(`${failed ? 'Tool error' : 'Result'}: ${text}`, 1000));
  }
}
