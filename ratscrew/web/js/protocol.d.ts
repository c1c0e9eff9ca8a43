// The online protocol's messages (docs/protocol.md), generated from ratscrew/protocol/:
// do not edit; after changing the Python types run `python -m ratscrew.protocol typescript > ratscrew/web/js/protocol.d.ts`.

/** The kind of an engine event (`ratscrew.events`). */
export type EventKind = "card_played" | "cards_burned" | "challenge_lost" | "challenge_passed" | "challenge_started" | "claim_opened" | "game_over" | "locked_out" | "misslap" | "pile_won" | "player_barred" | "player_out" | "slap_ignored" | "slap_tie" | "slap_won" | "slapped_in";

export type PublicEvent = { kind: EventKind; at: number; seat: number | null; [field: string]: any };

export type RulesetSettings = { name: string; summary: string; [setting: string]: SettingValue };

export type ErrorCode = "bad_json" | "bad_message" | "not_host" | "not_seated" | "wrong_phase" | "bad_rules" | "bad_token" | "bad_key" | "name_taken" | "illegal" | "rate_limited" | "flood" | "unavailable" | "room_full" | "server" | "bad_password" | "no_pool" | "already_seeking" | "flagged" | "unknown_arena" | "arena_closed";

export type Status = "player" | "waiting" | "watching";

export type HistoryEntry = StateEntry | JudgementEntry;

export type Pace = "slow" | "normal" | "fast";

export type Judging = "fair" | "first-packet";

export type Phase = "lobby" | "playing" | "over";

export type SeatKind = "open" | "bot" | "human";

export type NoticeCode = "resumed";

export type NoteKind = "seat_away" | "seat_back" | "game_abandoned";

export type OpenSeats = "bots" | "remove";

export type ActKind = "play" | "slap" | "resign";

export type SettingValue = boolean | number | string | string[];

export type SettingKind = "bool" | "int" | "choice" | "patterns";

export type JobState = "queued" | "running" | "done" | "failed";

/** Who this connection is, after ``join`` or ``watch``. */
export interface WelcomeMessage {
  type: "welcome";
  protocol: number;
  code: string;
  seat: number | null;
  token: string | null;
  host: boolean;
  name: string | null;
  status: Status;
  player_id: string | null;
}

/**
 * The room: its phase, rules, settings, seats and people (``you`` is the recipient's; the
 * public summary of ``GET /api/rooms/CODE`` has none).
 */
export interface RoomMessage {
  type: "room";
  code: string;
  phase: Phase;
  rules: RulesInfo;
  settings: SettingsInfo;
  seats: SeatInfo[];
  waiting: WaitingPerson[];
  open_seats: number;
  spectators: number;
  games_played: number;
  game_id: number | null;
  settle_ms: number;
  expected_length: ExpectedLength | null;
  you?: YouInfo;
}

/**
 * A change of the room's people alone, sent instead of a ``room`` message to a connection
 * that was sent the room before and for which nothing else changed: ``left`` are positions in
 * the waiting list as it last had it (in increasing order; remove them), ``joined`` the people
 * who now wait after the others (append them), ``spectators`` the count now.
 */
export interface LobbyChangeMessage {
  type: "lobby_change";
  left: number[];
  joined: WaitingPerson[];
  spectators: number;
}

/**
 * One step of the game, as a client receives it. The server builds it in two parts, a
 * `StatePart` for everyone and a `ViewPart` per seat, and stamps ``sent_at`` and
 * ``server_time_ms`` as it goes out on each connection.
 */
export interface StateMessage {
  type: "state";
  version: number;
  game: number;
  settle_ms: number;
  slappable: string | null;
  events: PublicEvent[];
  lines: string[];
  note_kinds?: NoteKind[];
  observation: Observation;
  sent_at: number;
  server_time_ms: number;
}

/** A contested slap, judged: who was quicker, by how much, and why. */
export interface JudgementMessage {
  type: "judgement";
  version: number;
  game: number;
  pile: string[];
  slaps: JudgedSlap[];
  text: string;
  details: string;
}

/** The results of a game, and where its record and replay are. */
export interface GameOverMessage {
  type: "game_over";
  winner: number | null;
  reason: string;
  game_id: number;
  record_url: string;
  replay_url: string;
  results: SeatResultInfo[];
}

/** The log so far (or after a version), to redraw it without a gap or a duplicate. */
export interface HistoryMessage {
  type: "history";
  game: number | null;
  entries: HistoryEntry[];
  complete: boolean;
}

