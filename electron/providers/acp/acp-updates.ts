/**
 * How an ACP agent's `session/update` notifications read in Baton: the agent's message chunks
 * become one assistant entry per message (a message the agent prefixes with "Info:", "Warning:" or
 * "Error:" is a note of the agent, a system entry), a tool call becomes one tool entry when it has
 * finished (`$ command (exit 0)` and the end of its output, or its title, with "(failed)" or
 * "(declined)"), and everything else (plans, thoughts, usage, the commands and modes on offer) is
 * activity of the main agent only.
 */
import type * as acp from '@agentclientprotocol/sdk';

/** The most of a tool's output a transcript entry keeps (its end). */
const OUTPUT_TAIL = 2000;

export interface AcpTranscriptSink {
  entry(role: 'assistant' | 'tool' | 'system', text: string): void;
  /** The agent did something that makes no entry (a thought, a plan, a tool call starting). */
  activity(): void;
}

/** What Baton keeps of a tool call until it finishes. */
interface ToolCallState {
  title: string;
  kind: acp.ToolKind | null;
  rawInput: unknown;
  content: acp.ToolCallContent[];
  rawOutput: unknown;
}

/** The text of a content block (text only; other blocks by their kind). */
function blockText(block: acp.ContentBlock): string {
  return block.type === 'text' ? block.text : `[${block.type}]`;
}

/** A tool call's input field, when it is a string. */
export function inputField(rawInput: unknown, ...names: string[]): string | undefined {
  if (typeof rawInput !== 'object' || rawInput === null) return undefined;
  for (const name of names) {
    const value = (rawInput as Record<string, unknown>)[name];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/** The end of a tool call's text output, on its own lines, or ''. */
function outputTail(content: readonly acp.ToolCallContent[]): string {
  const text = content
    .flatMap((item) => (item.type === 'content' ? [blockText(item.content)] : []))
    .join('\n')
    .trimEnd();
  if (text === '') return '';
  return `\n${text.length > OUTPUT_TAIL ? `…${text.slice(-OUTPUT_TAIL)}` : text}`;
}

/** Whether a failed call was refused by the person (the agent's words for it differ). */
function declined(call: ToolCallState): boolean {
  const output = JSON.stringify(call.rawOutput ?? '') + JSON.stringify(call.content);
  return /reject|denied|declin|cancell?ed by the user/i.test(output);
}

/** The transcript text of a finished tool call. */
export function toolCallText(call: ToolCallState, status: 'completed' | 'failed'): string {
  const command = call.kind === 'execute' ? inputField(call.rawInput, 'command') : undefined;
  const name = command !== undefined ? `$ ${command}` : call.title;
  const how = status === 'completed' ? '' : declined(call) ? ' (declined)' : ' (failed)';
  return `${name}${how}${outputTail(call.content)}`;
}

/** Folds one session's updates into transcript entries, message by message and call by call. */
export class AcpUpdateFolder {
  private message = '';
  private readonly calls = new Map<string, ToolCallState>();

  constructor(private readonly sink: AcpTranscriptSink) {}

  /** Takes one update of the running prompt. */
  take(update: acp.SessionUpdate): void {
    switch (update.sessionUpdate) {
      case 'agent_message_chunk':
        this.message += blockText(update.content);
        this.sink.activity();
        return;
      case 'tool_call':
        this.flush();
        this.calls.set(update.toolCallId, {
          title: update.title,
          kind: update.kind ?? null,
          rawInput: update.rawInput,
          content: update.content ?? [],
          rawOutput: update.rawOutput,
        });
        this.sink.activity();
        return this.settle(update.toolCallId, update.status);
      case 'tool_call_update': {
        this.flush();
        const call = this.calls.get(update.toolCallId) ?? {
          title: 'A tool call',
          kind: null,
          rawInput: null,
          content: [],
          rawOutput: null,
        };
        this.calls.set(update.toolCallId, {
          title: update.title ?? call.title,
          kind: update.kind ?? call.kind,
          rawInput: update.rawInput ?? call.rawInput,
          content: update.content ?? call.content,
          rawOutput: update.rawOutput ?? call.rawOutput,
        });
        this.sink.activity();
        return this.settle(update.toolCallId, update.status);
      }
      case 'agent_thought_chunk':
      case 'plan':
        this.sink.activity();
        return;
      default:
        return;
    }
  }

  /** Ends the message being streamed, if any (before another kind of update, and at the turn's end). */
  flush(): void {
    const text = this.message.trim();
    this.message = '';
    if (text === '') return;
    this.sink.entry(/^(Info|Warning|Error): /.test(text) ? 'system' : 'assistant', text);
  }

  /** Ends the turn: the message so far is written, and calls that never finished are dropped. */
  end(): void {
    this.flush();
    this.calls.clear();
  }

  private settle(id: string, status: acp.ToolCallStatus | null | undefined): void {
    const call = this.calls.get(id);
    if (call === undefined || (status !== 'completed' && status !== 'failed')) return;
    this.calls.delete(id);
    this.sink.entry('tool', toolCallText(call, status));
  }
}
