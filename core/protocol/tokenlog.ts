// Messages between the token log custom editor (extension host) and its webview
// (media/tokenlog/main.ts), and the trajectory viewer. Both sides import this file; it holds
// types only, so the DOM-only webview build can use it.

/** What a record holds: token timelines, a rich table (evaluation ...) or plain text. */
export type RecordKind = 'tokens' | 'table' | 'text';

/** The engine's filter (core/logs/session.ts) is this type too. */
export interface Filter {
  stepMin?: number;
  stepMax?: number;
  rewardMin?: number;
  rewardMax?: number;
  outcome?: string;
  /** Free text searched in token text, titles and task ids (decodes records; streams results). */
  text?: string;
}

export type SortKey = 'index' | 'step' | 'reward' | 'task' | 'time' | 'tokens';
export interface Sort {
  key: SortKey;
  desc?: boolean;
}

/** One line of the record list. */
export interface Row {
  index: number;
  time?: number;
  title?: string;
  step?: number;
  taskId?: string;
  reward?: number;
  outcome?: string;
  timelines?: number;
  tokens?: number;
  trained?: number;
  kind?: RecordKind;
  error?: string;
  /** The newest record while the file still ends mid-record. */
  partial?: boolean;
  /** With a text filter: where the first match is (the view jumps there). */
  hit?: { matches: number; timeline?: number; token?: number; char?: number; where?: MatchWhere };
}

/** Which part of a record a text match lies in. */
export type MatchWhere = 'tokens' | 'title' | 'task' | 'content';

/**
 * One record matching a text search (matching is on the decoded text: a search for a newline,
 * a quote or `é` finds it whatever JSON escape the file used). In token text, `timeline` is the
 * timeline's position in the record, `token` the token index, `char` the UTF-16 offset of the
 * match inside that token's text (a match may continue into the next tokens).
 */
export interface SearchHitData {
  index: number;
  /** Matches in token text (all timelines of the record). */
  matches: number;
  where: MatchWhere;
  timeline?: number;
  token?: number;
  char?: number;
}

/** Running totals of a text search (sent with progress, and once at the end with `done === total`). */
export interface SearchCounts {
  /** Records searched so far / to search. */
  done: number;
  total: number;
  /** Bytes of the records searched so far / to search (for MB/s and a byte-true progress bar). */
  doneBytes: number;
  totalBytes: number;
  /** Records with a match, and matches in token text, so far. */
  hits: number;
  matches: number;
}

/** Loss mask of a token: 1 trained, 0 context, -1 unknown colour. */
export type MaskValue = 1 | 0 | -1;

/** One timeline (training sample) of a record; the engine's decoded form is this type. */
export interface TimelineData {
  /** The `nested_json` key. */
  key: string;
  taskId: string;
  outcome: string;
  index: number;
  lenPrompt?: number;
  lenResponse?: number;
  lenInput?: number;
  rawReward?: number;
  stepReward?: number;
  advantage?: number;
  /** Other scalar fields of the item (item_id, col1, ...), as text. */
  fields: Record<string, string>;
  text: string[];
  /** Token ids (numbers when numeric, else the text as logged), null when missing. */
  ids: (number | string | null)[];
  /** Logprob per token, null for "N/A" or missing. */
  logprobs: (number | null)[];
  mask: MaskValue[];
  /** Problems with this timeline (e.g. arrays of different lengths). */
  warnings: string[];
  /**
   * What the per-token `title` array held: 'logprob' (AgentJet, ASTune multi-agent: "-0.1234" or
   * "N/A"), 'text' (ASTune linear tracker: the token text again, so no logprobs), 'none'.
   */
  titles?: 'logprob' | 'text' | 'none';
}

/** A rich table read back from text: wrapped cell lines joined, panels and titles peeled off. */
export interface TableGrid {
  title?: string;
  header?: string[];
  rows: string[][];
}

/** One fully decoded record (core/logs/decode.ts produces exactly this). */
export interface RecordData {
  time: string;
  level: string;
  source: string;
  title: string;
  step?: number;
  taskId?: string;
  reward?: number;
  outcome?: string;
  kind: RecordKind;
  timelines: TimelineData[];
  table: [string, string][];
  /** The table as drawn, all columns (tables with a header row or more than two columns). */
  grid?: TableGrid;
  content: string;
  attach: string;
  warnings: string[];
}

export interface GroupMember {
  index: number;
  key: string;
  outcome: string;
  reward?: number;
  advantage?: number;
  tokens: number;
  trained: number;
  /** Prompt tokens left out of the preview (the group shares its prompt). */
  promptTokens: number;
  /** The first response tokens of the timeline (text, mask), enough for a side-by-side preview. */
  text: string[];
  mask: number[];
  truncated: boolean;
}

/** What the webview persists with setState and sends back on `ready`. */
export interface ViewState {
  filter: Filter;
  sort: Sort;
  selected?: number;
  timeline: number;
  listScroll: number;
  tokenScroll: number;
  mode: 'mask' | 'heat' | 'plain';
  whitespace: boolean;
  follow: boolean;
  threshold: number;
  group: boolean;
  /** Widths (px) of the record list's columns and of the list pane, after the user resized them. */
  columns?: number[];
  listWidth?: number;
}

