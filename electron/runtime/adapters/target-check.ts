/** The runtime's TargetCheck over `checkTarget` (git/target-checks.ts) (enrolled, online, can open, provider, key version). */
import { checkTarget } from '../../git/target-checks.ts';
import type { TargetCheck } from '../../ports/devices.ts';

/** Target-side blockers for one device, from its record, reachability and unsealed capabilities. */
export const targetCheck: TargetCheck = (input) =>
  checkTarget({
    device: input.device,
    capabilities: input.capabilities,
    requiredProvider: input.requiredProvider,
    requiredKeyVersion: input.requiredKeyVersion,
    repos: input.repos.map((r) => ({ remoteUrl: r.remoteUrl, relPath: r.relPath })),
    online: input.online,
  });
