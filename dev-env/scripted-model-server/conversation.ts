/**
 * The conversation a model request carries, read the same way from every wire format: Anthropic
 * Messages (Claude Code), OpenAI Responses (Codex) and OpenAI Chat Completions (GitHub Copilot CLI,
 * Qwen Code). The rule table (rules.ts) answers from it.
 */

export type Json = Record<string, unknown>;

export interface Conversation {
  /** Real user texts, oldest first (harness-injected context blocks are left out). */
  userTexts: string[];
  /** Set when the newest input is a tool result rather than user text. */
  toolResult: { text: string; isError: boolean } | null;
  /** How many tool results came after the newest user text (the calls the model made in this turn so far). */
  toolRounds: number;
  /** Names of the tools offered in the request (namespaced ones as `namespace.name`). */
  tools: string[];
  /** The agent's working directory, when the request mentions it. */
  cwd: string | null;
}

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** How Qwen Code opens the context message it puts first in every conversation. */
const QWEN_CONTEXT = 'This is the Qwen Code. We are setting up the context';

/**
 * Text the CLI injects into user turns (Claude's `<system-reminder>`, Codex's `<environment_context>`,
 * `<user_instructions>`, AGENTS.md …) rather than something the user typed.
 */
function isInjected(text: string): boolean {
  const trimmed = text.trimStart();
  return /^<[a-z_-]+[\s>]/i.test(trimmed) || trimmed.startsWith('# AGENTS.md') || trimmed.startsWith(QWEN_CONTEXT);
}

/** A user text without the tagged blocks a CLI puts ahead of it (Copilot's `<current_datetime>…</current_datetime>`). */
function withoutLeadingTags(text: string): string {
  let rest = text.trimStart();
  for (let block = /^<([a-z_-]+)>[\s\S]*?<\/\1>\s*/i.exec(rest); block !== null; block = /^<([a-z_-]+)>[\s\S]*?<\/\1>\s*/i.exec(rest)) {
    rest = rest.slice(block[0].length);
  }
  return rest;
}

/** Text of a tool result's content: a string, or a list of `{type: "text", text}` parts. */
function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return isObject(content) ? partsText(content.content ?? content.output) : '';
  return content.map((part) => (isObject(part) ? str(part.text) : str(part))).join('\n');
}

/**
 * The working directory named in a request: Claude's "Primary working directory: <cwd>" (a moved
 * session adds " (was <old cwd>)"), Codex's `<cwd>` (a moved thread names its new cwd last).
 */