/** Answer with ``pong`` and the same ``id`` at once. */
export interface PingMessage {
  type: "ping";
  id: number;
}

/** The host removed you; you now watch. */
export interface KickedMessage {
  type: "kicked";
  message: string;
}

/** The same token connected elsewhere; this connection closes. */
export interface ReplacedMessage {
  type: "replaced";
  message: string;
}

/** A refused message (nothing changed), or ``unavailable`` sent unasked. */
export interface ErrorMessage {
  type: "error";
  code: ErrorCode;
  message: string;
}

/** Something the server announces (``resumed``: the database is back). */
export interface NoticeMessage {
  type: "notice";
  code: NoticeCode;
  message: string;
}

/**
 * On ``/ws/seek``: you wait in this pool, with ``waiting`` seekers in all (you too); sent at
 * once and whenever the pool changes.
 */
export interface SeekingMessage {
  type: "seeking";
  rules: string;
  players: number;
  waiting: number;
  arena?: string;
}

/**
 * On ``/ws/seek``: a table was made for you; open ``url`` (or join ``room``) with your
 * player key to take ``seat``. The socket closes after it.
 */
export interface MatchedMessage {
  type: "matched";
  room: string;
  url: string;
  seat: number;
  players: MatchedPlayer[];
  arena?: string;
}

/** A state of the history: its events and lines (and the kinds of the room's notes). */
export interface StateEntry {
  game: number;
  version: number;
  events: PublicEvent[];
  lines: string[];
  note_kinds?: NoteKind[];
}

/** A judgement of the history, kept under the version it came after. */
export interface JudgementEntry {
  game: number;
  version: number;
  judgement: JudgementMessage;
}

/** The room's rules: the ruleset as TOML and in plain English. */
export interface RulesInfo {
  name: string;
  summary: string;
  toml: string;
  lines: string[];
  preset: boolean;
  unrated: string | null;
  patterns: PatternExample[];
}

/** The room's settings (as in ``POST /api/rooms``). */
export interface SettingsInfo {
  seats: number;
  pace: Pace;
  turn_timeout_ms: number;
  judging: Judging;
  seeded: boolean;
  time_limit_ms: number;
}

/** One seat: ``open``, a ``bot`` (with its level) or a ``human`` (with the person's link). */
export interface SeatInfo {
  seat: number;
  kind: SeatKind;
  name: string | null;
  bot?: string | null;
  host?: boolean;
  connected?: boolean;
  ready?: boolean;
  ping_ms?: number | null;
  stand_in?: string | null;
  you?: boolean;
}

/** Someone waiting for the next game. */
export interface WaitingPerson {
  name: string;
  you?: boolean;
}

/** How long a game under the room's rules and seats lasts, in minutes. */
export interface ExpectedLength {
  median_minutes: number;
  p90_minutes: number;
}

/** The recipient of a ``room`` message. */
export interface YouInfo {
  seat: number | null;
  host: boolean;
  status: Status;
  name: string | null;
}

/**
 * What a seat (or a spectator, ``seat`` ``None``) sees: `Game.observe`'s result, keys in
 * this order. No face-down card is ever in it; everything but ``seat`` is the same for every
 * seat. Cards are in notation (``7H``, ``TD``, ``JK``), piles bottom to top.
 */
export interface Observation {
  seat: number | null;
  now: number;
  rules: string;
  players: number;
  turn: number | null;
  pile: string[];
  pile_played_by: number[];
  burned: string[];
  penalty_pile: number;
  hand_sizes: number[];
  status: ("in" | "locked" | "out" | "barred" | "eliminated" | "watching")[];
  challenge: ChallengeView | null;
  collection: CollectionView | null;
  tie_window_until: number | null;
  cards_played: number;
  tricks: number;
  over: boolean;
  winner: number | null;
  end_reason: string | null;
  may: MayView;
}

/** One slap of a contested pile, judged. */
export interface JudgedSlap {
  seat: number;
  name: string;
  reaction_ms: number | null;
  link_ms: number;
  compensated: boolean;
  result: string;
}

/** How one seat did in a finished game: its figures and how many of its actions were its own. */
export interface SeatResultInfo {
  seat: number;
  name: string;
  kind: string;
  slaps: number;
  misslaps: number;
  median_reaction_ms: number | null;
  best_reaction_ms: number | null;
  cards_won: number;
  actions: number;
  by_stand_in: number;
  by_time_out: number;
}

/** One player of a matched table, in seat order. */
export interface MatchedPlayer {
  name: string;
  player_id: string;
  rating: number;
}

