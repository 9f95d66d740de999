// Reads lines once, in order, and keeps the causes their signatures show (core/diagnose/signatures.ts):
// the first of each code, with its 1-based line and evidence. A Python traceback whose innermost
// frame in the user's own code is not explained by a signature is a `workflow-exception`.
// Linear: one combined needle test per line, the signature's own expression only on a hit, and
// lines cut to MAX_LINE characters before any expression sees them.
import { t } from '../l10n';
import { BUNDLED_GATES, type AgentJetGates } from './gates';
import { SIGNATURES, type Signature } from './signatures';
import type { Cause, CauseCode } from './types';

/** Characters of one line that are matched and kept (a longer line is cut). */
export const MAX_LINE = 16 * 1024;
const EVIDENCE_CHARS = 400;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const NEEDLES = new RegExp(SIGNATURES.map((s) => escape(s.needle)).join('|'));
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;
// Ray's prefix on a worker's line: `(TaskRunner pid=123)`, `(WorkerDict pid=9, ip=10.0.0.1)`, repeated ones.
const RAY_PREFIX = /^(?:\([\w.:-]+ pid=\d+(?:, ip=[\d.:a-f]+)?\)\s?)+/;
const TRACEBACK = 'Traceback (most recent call last):';
const FRAME = /^\s+File "([^"]+)", line (\d+), in (\S+)/;
const EXCEPTION = /^((?:[A-Za-z_][\w.]*\.)?[A-Za-z_]\w*(?:Error|Exception|Interrupt|Exit)\b.*)$/;
/** Frames of libraries and of AgentJet itself: the user's code is anything else. */
const LIBRARY =
  /(?:site-packages|dist-packages|[\\/]lib[\\/]python\d[\d.]*[\\/]|^<|[\\/](?:ajet|astuner|astune|verl|ray|trinity|beast_logger|vllm|torch)[\\/])/;

/** A line as shown in evidence: no colour codes, no control characters, at most EVIDENCE_CHARS. */
export function cleanLine(raw: string): string {
  const s = raw.replace(ANSI, '').replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '');
  return s.length > EVIDENCE_CHARS ? `${s.slice(0, EVIDENCE_CHARS - 1)}…` : s;
}

export function isUserFrame(path: string): boolean {
  return !LIBRARY.test(path);
}

interface Pending {
  cause: Cause;
  left: number;
}

export interface ClassifyOptions {
  gates?: AgentJetGates;
}

/** Feeds lines (with their 1-based numbers) and collects causes. */
export class Classifier {
  private readonly found = new Map<CauseCode, Cause>();
  private pending: Pending | undefined;
  private tb:
    | { start: number; explained: boolean; user?: { file: string; line: number; fn: string; at: number; text: string; code?: string } }
    | undefined;
  private lastFrameAt = -1;
  private workflow: Cause | undefined;
  private readonly gates: AgentJetGates;
  /** AgentJet package folders named by traceback frames (where its launch code can be read). */
  readonly ajetDirs = new Set<string>();

  constructor(opts: ClassifyOptions = {}) {
    this.gates = opts.gates ?? BUNDLED_GATES;
  }

  line(raw: string, n: number): void {
    let text = raw.length > MAX_LINE ? raw.slice(0, MAX_LINE) : raw;
    if (text.includes('\x1b')) text = text.replace(ANSI, '');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    const body = text.startsWith('(') ? text.replace(RAY_PREFIX, '') : text;
    if (this.pending) {
      if (body.trim() && this.pending.left > 0) {
        this.pending.cause.evidence.push(cleanLine(body));
        this.pending.left--;
      } else this.pending.left = 0;
      if (this.pending.left === 0) this.pending = undefined;
    }
    // A traceback's source lines (the code under a frame) quote messages without printing them.
    const quoted = this.lastFrameAt === n - 1 && /^\s/.test(body);
    if (!quoted && NEEDLES.test(body)) this.signatures(body, n);
    this.traceback(body, n);
  }

