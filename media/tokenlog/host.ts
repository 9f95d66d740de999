// The webview's link to the extension host: posting messages and the state it persists
// (getState/setState). Every other module reads and writes `host.state` through here.
import { DEFAULT_VIEW_STATE, type ViewState, type ViewToHost } from '../../core/protocol/tokenlog';

interface VsCodeApi {
  postMessage(m: ViewToHost): void;
  getState(): unknown;
  setState(s: ViewState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

export class Host {
  private readonly api = acquireVsCodeApi();
  readonly state: ViewState;
  /** Scroll positions to restore once the list / timeline is there (after a reload). */
  restoreListScroll: number;
  restoreTokenScroll: number;
  /** After a reload, the selected record opens once the index reaches it. */
  restoreSelected: boolean;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    const saved = this.api.getState() as Partial<ViewState> | undefined;
    this.state = { ...DEFAULT_VIEW_STATE, ...(saved ?? {}) };
    this.restoreListScroll = saved?.listScroll ?? 0;
    this.restoreTokenScroll = saved?.tokenScroll ?? 0;
    this.restoreSelected = this.state.selected !== undefined;
  }

  post(m: ViewToHost): void {
    this.api.postMessage(m);
  }

  /** Persists the state soon (coalesced). */
  save(): void {
    if (this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      this.api.setState(this.state);
    }, 200);
  }
}
