/**
 * A transition the backend refused for a reason the coordinator does not settle itself (not a lost
 * race): thrown with the backend's code and details, so a step can tell what to do before the
 * coordinator tries it again.
 */
export class TransitionRefused extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> | undefined,
  ) {
    super(message);
  }
}

/**
 * Whether `error` says the backend no longer holds the uploaded checkpoint the transition named:
 * its record was collected before a transition named it (`validation_failed`, field `checkpoint`).
 */
export function checkpointCollected(error: unknown): boolean {
  return error instanceof TransitionRefused && error.code === 'validation_failed' && error.details?.field === 'checkpoint';
}
