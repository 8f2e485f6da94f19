/** The time now, in ms since the epoch (Date.now on a device; a test may step it). */
export type Clock = () => number;
