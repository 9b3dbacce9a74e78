// Records an answer still holds: a long list written in pieces (http/pieces.ts) holds the
// records it read until its last piece is out, deleted and replaced ones among them, so
// what they cost stays counted against the budget until then, and no longer.

/** The holds of one collection over its store's budget: a list of posts never holds a user's cost. */
export type Holds = {
  /**
   * Holds the records of `items`, read when the collection was at `revision`, until the returned
   * release is called (once or more); `complete` says that they were every record held then.
   * Answers that list the same array share one hold.
   */
  hold: (items: readonly object[], revision: number, complete: boolean) => () => void;
  /** Whether a hold open now lists `record`, held at `version` (the revision of its last write). */
  lists: (record: object, version: number) => boolean;
  /** Takes a record's cost off the budget: at once, or when the last hold open now that lists it is released. */
  free: (record: object, version: number, cost: number) => void;
  /** Whether any hold is open, so that a freed record may still be in memory. */
  holding: () => boolean;
};

/** What one array being written holds, and the costs of its records freed since, which it keeps counted. */
type Hold = {
  items: readonly object[];
  revision: number;
  complete: boolean;
  /** How many answers write it. */
  answers: number;
  /** Its records, to tell whether it lists one, made the first time a free needs to know; only for a hold that is not complete. */
  members: Set<object> | undefined;
  pins: Pin[];
};

/** A freed record's cost, kept counted while holds still list the record. */
type Pin = { cost: number; holds: number };

/**
 * Holds over `budget`, whose `used` they lower as costs are freed. A record freed is kept counted
 * only by the holds that list it, and goes back to the budget when the last of them is released:
 * a reader that began long ago keeps what it lists, not every record deleted since. A hold lists
 * a record when it was read after the record's last write (a record written later is another
 * object), and, unless it holds every record of that revision, when it has that very record.
 */
export function createHolds(budget: { used: number }): Holds {
  // By array: lists asked for at once share one (Collection.whole()), and so one hold.
  const open = new Map<readonly object[], Hold>();
  const listing = (hold: Hold, record: object, version: number): boolean =>
    version <= hold.revision && (hold.complete || (hold.members ??= new Set(hold.items)).has(record));
  return {
    hold: (items, revision, complete) => {
      let hold = open.get(items);
      if (hold === undefined) {
        hold = { items, revision, complete, answers: 0, members: undefined, pins: [] };
        open.set(items, hold);
      }
      hold.answers++;
      const held = hold;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        if (--held.answers > 0) return;
        open.delete(items);
        for (const pin of held.pins) if (--pin.holds === 0) budget.used -= pin.cost;
      };
    },
    lists: (record, version) => {
      for (const hold of open.values()) if (listing(hold, record, version)) return true;
      return false;
    },
    free: (record, version, cost) => {
      // Fast path: no list being written, nothing to look for.
      if (open.size === 0) return void (budget.used -= cost);
      let pin: Pin | undefined;
      for (const hold of open.values()) {
        if (!listing(hold, record, version)) continue;
        pin ??= { cost, holds: 0 };
        pin.holds++;
        hold.pins.push(pin);
      }
      if (pin === undefined) budget.used -= cost;
    },
    holding: () => open.size > 0,
  };
}
