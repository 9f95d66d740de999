// Problems from launcher output: the innermost frame of each Python traceback, and
// `<config>:<line>: error: <message>` lines. Fed chunk by chunk as the output streams.

export interface OutputProblem {
  file: string;
  /** 1-based */
  line: number;
  message: string;
  severity: 'error' | 'warning';
}

const FRAME = /^\s+File "([^<"][^"]*)", line (\d+), in .+$/;
const EXCEPTION = /^((?:[A-Za-z_][\w.]*)?(?:Error|Exception|Exit|Interrupt|Warning)\w*(?::.*)?)$/;
const CONFIG = /^(.+\.ya?ml):(\d+): (error|warning): (.*)$/;

export class OutputProblems {
  private partial = '';
  private lastFrame: { file: string; line: number } | undefined;
  private inTraceback = false;
  private readonly found: OutputProblem[] = [];

  /** Feeds output; returns the problems completed by this chunk. */
  push(chunk: string): OutputProblem[] {
    const lines = (this.partial + chunk).split(/\r?\n/);
    this.partial = lines.pop() ?? '';
    if (this.partial.length > 100_000) this.partial = '';
    const out: OutputProblem[] = [];
    for (const raw of lines) {
      const p = this.line(raw.replace(/\x1b\[[0-9;]*m/g, ''));
      if (p) {
        out.push(p);
        this.found.push(p);
      }
    }
    return out;
  }

  /** Flushes a last unterminated line. */
  end(): OutputProblem[] {
    const rest = this.partial;
    this.partial = '';
    return rest ? this.push(`${rest}\n`) : [];
  }

  all(): readonly OutputProblem[] {
    return this.found;
  }

  private line(line: string): OutputProblem | undefined {
    if (line.startsWith('Traceback (most recent call last):')) {
      this.inTraceback = true;
      this.lastFrame = undefined;
      return undefined;
    }
    const cfg = CONFIG.exec(line);
    if (cfg) return { file: cfg[1]!, line: Number(cfg[2]), message: cfg[4]!, severity: cfg[3] === 'warning' ? 'warning' : 'error' };
    if (!this.inTraceback) return undefined;
    const frame = FRAME.exec(line);
    if (frame) {
      this.lastFrame = { file: frame[1]!, line: Number(frame[2]) };
      return undefined;
    }
    if (/^\s/.test(line) || line === '') return undefined; // code and caret lines inside the traceback
    if (/^(During handling|The above exception)/.test(line)) return undefined; // chained tracebacks
    this.inTraceback = false;
    const exc = EXCEPTION.exec(line);
    const frameNow = this.lastFrame;
    this.lastFrame = undefined;
    if (exc && frameNow) return { ...frameNow, message: exc[1]!, severity: 'error' };
    return undefined;
  }
}
