/**
 * Claude Code's side of a permission request, over `--permission-prompt-tool stdio`: before a tool
 * use its permission mode does not allow, the CLI writes a `control_request` (`subtype:
 * "can_use_tool"`: the tool's name and input, `permission_suggestions`, `decision_reason`,
 * `tool_use_id`) on stdout and waits for a `control_response` with the same `request_id` on stdin:
 * `{ behavior: "allow", updatedInput }` or `{ behavior: "deny", message }` (the agent reads the
 * message as the tool's error result). `control_cancel_request` withdraws one.
 */
import {
  clipPermissionText,
  type PermissionAnswer,
  type PermissionRequest,
  type PermissionRule,
} from '../../../shared/permission-request.ts';
import { replaceDiff, writeDiff } from '../permissions/file-change-diff.ts';

type Fields = Record<string, unknown>;

/** What a deny says to the agent when the user gave no message. */
export const CLAUDE_DENY_MESSAGE = 'The user denied this tool use.';

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function fields(value: unknown): Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {};
}

/**
 * The rules of Claude's `addRules` allow suggestions that "Allow for this session" can keep: a Bash
 * rule's content is its command (`npm test:*`, Claude's prefix form, keeps `npm test`), a rule
 * without content the whole tool. Other tools' rule contents (a domain, a path pattern) are not
 * kept, so no suggestion widens what the user saw.
 */
export function suggestedRules(suggestions: unknown): PermissionRule[] {
  if (!Array.isArray(suggestions)) return [];
  const rules: PermissionRule[] = [];
  for (const suggestion of suggestions.map(fields)) {
    if (suggestion.type !== 'addRules' || suggestion.behavior !== 'allow' || !Array.isArray(suggestion.rules)) continue;
    for (const rule of suggestion.rules.map(fields)) {
      const tool = str(rule.toolName);
      const content = str(rule.ruleContent);
      if (tool === undefined || tool === '') continue;
      if (content === undefined || content === '') rules.push({ tool });
      else if (tool === 'Bash') rules.push({ tool, commandPrefix: clipPermissionText(content.replace(/:\*$/, '')) });
    }
  }
  return rules;
}

/** The diff of an Edit, MultiEdit or Write call in `workspace`, or undefined for another tool. */
async function changeDiff(tool: string, input: Fields, path: string, workspace: string | null): Promise<string | undefined> {
  if (tool === 'Write') return writeDiff(path, str(input.content) ?? '', workspace);
  if (tool === 'Edit') {
    const edit = { oldText: str(input.old_string) ?? '', newText: str(input.new_string) ?? '', all: input.replace_all === true };
    return replaceDiff(path, [edit], workspace);
  }
  if (tool === 'MultiEdit' && Array.isArray(input.edits)) {
    const edits = input.edits
      .map(fields)
      .map((e) => ({ oldText: str(e.old_string) ?? '', newText: str(e.new_string) ?? '', all: e.replace_all === true }));
    return replaceDiff(path, edits, workspace);
  }
  return undefined;
}

/**
 * The PermissionRequest of a `can_use_tool` control request: the exact command of a Bash call, the
 * file and diff of an edit (the file read only inside `workspace`: file-change-diff.ts), else the
 * input briefly; `agent` is the agent that made the tool call.
 */
export async function permissionRequestOf(
  requestId: string,
  request: Fields,
  agent: string,
  workspace: string | null,
): Promise<PermissionRequest> {
  const tool = str(request.tool_name) ?? 'tool';
  const input = fields(request.input);
  const asked: PermissionRequest = { id: requestId, agent, tool };
  const command = str(input.command);
  const path = str(input.file_path) ?? str(input.notebook_path);
  if (command !== undefined) asked.command = clipPermissionText(command);
  if (path !== undefined) {
    asked.path = clipPermissionText(path);
    const diff = await changeDiff(tool, input, path, workspace);
    if (diff !== undefined) asked.diff = diff;
  }
  if (command === undefined && path === undefined) asked.detail = clipPermissionText(JSON.stringify(input));
  const reason = str(request.decision_reason);
  if (reason !== undefined) asked.reason = clipPermissionText(reason);
  const suggestions = suggestedRules(request.permission_suggestions);
  if (suggestions.length > 0) asked.suggestions = suggestions.slice(0, 10);
  return asked;
}

/** The stdin line that answers control request `requestId` (whose tool input was `input`). */
export function controlResponseLine(requestId: string, input: unknown, answer: PermissionAnswer): string {
  const response =
    answer.decision === 'deny'
      ? { behavior: 'deny', message: answer.message?.trim() || CLAUDE_DENY_MESSAGE }
      : { behavior: 'allow', updatedInput: fields(input) };
  return `${JSON.stringify({ type: 'control_response', response: { subtype: 'success', request_id: requestId, response } })}\n`;
}

/** The stdin line that refuses a control request Baton does not serve (so the CLI never waits on it). */
export function controlErrorLine(requestId: string, message: string): string {
  return `${JSON.stringify({ type: 'control_response', response: { subtype: 'error', request_id: requestId, error: message } })}\n`;
}
