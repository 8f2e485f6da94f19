/**
 * Tool calls one after another, in the order they arrived: calls a client sends together (one
 * write of several lines on stdin) are answered in that order, and a handoff_resume sent right
 * after a handoff_create reads the packet the create wrote. `idle()` lets the server finish what
 * it was sent before it closes (a client may close stdin right after its last call).
 */
export class CallQueue {
  private last: Promise<unknown> = Promise.resolve();
  private pending = 0;

  /** Runs `call` once every call queued before it has ended. */
  run<T>(call: () => Promise<T>): Promise<T> {
    this.pending += 1;
    const next = this.last.then(call, call).finally(() => {
      this.pending -= 1;
    });
    this.last = next.catch(() => undefined);
    return next;
  }

  /** Resolves once every call queued so far, and any queued while waiting, has ended. */
  async idle(): Promise<void> {
    // Calls already read are dispatched a turn or two later: let them queue first.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.pending > 0) {
      await this.last;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
