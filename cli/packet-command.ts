/** `baton packet create|resume`: the handoff packet functions for people, printing the result JSON. */
import { resolve } from 'node:path';
import { openMemoryLink } from '../electron/packet/account-memory.ts';
import { handoffCreate } from '../electron/packet/handoff-create.ts';
import { handoffResume } from '../electron/packet/handoff-resume.ts';
import { parseFlags, UsageError, type Command } from './command.ts';

const USAGE = [
  'Usage: baton packet create [--root DIR] [--goal TEXT] [--acceptance-criteria TEXT] [--scope-assumptions TEXT]',
  '                           [--current-state TEXT] [--next-action TEXT] [--verification "CLAIM::PROBE"]...',
  '                           [--provider NAME] [--base-ref REF] [--profile DIR]',
  '       baton packet resume [--root DIR] [--slug SLUG] [--profile DIR]',
  '',
  'create writes docs/handoffs/<branch with / as ->.md for the current branch; resume reads it back and',
  'reports drift. Both print the result as JSON and exit 1 when refused.',
  '',
  '  --root DIR          the repository (default: the current directory)',
  '  --verification V    repeatable; "claim::probe", or JSON: {"claim","probe"} or an array of them',
  '                      (the stored result is always "not run")',
  '  --provider NAME     default "unspecified"; --base-ref REF default "origin/main"',
  "  --slug SLUG         the packet to resume (default: the current branch's)",
  '  --profile DIR       an enrolled device profile for the memory link (default: $BATON_PROFILE)',
].join('\n');

const PROSE_FLAGS = {
  goal: 'goal',
  'acceptance-criteria': 'acceptance_criteria',
  'scope-assumptions': 'scope_assumptions',
  'current-state': 'current_state',
  'next-action': 'next_action',
  provider: 'provider',
  'base-ref': 'base_ref',
} as const;

/** Parses the --verification values: "claim::probe" or JSON rows. */
export function parseVerification(values: string[]): Array<{ claim: string; probe: string }> {
  return values.flatMap((value) => {
    if (/^\s*[[{]/.test(value)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        throw new UsageError(`--verification is not valid JSON: ${value}`);
      }
      const rows = Array.isArray(parsed) ? parsed : [parsed];
      return rows.map((row) => {
        const r = row as { claim?: unknown; probe?: unknown };
        if (typeof r?.claim !== 'string' || typeof r.probe !== 'string')
          throw new UsageError('--verification JSON rows need string "claim" and "probe"');
        return { claim: r.claim, probe: r.probe };
      });
    }
    const at = value.indexOf('::');
    if (at < 0) throw new UsageError(`--verification must be "claim::probe" or JSON, got "${value}"`);
    return [{ claim: value.slice(0, at), probe: value.slice(at + 2) }];
  });
}

export const command: Command = {
  summary: 'create or resume a per-branch handoff packet',
  usage: USAGE,
  async run(argv) {
    const [action, ...rest] = argv;
    if (action !== 'create' && action !== 'resume') throw new UsageError('say "create" or "resume"');
    const common = { root: { type: 'string' }, profile: { type: 'string' } } as const;
    const options =
      action === 'create'
        ? {
            ...common,
            ...Object.fromEntries(Object.keys(PROSE_FLAGS).map((f) => [f, { type: 'string' as const }])),
            verification: { type: 'string' as const, multiple: true },
          }
        : { ...common, slug: { type: 'string' as const } };
    const { values } = parseFlags(rest, options);
    const root = resolve(typeof values.root === 'string' ? values.root : process.cwd());
    const profile = typeof values.profile === 'string' ? values.profile : process.env.BATON_PROFILE || undefined;
    const memory = await openMemoryLink(profile ? resolve(profile) : undefined);
    let result: { ok: boolean };
    if (action === 'create') {
      const args: Record<string, unknown> = {};
      for (const [flag, key] of Object.entries(PROSE_FLAGS)) if (typeof values[flag] === 'string') args[key] = values[flag];
      const rows = (values as Record<string, unknown>).verification;
      if (Array.isArray(rows)) args.verification = parseVerification(rows as string[]);
      result = await handoffCreate(root, args, { memory });
    } else {
      result = await handoffResume(root, typeof values.slug === 'string' ? { slug: values.slug } : {}, { memory });
    }
    console.log(JSON.stringify(result, null, 2));
    return result.ok ? 0 : 1;
  },
};
