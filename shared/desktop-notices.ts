/** What a desktop notification says, decided on the device for both hosts (electron/shell shows it, or the headless page). */

/**
 * A move completed, was blocked, or left the session needing attention; or an agent asks permission.
 * `body` names the session or the device; clicking opens the session's run view.
 */
export interface MoveNoticeView {
  kind: 'completed' | 'blocked' | 'attention' | 'permission';
  sessionId: string;
  handoffId: string | null;
  /** "Move completed", "Move blocked", "Needs attention", "Permission request". */
  title: string;
  body: string;
  at: number;
}
