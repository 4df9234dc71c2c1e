// For the tests of work done in slices: counts the event loop's turns while it runs. More than one
// turn during a call means the loop was free between its slices (DNS could answer).

/** Starts counting; `stop()` ends it and says how many turns there were. */
export function countLoopTurns(): { stop(): number } {
  let turns = 0;
  let ticking = true;
  const tick = () => {
    turns++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    stop: () => {
      ticking = false;
      return turns;
    },
  };
}
