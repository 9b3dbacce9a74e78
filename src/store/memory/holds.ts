// Records an answer still holds: a long list written in pieces (http/pieces.ts) holds the
// records it read until its last piece is out, deleted and replaced ones among them, so
// what they cost stays counted against the budget until then.

/** The holds of one collection over its store's budget: a list of posts never holds a user's cost. */
export type Holds = {
  /** Counts every cost freed from now on until the returned release is called (once or more). */
  hold: () => () => void;
  /** Takes a record's cost off the budget, at once or when the holds open now are all released. */
  free: (cost: number) => void;
  /** Whether any hold is open, so that a freed record may still be in memory. */
  holding: () => boolean;
};

/** Holds over `budget`, whose `used` they lower as costs are freed. */
export function createHolds(budget: { used: number }): Holds {
  let next = 0;
  // The holds not yet released, oldest first: a Set iterates in insertion order.
  const open = new Set<number>();
  // What was freed while holds were open, with the newest hold open then, in that order:
  // it is released once every hold up to that one is.
  const freed: Array<{ newest: number; cost: number }> = [];
  const settle = () => {
    const oldest = open.size === 0 ? next : open.values().next().value!;
    let settled = 0;
    while (settled < freed.length && freed[settled]!.newest < oldest) budget.used -= freed[settled++]!.cost;
    freed.splice(0, settled);
  };
  return {
    hold: () => {
      const id = next++;
      open.add(id);
      return () => {
        if (open.delete(id)) settle();
      };
    },
    free: (cost) => {
      if (open.size === 0) return void (budget.used -= cost);
      const newest = next - 1;
      const last = freed.at(-1);
      if (last?.newest === newest) last.cost += cost;
      else freed.push({ newest, cost });
    },
    holding: () => open.size > 0,
  };
}
