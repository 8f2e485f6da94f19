import { describe, expect, it } from 'vitest';
import { PROVIDER_IDS } from '../../shared/provider.ts';
import { createProvider } from './registry.ts';

describe('createProvider', () => {
  it('makes an unstarted session for every provider id, each with its published capabilities', () => {
    for (const id of PROVIDER_IDS) {
      const made = createProvider(id, { command: { argv: ['my-agent'] } });
      if (!made.ok) throw new Error(made.message);
      expect(made.value.provider).toBe(id);
      expect(made.value.isTurnActive()).toBe(false);
      expect(made.value.snapshot()).toEqual({ agents: [], transcript: [] });
    }
  });

  it('refuses the command agent when no command is configured', () => {
    expect(createProvider('command')).toMatchObject({ ok: false, code: 'not_configured' });
    expect(createProvider('command', { command: { argv: [] } })).toMatchObject({ ok: false, code: 'not_configured' });
  });
});
