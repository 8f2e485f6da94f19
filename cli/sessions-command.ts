/**
 * `baton sessions`: this machine's Claude Code, Codex, GitHub Copilot CLI and Qwen Code sessions of a
 * workspace (what its CLIs keep in their own files), and adopting one into Baton through the running
 * device, so it can be moved like any other.
 */
import { resolve } from 'node:path';
import type { ExistingSession } from '../shared/provider.ts';
import { PermissionLevel, PROVIDER_CAPABILITIES, PROVIDER_IDS } from '../shared/provider.ts';
import { listExistingSessions } from '../electron/providers/existing-sessions.ts';
import { callDevice } from './device-call.ts';
import { parseFlags, required, UsageError, type Command } from './command.ts';

const ADOPTABLE: readonly string[] = PROVIDER_IDS.filter((id) => PROVIDER_CAPABILITIES[id].adoption);
const PROVIDERS = ADOPTABLE.join('|');

const USAGE = `Usage: baton sessions [list] --workspace DIR [--provider ${PROVIDERS}] [--json]
       baton sessions adopt --device URL --workspace DIR --provider ${PROVIDERS} --id SESSION_ID
                            [--permission ask|workspace|full] [--title TEXT]

list    this machine's Claude Code, Codex, Copilot and Qwen Code sessions of DIR, newest first, read
        from the CLIs' own files ($CLAUDE_CONFIG_DIR or ~/.claude, $CODEX_HOME or ~/.codex,
        $COPILOT_HOME or ~/.copilot, $QWEN_HOME or ~/.qwen): one line each with when it was last used, the provider, the session id and its first prompt (--json: a JSON array).
adopt   asks the running device at URL (the ui: address \`baton device\` printed) to make session
        SESSION_ID of DIR a Baton session owned by that device: its agent resumes that very CLI
        session, its history shows in the run view, and it can be moved like any other. Prints the
        new Baton session as JSON; exits 1 when the device refuses (e.g. already adopted).

  --permission LEVEL   what the agent may do without asking: ask (asks before edits and commands),
                       workspace (edit files, ask before commands; the default) or full (never asks)`;

function line(session: ExistingSession): string {
  const when = new Date(session.updatedAt).toISOString().slice(0, 16).replace('T', ' ');
  return `${when}  ${session.provider.padEnd(11)}  ${session.sessionId}  ${session.title}`;
}

async function list(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, { workspace: { type: 'string' }, provider: { type: 'string' }, json: { type: 'boolean' } });
  const workspace = resolve(required(values, 'workspace'));
  const provider = values.provider;
  if (provider !== undefined && !ADOPTABLE.includes(String(provider)))
    throw new UsageError(`--provider must be one of ${ADOPTABLE.join(', ')}, got ${String(provider)}`);
  const found: ExistingSession[] = [];
  for (const id of provider === undefined ? ADOPTABLE : [provider as string]) {
    const listed = await listExistingSessions(id, workspace, process.env);
    if (!listed.ok) {
      console.error(`baton sessions: ${listed.message}`);
      return 1;
    }
    found.push(...listed.value);
  }
  found.sort((a, b) => b.updatedAt - a.updatedAt);
  if (values.json) console.log(JSON.stringify(found, null, 2));
  else if (found.length === 0) console.error(`baton sessions: no agent sessions of ${workspace} on this machine.`);
  else for (const session of found) console.log(line(session));
  return 0;
}

async function adopt(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, {
    device: { type: 'string' },
    workspace: { type: 'string' },
    provider: { type: 'string' },
    id: { type: 'string' },
    permission: { type: 'string' },
    title: { type: 'string' },
  });
  const permission = values.permission === undefined ? undefined : PermissionLevel.safeParse(values.permission);
  if (permission && !permission.success)
    throw new UsageError(`--permission must be ask, workspace or full, got ${String(values.permission)}`);
  const adopted = await callDevice(required(values, 'device'), 'adoptSession', {
    workspace: resolve(required(values, 'workspace')),
    provider: required(values, 'provider'),
    sessionId: required(values, 'id'),
    ...(permission ? { permission: permission.data } : {}),
    ...(typeof values.title === 'string' ? { title: values.title } : {}),
  });
  if (!adopted.ok) {
    console.error(`baton sessions adopt: ${adopted.code}: ${adopted.message}`);
    return 1;
  }
  console.log(JSON.stringify(adopted.value, null, 2));
  return 0;
}

export const command: Command = {
  summary: "list this machine's agent sessions of a workspace (Claude Code, Codex, Copilot, Qwen Code), or adopt one",
  usage: USAGE,
  async run(argv) {
    const [first, ...rest] = argv;
    if (first === 'adopt') return adopt(rest);
    return list(first === 'list' ? rest : argv);
  },
};