/** A view's state before the user changed anything (a saved state overrides it field by field). */
export const DEFAULT_VIEW_STATE: ViewState = {
  filter: {},
  sort: { key: 'index' },
  timeline: 0,
  listScroll: 0,
  tokenScroll: 0,
  mode: 'mask',
  whitespace: false,
  follow: false,
  threshold: -2,
  group: false,
};

export type HostToView =
  | { type: 'init'; name: string; files: string[] }
  | { type: 'progress'; phase: 'index' | 'summaries' | 'search'; done: number; total: number; cancellable: boolean }
  | { type: 'progressEnd'; phase: 'index' | 'summaries' | 'search'; cancelled: boolean }
  | {
      type: 'status';
      records: number;
      bytes: number;
      partialTail: boolean;
      problems: string[];
      outcomes: string[];
      steps?: [number, number];
    }
  /**
   * The filtered/sorted list changed: `total` entries; the view re-requests what it shows. With a
   * text filter, `hits` counts the matches in those records (a record may match several times).
   */
  /** partial: records or summaries are still being read, so the list may grow (a record it lacks may still come). */
  | { type: 'list'; version: number; total: number; searching: boolean; partial?: boolean; hits?: number }
  | { type: 'rows'; version: number; offset: number; rows: Row[] }
  /** Records from `from` on may have changed (the last one was incomplete, or the file was reset). */
  | { type: 'changed'; from: number }
  | { type: 'record'; index: number; ok: true; record: RecordData; row: Row }
  | { type: 'record'; index: number; ok: false; error: string; row: Row }
  | { type: 'group'; taskId: string; step?: number; members: GroupMember[] }
  /** Position of record `index` in the current list (answer to `locate`). */
  | { type: 'located'; index: number; position: number }
  /**
   * Streamed text-search results for list `version`, in file order, in batches; the list message
   * that follows the search carries the same records. `counts` are the totals so far; `offset` is
   * the list position of the first hit of the batch (the hits are appended to the list there).
   */
  | { type: 'searchHits'; version: number; offset: number; hits: SearchHitData[]; counts: SearchCounts }
  | { type: 'error'; message: string }
  /** Test hook: asks the view to act as a user would (see ViewCommand). */
  | { type: 'command'; command: ViewCommand };

/** Actions a test (or another feature) may drive through the host. */
export type ViewCommand =
  | { kind: 'filter'; filter: Filter }
  | { kind: 'open'; index: number; timeline?: number }
  /** Selects the row at this position of the (filtered, sorted) list, as a click does. */
  | { kind: 'select'; position: number }
  | { kind: 'mode'; mode: ViewState['mode'] }
  | { kind: 'follow'; on: boolean }
  | { kind: 'key'; key: string; shiftKey?: boolean }
  | { kind: 'hover'; token: number }
  | { kind: 'group'; on: boolean }
  | { kind: 'copy'; what: 'text' | 'json' };

/** What the view reports after it renders (tests read it; also the a11y status line). */
export interface ViewReport {
  records: number;
  listTotal: number;
  listRows: number;
  selected?: number;
  timeline?: number;
  timelineTokens: number;
  /** Token spans currently in the DOM. */
  domTokens: number;
  /** Text of the token spans in the DOM, concatenated (first 20,000 characters). */
  domText: string;
  /** The cursor token, when one is focused or hovered. */
  cursor?: number;
  hover?: string;
  /** Script/img/iframe/object elements or on* attributes inside the view (must stay 0). */
  injected: number;
  mode: ViewState['mode'];
  follow: boolean;
  kind?: RecordData['kind'];
  group: number;
  error?: string;
  indexing: boolean;
  /** With a text filter: records matched, matches in them, and whether the search ended. */
  search?: { records: number; hits: number; done: boolean };
  /** The message shown instead of rows when the list is empty. */
  emptyMessage?: string;
}

export type ViewToHost =
  | { type: 'ready'; state?: ViewState }
  | { type: 'query'; filter: Filter; sort: Sort }
  | { type: 'rows'; version: number; offset: number; count: number }
  | { type: 'open'; index: number }
  | { type: 'group'; taskId: string; step?: number }
  | { type: 'locate'; index: number }
  | { type: 'cancel' }
  | { type: 'resume' }
  | { type: 'copy'; text: string; what: string }
  | { type: 'openRaw' }
  | { type: 'report'; report: ViewReport };

// Trajectory viewer (media/trajectory/main.ts)

export interface TrajectoryMessage {
  role: string;
  content: string;
  name?: string;
  toolCalls: { id?: string; name: string; arguments: string }[];
  toolCallId?: string;
}

export interface TrajectoryData {
  taskId: string;
  tag?: string;
  rewards: [string, string][];
  timelines: TrajectoryMessage[][];
}

export type TrajectoryHostToView =
  { type: 'trajectory'; name: string; ok: true; data: TrajectoryData } | { type: 'trajectory'; name: string; ok: false; error: string };

export type TrajectoryViewToHost =
  { type: 'ready' } | { type: 'openRaw' } | { type: 'report'; messages: number; timelines: number; error?: string };