/** A slap pattern the rules allow, what it means, and a pile that shows it. */
export interface PatternExample {
  name: string;
  text: string;
  example: string[];
}

/**
 * The face-card challenge in progress: ``target`` owes ``chances_left`` more cards to the
 * ``card`` (in notation) that ``challenger`` played.
 */
export interface ChallengeView {
  challenger: number;
  target: number;
  chances_left: number;
  card: string;
}

/**
 * A lost challenge whose pile waits for ``winner``: collected at ``collect_at`` (automatic
 * collection) or claimed by a slap, ``winner``'s alone until ``exclusive_until``, then anyone's
 * (``open_to_all``).
 */
export interface CollectionView {
  winner: number;
  collect_at: number | null;
  exclusive_until: number | null;
  open_to_all: boolean;
}

/**
 * Who may act now, seat by seat: ``play[seat]`` and ``slap[seat]`` are
 * ``Game.may(seat, "play")`` and ``Game.may(seat, "slap")``.
 */
export interface MayView {
  play: boolean[];
  slap: boolean[];
}

/** Every message the server sends on a room's websocket. */
export type ServerMessage =
  | WelcomeMessage
  | RoomMessage
  | LobbyChangeMessage
  | StateMessage
  | JudgementMessage
  | GameOverMessage
  | HistoryMessage
  | PingMessage
  | KickedMessage
  | ReplacedMessage
  | ErrorMessage
  | NoticeMessage
  ;

/** Every message the server sends on the quick-play websocket, /ws/seek. */
export type SeekServerMessage =
  | SeekingMessage
  | MatchedMessage
  | ErrorMessage
  ;

/** Sit down (or take a seat back with ``token``). */
export interface JoinMessage {
  type: "join";
  name: string;
  token?: string | null;
  player_key?: string | null;
  password?: string | null;
}

/** Look on without a seat. */
export interface WatchMessage {
  type: "watch";
}

/** Leave your seat, or stop waiting, and watch (not during a game). */
export interface StandMessage {
  type: "stand";
}

/** Say whether you are ready to start. */
export interface ReadyMessage {
  type: "ready";
  ready: boolean;
}

/** The host changes some of the room's settings (``None``: unchanged). */
export interface ConfigureMessage {
  type: "configure";
  rules?: string;
  seats?: number;
  pace?: Pace;
  turn_timeout_ms?: number;
  judging?: Judging;
  time_limit_ms?: number;
}

/** The host puts a bot of level ``bot`` in ``seat``, or opens it (``bot=None``). */
export interface SetSeatMessage {
  type: "set_seat";
  seat: number;
  bot: string | null;
}

/** The host swaps what sits in two seats (people, bots or nobody) before a game. */
export interface MoveSeatMessage {
  type: "move_seat";
  from: number;
  to: number;
}

/** The host removes the person in ``seat``. */
export interface KickMessage {
  type: "kick";
  seat: number;
}

/** The host starts the game; seats still open get a ``bot`` of that level, or are removed. */
export interface StartMessage {
  type: "start";
  open_seats?: OpenSeats;
  bot?: string;
}

/** The host starts a new game with the same seats after one ended. */
export interface RematchMessage {
  type: "rematch";
}

/** A game action with the client's reaction stamp (both optional). */
export interface ActMessage {
  type: ActKind;
  reaction_ms?: number | null;
  version?: number | null;
}

/** The answer to ``ping`` ``id``. */
export interface PongMessage {
  type: "pong";
  id: number;
}

/** Ask for the entries after state ``since`` (``None``: all that is kept). */
export interface HistoryRequestMessage {
  type: "history";
  since: number | null;
}

/**
 * Quick play (``/ws/seek``): wait in the pool of ``rules`` and ``players`` (or of arena
 * ``arena``) for a table of strangers. A key is required: quick play is rated.
 */
export interface SeekMessage {
  type: "seek";
  rules: string;
  players: number;
  name: string;
  player_key: string;
  arena?: string;
}

/** Stop seeking (closing the socket does too). */
export interface CancelMessage {
  type: "cancel";
}

/** Every message a client sends on a room's websocket. */
export type ClientMessage =
  | JoinMessage
  | WatchMessage
  | StandMessage
  | ReadyMessage
  | ConfigureMessage
  | SetSeatMessage
  | MoveSeatMessage
  | KickMessage
  | StartMessage
  | RematchMessage
  | ActMessage
  | PongMessage
  | HistoryRequestMessage
  ;

/** Every message a client sends on the quick-play websocket, /ws/seek. */
export type SeekClientMessage =
  | SeekMessage
  | CancelMessage
  ;

