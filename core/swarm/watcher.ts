// One swarm server kept up to date: an adaptive poller over the server's API feeding a
// SwarmServerModel. A quiet poll is one request (the rollout pool carries the engine state, the
// global step and the model); the engine detail and the experiment folder are asked again only
// when the state changes or the folder is still unknown.
import { SwarmApi, SwarmError, type SwarmApiOptions, type SwarmStatus } from './api';
import { SwarmServerModel } from './model';
import { AdaptivePoller, type PollerOptions } from './poller';

export interface WatcherOptions extends SwarmApiOptions, PollerOptions {
  /** Called after every poll that changed the model. */
  onChange?: (m: SwarmServerModel) => void;
}

export class SwarmWatcher {
  readonly api: SwarmApi;
  readonly model: SwarmServerModel;
  readonly poller: AdaptivePoller;
  private detail: string | null = null;
  private dir: string | null = null;

  constructor(
    url: string,
    private readonly o: WatcherOptions = {},
  ) {
    this.api = new SwarmApi(url, o);
    this.model = new SwarmServerModel(this.api.url);
    this.poller = new AdaptivePoller((signal) => this.tick(signal), o);
  }

  private async tick(signal: AbortSignal): Promise<boolean> {
    const now = this.o.now ?? Date.now;
    let changed: boolean;
    try {
      const pool = await this.api.pool(signal);
      const prev = this.model.status;
      const state = pool.engine_status ?? 'unknown';
      const stateChanged = !prev || prev.engine_status !== state || prev.global_step !== (pool.global_step ?? null);
      if (stateChanged || this.model.reachability !== 'ok') {
        const st = await this.api.engineStatus(signal);
        this.detail = st.engine_status_detail ?? null;
      }
      if (stateChanged || (this.dir === null && state !== 'ENGINE.OFFLINE')) this.dir = (await this.api.experimentDir(signal)) ?? null;
      const s: SwarmStatus = {
        url: this.api.url,
        engine_status: state,
        engine_status_detail: this.detail,
        global_step: pool.global_step ?? null,
        server_experiment_dir: this.dir,
        training_model_path: pool.training_model_path ?? null,
        pool,
      };
      changed = this.model.update(s, now());
    } catch (e) {
      if (signal.aborted && !(e instanceof SwarmError && e.kind === 'timeout')) throw e;
      changed = this.model.fail(e instanceof Error ? e.message : String(e));
      if (changed) this.o.onChange?.(this.model);
      throw e;
    }
    if (changed) this.o.onChange?.(this.model);
    return changed;
  }

  start(): void {
    this.poller.start();
  }
  stop(): void {
    this.poller.stop();
  }
  /** Polls now (after a command such as stop engine). */
  refresh(): void {
    this.poller.poke();
  }
}
