// @ts-check
/** The page's log of a room, kept in step with the server's numbered history (no DOM here).
 *
 * States come numbered (`version`, growing by one per state, across games); judgements carry the
 * version they came after. The log book takes states, judgements and `history` answers in any
 * order they arrive and says what to draw: each state's lines once, each judgement once, a
 * divider where the game changes. When a state skips versions, it says which version to ask
 * `history` for, so the page never shows a gap or a duplicate. */

/** @typedef {{kind: "line" | "judgement" | "divider", text: string, game: number}} LogItem */
/** @typedef {{version: number, game?: number, lines?: string[], judgement?: {text: string}}} HistoryEntry */

export class LogBook {
  constructor() {
    /** The highest state version drawn, or null before the first. @type {number | null} */
    this.lastVersion = null;
    /** The game of the last item drawn. @type {number | null} */
    this.game = null;
    /** Judgements drawn, as "version|text". @type {Set<string>} */
    this.judged = new Set();
  }

  /** Forget everything (a fresh history redraws the whole log). */
  reset() {
    this.lastVersion = null;
    this.game = null;
    this.judged.clear();
  }

  /**
   * @param {number | undefined} game
   * @returns {LogItem[]} a divider if this starts another game
   */
  _enter(game) {
    if (game === undefined || game === this.game) return [];
    const divider = this.game === null ? [] : [{ kind: /** @type {const} */ ("divider"), text: `Game ${game}`, game }];
    this.game = game;
    return divider;
  }

  /**
   * A state arrived. Returns what to draw, and `missing`: the version to ask history for when
   * versions were skipped (the lines of this state are then left for the history to bring).
   * @param {{version: number, game?: number, lines: string[]}} state
   * @returns {{items: LogItem[], missing: number | null}}
   */
  state(state) {
    if (this.lastVersion !== null && state.version <= this.lastVersion) return { items: [], missing: null };
    if (this.lastVersion !== null && state.version > this.lastVersion + 1) {
      return { items: [], missing: this.lastVersion };
    }
    this.lastVersion = state.version;
    const game = state.game ?? this.game ?? 1;
    const items = this._enter(game);
    for (const text of state.lines) items.push({ kind: "line", text, game });
    return { items, missing: null };
  }

  /**
   * A judgement arrived (live or from history).
   * @param {{version?: number, game?: number, text: string}} judgement
   * @returns {LogItem[]}
   */
  judgement(judgement) {
    const key = `${judgement.version ?? ""}|${judgement.text}`;
    if (this.judged.has(key)) return [];
    this.judged.add(key);
    const game = judgement.game ?? this.game ?? 1;
    return [...this._enter(game), { kind: "judgement", text: judgement.text, game }];
  }

  /**
   * A `history` answer: its entries in order. With `reset`, it replaces the whole log.
   * @param {{entries: HistoryEntry[]}} history
   * @returns {LogItem[]}
   */
  history(history) {
    /** @type {LogItem[]} */
    const items = [];
    for (const entry of history.entries) {
      if (entry.judgement) {
        items.push(...this.judgement({ ...entry.judgement, version: entry.version, game: entry.game }));
      } else if (this.lastVersion === null || entry.version > this.lastVersion) {
        this.lastVersion = entry.version;
        const game = entry.game ?? this.game ?? 1;
        items.push(...this._enter(game));
        for (const text of entry.lines ?? []) items.push({ kind: "line", text, game });
      }
    }
    return items;
  }
}