// The HTTP API's JSON answers (ratscrew/protocol/http.py).

/**
 * ``POST /api/rooms`` (201): the new room's code and its page. (``GET /api/rooms/CODE``
 * answers the ``room`` message without ``you``: `ratscrew.protocol.server_messages.RoomMessage`.)
 */
export interface RoomCreated {
  code: string;
  url: string;
}

/** ``GET /api/presets``: every preset, in the order the rules list them. */
export interface PresetsAnswer {
  presets: PresetInfo[];
}

/** ``GET /api/bots``: the bot levels and the agents a room may seat. */
export interface BotsAnswer {
  levels: BotLevel[];
  agents: AgentInfo[];
}

/** ``GET /api/leaderboard?rules=NAME``: the ranked players of a ruleset, best first. */
export interface LeaderboardAnswer {
  rules: string;
  players: LeaderboardRow[];
}

/** ``GET /api/players/ID``: a player's ratings, games, reactions, slaps and integrity. */
export interface PlayerAnswer {
  player_id: string;
  name: string;
  ratings: PlayerRating[];
  games: PlayerGame[];
  reactions: PlayerReactions;
  slaps: SlapCounts[];
  export_hint: string;
  integrity: Integrity;
  arenas: PlayerArena[];
}

/** ``POST /api/players/export``: the import code that moves the key to another device. */
export interface PlayerExported {
  player_id: string;
  code: string;
}

/** ``POST /api/players/import``: the player (and key) an import code made on this server stands for. */
export interface PlayerImported {
  player_id: string;
  name: string;
  player_key: string;
}

/** An HTTP error a client can act on: a ``code`` word in ``error`` and a sentence in ``message``. */
export interface CodedError {
  error: string;
  message: string;
}

/**
 * ``GET /api/lab/settings``: the settings, the slap patterns, each preset's values, the
 * bot levels, the report's figures, and the most games a job may ask for.
 */
export interface LabSettingsAnswer {
  settings: LabSetting[];
  patterns: PatternText[];
  presets: RulesetSettings[];
  levels: string[];
  figures: FigureInfo[];
  max_games: number | null;
}

/** ``POST /api/lab`` (202): the job's id, where to poll it, and the games it plays. */
export interface LabJobStarted {
  id: string;
  url: string;
  total: number;
}

/**
 * ``GET /api/lab/jobs/ID``: a job's state and progress; its place in the queue while
 * ``queued``, its report once ``done``, why it stopped if ``failed``.
 */
export interface LabJobStatus {
  id: string;
  state: JobState;
  done: number;
  total: number;
  rules: string;
  players: number;
  position?: number;
  report?: LabReport;
  error?: string;
}

/** ``GET /api/pools``: every quick-play pool (issue 50). */
export interface PoolsAnswer {
  pools: PoolInfo[];
}

/** ``POST /api/arenas`` → 201. */
export interface ArenaCreated {
  id: string;
  url: string;
}

/** ``GET /api/arenas``: upcoming, running and recently finished arenas. */
export interface ArenasAnswer {
  arenas: ArenaAnswer[];
}

/**
 * ``GET /api/arenas/ID`` (and each arena of ``GET /api/arenas``, whose ``standings`` are
 * left empty): ``now`` is the server's clock, so a page's countdown does not trust its own;
 * ``final`` says the standings are the stored final ones.
 */
export interface ArenaAnswer {
  id: string;
  url: string;
  rules: string;
  players: number;
  state: "upcoming" | "running" | "finished" | "cancelled";
  starts_at: number;
  ends_at: number;
  now: number;
  final: boolean;
  standings: StandingLine[];
}

/** A preset ruleset: its name, what it is, its TOML, its rules in plain English. */
export interface PresetInfo {
  name: string;
  summary: string;
  toml: string;
  lines: string[];
  max_players: number;
}

/** A bot level a seat may be given: its mean reaction and how many cards it remembers. */
export interface BotLevel {
  name: string;
  mean_reaction_ms: number;
  memory: number;
}

/** A trained or built-in agent a seat may be given, and the human reaction profile it is held to. */
export interface AgentInfo {
  name: string;
  description: string;
  reaction: string;
  mean_reaction_ms: number;
}

/** A ranked player: their rating (mu - 3 sigma; equal ratings share a rank) and figures. */
export interface LeaderboardRow {
  name: string;
  games: number;
  wins: number;
  win_rate: number;
  slaps: number;
  misslaps: number;
  median_reaction_ms: number | null;
  best_reaction_ms: number | null;
  player_id: string;
  rank: number;
  rating: number;
  rating_sigma: number;
  provisional: boolean;
}