  private signatures(body: string, n: number): void {
    for (const sig of SIGNATURES) {
      if (!body.includes(sig.needle)) continue;
      const m = sig.re.exec(body);
      if (!m) continue;
      if (this.tb) this.tb.explained = true;
      if (this.found.has(sig.code)) return;
      this.add(sig, m, body, n);
      return;
    }
  }

  private add(sig: Signature, m: RegExpExecArray, body: string, n: number): void {
    const e = sig.explain(m, { gates: this.gates });
    const cause: Cause = { code: sig.code, line: n, message: e.message, fix: e.fix, evidence: [cleanLine(body)] };
    if (e.action) cause.action = e.action;
    this.found.set(sig.code, cause);
    if (sig.more) this.pending = { cause, left: sig.more };
  }

  private traceback(body: string, n: number): void {
    if (body.startsWith(TRACEBACK)) {
      // A chained traceback ("During handling ...") keeps the user frame of the first.
      const keep = this.tb && this.lastFrameAt >= 0 ? this.tb : undefined;
      this.tb = { start: n, explained: keep?.explained ?? false, ...(keep?.user ? { user: keep.user } : {}) };
      return;
    }
    if (!this.tb) return;
    const frame = FRAME.exec(body);
    if (frame) {
      const file = frame[1]!;
      const ajet = /^(.*[\\/]ajet)[\\/]/.exec(file);
      if (ajet) this.ajetDirs.add(ajet[1]!);
      if (isUserFrame(file)) this.tb.user = { file, line: Number(frame[2]), fn: frame[3]!, at: n, text: cleanLine(body.trim()) };
      this.lastFrameAt = n;
      return;
    }
    if (this.tb.user && this.lastFrameAt === n - 1 && /^\s/.test(body) && this.tb.user.at === n - 1) {
      this.tb.user.code = cleanLine(body.trim());
      return;
    }
    if (/^\s/.test(body) || body === '' || /^(During handling|The above exception)/.test(body)) return;
    const exc = EXCEPTION.exec(body.trim());
    if (!exc) return;
    const tb = this.tb;
    this.tb = undefined;
    this.lastFrameAt = -1;
    if (tb.explained || !tb.user || this.workflow) return;
    if (/^(?:KeyboardInterrupt|SystemExit)\b/.test(exc[1]!)) return;
    const u = tb.user;
    this.workflow = {
      code: 'workflow-exception',
      line: u.at,
      message: t('{0} in your code at {1}:{2} (in {3}).', cleanLine(exc[1]!).slice(0, 200), u.file, u.line, u.fn),
      fix: t(
        'Open {0} at line {1}: the exception was raised there or in what it called. Debug the workflow on one task with F5 (`agentjet debug-task`).',
        u.file,
        u.line,
      ),
      evidence: [u.text, ...(u.code ? [u.code] : []), cleanLine(body.trim())],
      frame: { file: u.file, line: u.line, function: u.fn },
    };
  }

  /** The causes so far, by line; a workflow exception only when nothing else explains the failure. */
  causes(): Cause[] {
    const out = [...this.found.values()];
    if (this.workflow && !out.length) out.push(this.workflow);
    return out.sort((a, b) => a.line - b.line);
  }
}

/** Causes in a text (line 1 is its first line). */
export function classifyText(text: string, opts: ClassifyOptions = {}): Cause[] {
  const c = new Classifier(opts);
  let start = 0;
  let n = 1;
  for (;;) {
    const end = text.indexOf('\n', start);
    c.line(end < 0 ? text.slice(start) : text.slice(start, end), n++);
    if (end < 0) break;
    start = end + 1;
  }
  return c.causes();
}

/** The cause explained again with other gates (the user's AgentJet, read after its frames named it). */
export function reexplain(cause: Cause, gates: AgentJetGates): Cause {
  const first = cause.evidence[0] ?? '';
  for (const sig of SIGNATURES) {
    if (sig.code !== cause.code || !first.includes(sig.needle)) continue;
    const m = sig.re.exec(first);
    if (!m) continue;
    const e = sig.explain(m, { gates });
    const out: Cause = { ...cause, message: e.message, fix: e.fix };
    if (e.action) out.action = e.action;
    return out;
  }
  return cause;
}
