// The cheap "is this YAML an AgentJet config?" test on its own, free of any parser, so the
// extension's first stage (extension/gate) can carry it without the YAML library.
import type { Dialect } from './dialect';

// A root key at column 0, bare or quoted, followed by `:`; a comment or nothing may follow on the
// line (a flow mapping or scalar after it still counts: the validator reports what is wrong).
const ROOT_LINE = /^(["']?)(ajet|astuner|astune)\1[ \t]*:(?=[ \t]|$)/m;

/** Only the head of huge files is looked at by the cheap test. */
const HEAD_BYTES = 256 * 1024;

export interface RootLine {
  dialect: Dialect;
  /** Offset of the key (its opening quote when quoted) in the text. */
  offset: number;
  quoted: boolean;
}

/**
 * Cheap test, no parse: the first line that starts with a root key (`ajet:`, `"ajet":`, ...).
 * Used for activation, CodeLens, launch pickers and the language server alike.
 */
export function findRootLine(text: string): RootLine | undefined {
  const head = text.length > HEAD_BYTES ? text.slice(0, HEAD_BYTES) : text;
  const m = ROOT_LINE.exec(head);
  if (!m) return undefined;
  return { dialect: m[2] as Dialect, offset: m.index, quoted: !!m[1] };
}

/** Could this text be an AgentJet/ASTuner/ASTune config? (cheap; the parse decides for sure) */
export function looksLikeConfig(text: string): boolean {
  return findRootLine(text) !== undefined;
}