function cwdFrom(value: unknown): string | null {
  const text = JSON.stringify(value) ?? '';
  const claude = /Primary working directory: ([^\\"]+)/.exec(text)?.[1]?.replace(/ \(was .*\)$/, '');
  const codex = [...text.matchAll(/<cwd>([^<]+)<\/cwd>/g)].at(-1)?.[1];
  const copilot = /Current working directory: ([^\\"]+)/.exec(text)?.[1];
  const qwen = /currently working in the directory: ([^\\"]+)/.exec(text)?.[1];
  return (claude ?? codex ?? copilot ?? qwen)?.trim() ?? null;
}

/** Anthropic Messages body → conversation. Only `role: "user"` messages carry user text. */
export function anthropicConversation(body: Json): Conversation {
  const messages = Array.isArray(body.messages) ? body.messages.filter(isObject) : [];
  const userTexts: string[] = [];
  let toolResult: Conversation['toolResult'] = null;
  let toolRounds = 0;
  for (const message of messages) {
    if (message.role !== 'user') continue;
    const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    toolResult = null; // only a tool result in the newest user message counts
    for (const block of Array.isArray(blocks) ? blocks.filter(isObject) : []) {
      const text = str(block.text).trim();
      if (block.type === 'text' && text !== '' && !isInjected(text)) {
        userTexts.push(text);
        toolRounds = 0;
      }
      if (block.type === 'tool_result') {
        toolResult = { text: partsText(block.content), isError: block.is_error === true };
        toolRounds += 1;
      }
    }
  }
  const tools = Array.isArray(body.tools) ? body.tools.filter(isObject).map((tool) => str(tool.name)) : [];
  return { userTexts, toolResult, toolRounds, tools, cwd: cwdFrom(body.system) ?? cwdFrom(body.messages) };
}

/** Tool names of a Responses request; namespaced tools are listed as `namespace.name`. */
function responsesTools(tools: unknown, prefix = ''): string[] {
  if (!Array.isArray(tools)) return [];
  return tools
    .filter(isObject)
    .flatMap((tool) =>
      tool.type === 'namespace' ? responsesTools(tool.tools, `${str(tool.name)}.`) : [`${prefix}${str(tool.name) || str(tool.type)}`],
    );
}

/** How Codex words a failed call in its output ("Process exited with code 1", "patch rejected: …"). */
const CODEX_FAILURE = /Process exited with code [1-9]|^patch rejected|^error|rejected by user|sandbox denied/im;

/** OpenAI Responses body → conversation. `input` is a list of items (or a plain string). */
export function responsesConversation(body: Json): Conversation {
  const items = typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : body.input;
  const userTexts: string[] = [];
  let toolResult: Conversation['toolResult'] = null;
  let toolRounds = 0;
  for (const item of Array.isArray(items) ? items.filter(isObject) : []) {
    if ((item.type === 'message' || item.type === undefined) && item.role === 'user') {
      toolResult = null;
      const parts = typeof item.content === 'string' ? [{ text: item.content }] : item.content;
      for (const part of Array.isArray(parts) ? parts.filter(isObject) : []) {
        const text = str(part.text).trim();
        if (text !== '' && !isInjected(text)) {
          userTexts.push(text);
          toolRounds = 0;
        }
      }
    } else if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
      const text = partsText(item.output);
      const failed = (isObject(item.output) && item.output.success === false) || CODEX_FAILURE.test(text);
      toolResult = { text, isError: failed };
      toolRounds += 1;
    } else if (item.type === 'message' && item.role === 'assistant') {
      toolResult = null; // the model already answered after the last tool result
    }
  }
  return { userTexts, toolResult, toolRounds, tools: responsesTools(body.tools), cwd: cwdFrom(body.input) };
}

/** Tool names of a Chat Completions request (function tools, and custom ones by name). */
function chatTools(tools: unknown): string[] {
  if (!Array.isArray(tools)) return [];
  return tools
    .filter(isObject)
    .map((tool) => str((isObject(tool.function) ? tool.function : isObject(tool.custom) ? tool.custom : tool).name));
}

/** How Copilot and Qwen word a refused or failed call in its result. */
const CHAT_FAILURE =
  /^error:(?! \(none\))|^denied|the user (rejected|denied|did not allow)|was (rejected|denied|cancell?ed) by the user|permission denied|exit code:? [1-9]/im;

/** OpenAI Chat Completions body → conversation: user texts, `tool` results, the tools offered. */
export function chatConversation(body: Json): Conversation {
  const messages = Array.isArray(body.messages) ? body.messages.filter(isObject) : [];
  const userTexts: string[] = [];
  let toolResult: Conversation['toolResult'] = null;
  let toolRounds = 0;
  for (const message of messages) {
    if (message.role === 'user') {
      toolResult = null;
      const text = withoutLeadingTags(partsText(message.content)).trim();
      if (text !== '' && !isInjected(text)) {
        userTexts.push(text);
        toolRounds = 0;
      }
    } else if (message.role === 'tool') {
      const text = partsText(message.content);
      toolResult = { text, isError: CHAT_FAILURE.test(text.trim()) };
      toolRounds += 1;
    } else if (message.role === 'assistant' && !Array.isArray(message.tool_calls)) {
      toolResult = null;
    }
  }
  return { userTexts, toolResult, toolRounds, tools: chatTools(body.tools), cwd: cwdFrom(body.messages) };
}
