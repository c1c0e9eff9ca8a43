// @ts-check
/** The page's log of a room, kept in step with the server's numbered history (no DOM here).
 *
 * States come numbered (`version`, growing by one per state, across games); judgements carry the
 * version they came after. The log book takes states, judgements and `history` answers in any
 * order they arrive and says what to draw: each state's lines once, each judgement once, a
 * divider where the game changes. When a state skips versions, it says which version to ask
 * `history` for, so the page never shows a gap or a duplicate.
 *
 * Each item carries its `eventKind`, so the page colours a line by what happened, never by its
 * words: a state's line the kind of the engine event it tells (`card_played`, `slap_won`,
 * `misslap`, …), a line the room added after the events its `note_kinds` kind (`seat_away`,
 * `seat_back`, `game_abandoned`; none if the server sent none), `judgement`, `divider`, or a
 * notice's code. The terminal's twin is `ratscrew/client/session.py`
 * (`LogBook`, `LogItem.event_kind`); tests/transcripts/ holds both to the same log. */

/** @typedef {import("./protocol").StateMessage} StateMessage */
/** @typedef {import("./protocol").JudgementMessage} JudgementMessage */
/** @typedef {import("./protocol").HistoryMessage} HistoryMessage */
/** @typedef {import("./protocol").NoticeMessage} NoticeMessage */
/** @typedef {import("./protocol").PublicEvent} PublicEvent */
/** @typedef {import("./protocol").NoteKind} NoteKind */

/**
 * One line of the log: what it is (`kind`), its words, its game, the event kind it tells (see
 * above) and the event's room time, when it has one.
 * @typedef {{kind: "line" | "judgement" | "divider" | "notice", text: string, game: number,
 *            eventKind: string | null, at: number | null}} LogItem
 */

/**
 * A state's (or a history entry's) lines as log items: the first lines tell its events, in
 * order; any after them are the room's own, of the kinds `noteKinds` gives in order.
 * @param {PublicEvent[] | undefined} events @param {string[] | undefined} lines @param {number} game
 * @param {NoteKind[] | undefined} noteKinds
 * @returns {LogItem[]}
 */
function eventLines(events, lines, game, noteKinds) {
  const told = events ?? [];
  const notes = noteKinds ?? [];
  return (lines ?? []).map((text, index) => {
    const event = told[index];
    return {
      kind: /** @type {const} */ ("line"), text, game,
      eventKind: index < told.length ? event?.kind ?? null : notes[index - told.length] ?? null,
      at: typeof event?.at === "number" ? Math.round(event.at) : null,
    };
  });
}

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
    /** @type {LogItem[]} */
    const divider = this.game === null ? []
      : [{ kind: "divider", text: `Game ${game}`, game, eventKind: "divider", at: null }];
    this.game = game;
    return divider;
  }

  /**
   * A state arrived. Returns what to draw, and `missing`: the version to ask history for when
   * versions were skipped (the lines of this state are then left for the history to bring).
   * @param {Pick<StateMessage, "version" | "game" | "lines"> & {events?: PublicEvent[], note_kinds?: NoteKind[]}} state
   * @returns {{items: LogItem[], missing: number | null}}
   */
  state(state) {
    if (this.lastVersion !== null && state.version <= this.lastVersion) return { items: [], missing: null };
    if (this.lastVersion !== null && state.version > this.lastVersion + 1) {
      return { items: [], missing: this.lastVersion };
    }
    this.lastVersion = state.version;
    const game = state.game ?? this.game ?? 1;
    return { items: [...this._enter(game), ...eventLines(state.events, state.lines, game, state.note_kinds)], missing: null };
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
    return [...this._enter(game), { kind: "judgement", text: judgement.text, game, eventKind: "judgement", at: null }];
  }

  /**
   * Something the server announced (`notice`): logged with its code as its kind.
   * @param {Pick<NoticeMessage, "code" | "message">} notice
   * @returns {LogItem[]}
   */
  notice(notice) {
    const said = String(notice.message ?? "").trim();
    if (!said) return [];
    const text = `${said.charAt(0).toUpperCase()}${said.slice(1)}${/[.!?]$/.test(said) ? "" : "."}`;
    return [{ kind: "notice", text, game: this.game ?? 1, eventKind: notice.code ?? "notice", at: null }];
  }

  /**
   * A `history` answer: its entries in order. With `reset`, it replaces the whole log.
   * @param {Pick<HistoryMessage, "entries">} history
   * @returns {LogItem[]}
   */
  history(history) {
    /** @type {LogItem[]} */
    const items = [];
    for (const entry of history.entries) {
      if ("judgement" in entry) {
        items.push(...this.judgement({ ...entry.judgement, version: entry.version, game: entry.game }));
      } else if (this.lastVersion === null || entry.version > this.lastVersion) {
        this.lastVersion = entry.version;
        const game = entry.game ?? this.game ?? 1;
        items.push(...this._enter(game), ...eventLines(entry.events, entry.lines, game, entry.note_kinds));
      }
    }
    return items;
  }
}
