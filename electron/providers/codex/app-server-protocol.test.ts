/**
 * The adapter's protocol module against the pinned `codex`'s own description of its app server
 * (`codex app-server generate-json-schema`): every method, field, setting and decision Baton sends
 * or reads exists there, so a new Codex that renames one fails here, not in a user's session.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useCliBench } from '../../../dev-env/agent-clis/cli-bench.ts';
import { CODEX_DECISIONS, CODEX_METHODS, type ClientMethod, type ClientRequests } from './app-server-protocol.ts';
import { CODEX_THREAD_SETTINGS } from './codex-session.ts';

const bench = useCliBench();

type Schema = { oneOf?: Schema[]; enum?: string[]; properties?: Record<string, Schema>; definitions?: Record<string, Schema> };
let dir: string;

async function schema(name: string): Promise<Schema> {
  return JSON.parse(await readFile(join(dir, `${name}.json`), 'utf8')) as Schema;
}

/** The method names a message union (ClientRequest, ServerNotification, …) allows. */
async function methods(union: string): Promise<string[]> {
  return ((await schema(union)).oneOf ?? []).flatMap((variant) => variant.properties?.method?.enum ?? []);
}

/** The plain string values of a definition (its enum, or the enums of its variants). */
function strings(definition: Schema | undefined): string[] {
  return [...(definition?.enum ?? []), ...(definition?.oneOf ?? []).flatMap((v) => v.enum ?? [])];
}

/** The params fields the adapter sends with each request (TypeScript holds them to the protocol module's types). */
const SENT: { [M in ClientMethod]: { params: string; fields: (keyof ClientRequests[M][0] & string)[] } } = {
  initialize: { params: 'InitializeParams', fields: ['clientInfo', 'capabilities'] },
  'thread/start': { params: 'ThreadStartParams', fields: ['cwd', 'approvalPolicy', 'sandbox'] },
  'thread/resume': { params: 'ThreadResumeParams', fields: ['threadId', 'cwd', 'approvalPolicy', 'sandbox', 'excludeTurns'] },
  'thread/fork': { params: 'ThreadForkParams', fields: ['threadId', 'lastTurnId', 'cwd', 'approvalPolicy', 'sandbox', 'excludeTurns'] },
  'turn/start': { params: 'TurnStartParams', fields: ['threadId', 'input'] },
  'turn/steer': { params: 'TurnSteerParams', fields: ['threadId', 'expectedTurnId', 'input'] },
  'turn/interrupt': { params: 'TurnInterruptParams', fields: ['threadId', 'turnId'] },
};

describe("Codex's app-server protocol as the adapter speaks it (the pinned codex's schema)", () => {
  beforeAll(async () => {
    const home = await bench.lab.home('schema');
    dir = join(home.root, 'schema');
    const made = await bench.lab.run('codex', ['app-server', 'generate-json-schema', '--out', dir], { cwd: home.root, env: home.env });
    expect(made.code, made.stderr).toBe(0);
  });

  it('knows every method the adapter sends, hears and answers', async () => {
    expect(await methods('ClientRequest')).toEqual(expect.arrayContaining([...CODEX_METHODS.client]));
    expect(await methods('ClientNotification')).toContain('initialized');
    expect(await methods('ServerNotification')).toEqual(expect.arrayContaining([...CODEX_METHODS.notifications]));
    expect(await methods('ServerRequest')).toEqual(expect.arrayContaining([...CODEX_METHODS.serverRequests]));
  });

  it('takes the fields, approval policies and sandboxes the adapter sends', async () => {
    const definitions = (await schema('ClientRequest')).definitions ?? {};
    for (const { params, fields } of Object.values(SENT)) {
      expect(Object.keys(definitions[params]?.properties ?? {}), params).toEqual(expect.arrayContaining(fields));
    }
    const levels = Object.values(CODEX_THREAD_SETTINGS);
    expect(strings(definitions.AskForApproval)).toEqual(expect.arrayContaining(levels.map((l) => l.approvalPolicy)));
    expect(strings(definitions.SandboxMode)).toEqual(expect.arrayContaining(levels.map((l) => l.sandbox)));
  });

  it('accepts each decision the adapter answers an approval with, for commands and file changes', async () => {
    const command = (await schema('CommandExecutionRequestApprovalResponse')).definitions?.CommandExecutionApprovalDecision;
    const file = (await schema('FileChangeRequestApprovalResponse')).definitions?.FileChangeApprovalDecision;
    expect(strings(command)).toEqual(expect.arrayContaining([...CODEX_DECISIONS]));
    expect(strings(file)).toEqual(expect.arrayContaining([...CODEX_DECISIONS]));
  });
});