/** A player's rating after one rated game. */
export interface RatingPoint {
  game_id: number;
  at: string;
  rating_before: number;
  rating_after: number;
  mu: number;
  sigma: number;
}

/** A player's rating in one ruleset, with its rank and its history. */
export interface PlayerRating {
  rules: string;
  rating: number;
  mu: number;
  sigma: number;
  games: number;
  provisional: boolean;
  rank: number | null;
  history: RatingPoint[];
}

/** One of a player's finished games (``unrated``: why it changed no rating). */
export interface PlayerGame {
  id: number;
  rules: string;
  finished_at: string;
  place: number;
  players: number;
  replay: string;
  unrated: string | null;
  note: string | null;
}

/** A player's latest reaction times (ms, oldest first) beside each bot level's. */
export interface PlayerReactions {
  you: number[];
  bots: Record<string, number[]>;
}

/** A player's slaps of one pattern: won, lost to a quicker slapper, and misslaps (``none``). */
export interface SlapCounts {
  pattern: string;
  won: number;
  lost: number;
  misslaps: number;
}

/** Whether the player is flagged for review, why, and the slaps checked. */
export interface Integrity {
  flagged: boolean;
  reasons: string[];
  checked_slaps: number;
}

/** A player's final standing in a finished arena (issue 50): the place among its entrants. */
export interface PlayerArena {
  arena_id: string;
  rules: string;
  players: number;
  starts_at: number;
  ends_at: number;
  rank: number;
  entrants: number;
  score: number;
  games: number;
  wins: number;
}

/** A setting the lab page offers: its name, what it means, how it is edited. */
export interface LabSetting {
  name: string;
  text: string;
  kind: SettingKind;
  choices?: string[];
}

/** A slap pattern and what it means. */
export interface PatternText {
  name: string;
  text: string;
}

/**
 * A figure of the lab's report as the page shows it (`ratscrew.sim.figures.FIGURES`): where
 * the report holds it (``length.mean_cards``), its label, its decimals and its unit.
 */
export interface FigureInfo {
  name: string;
  label: string;
  digits: number;
  unit: "cards" | "minutes" | "count" | "share difference";
}

/** A figure with its 95% interval. */
export interface Figure {
  value: number;
  low: number;
  high: number;
}

/** A seat's share of the games with its interval (``seat`` null: games nobody won). */
export interface WinShare {
  seat: number | null;
  share: number;
  low: number;
  high: number;
}

/** How long the games were: cards, and minutes at the bots' human pace. */
export interface LengthFigures {
  mean_cards: Figure;
  median_minutes: Figure;
  p90_minutes: Figure;
  mean_minutes: Figure;
}

/** A good memory against a fast hand: each one's share and the difference. */
export interface MemoryVsSpeed {
  memory_bot: string;
  fast_bot: string;
  memory_share: Figure;
  fast_share: Figure;
  difference: Figure;
}

/** A figure on which the rules differ from their preset beyond chance. */
export interface SignificantDifference {
  figure: string;
  value: number;
  preset: number;
  difference: number;
}

/** Every figure of one ruleset in the lab. */
export interface LabFigures {
  win_share: WinShare[];
  length: LengthFigures;
  slaps_per_game: Figure;
  misslaps_per_game: Figure;
  memory_vs_speed: MemoryVsSpeed;
}

/**
 * The same figures for the preset the rules start from, the settings that differ, and the
 * differences that are significant.
 */
export interface PresetComparison {
  win_share: WinShare[];
  length: LengthFigures;
  slaps_per_game: Figure;
  misslaps_per_game: Figure;
  memory_vs_speed: MemoryVsSpeed;
  preset: string;
  changed: Record<string, SettingValue>;
  significant: SignificantDifference[];
}

/** The lab's report (`ratscrew.sim.lab.run_lab`): the rules' figures and the comparison. */
export interface LabReport {
  win_share: WinShare[];
  length: LengthFigures;
  slaps_per_game: Figure;
  misslaps_per_game: Figure;
  memory_vs_speed: MemoryVsSpeed;
  compared_to: PresetComparison;
}

/** One quick-play pool: its preset and table size, who waits in it and who plays from it. */
export interface PoolInfo {
  rules: string;
  players: number;
  waiting: number;
  playing: number;
}

/** One line of an arena's standings (`ratscrew.arenas.scoring.Standing`). */
export interface StandingLine {
  rank: number;
  player_id: string;
  name: string;
  score: number;
  games: number;
  wins: number;
  streak: number;
}
