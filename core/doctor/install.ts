// The one source of install advice (Check Environment, `agentjet doctor`, the launch preflight, the
// walkthrough's copy button, the README). It follows AgentJet's own installation guide
// (docs/en/installation.md, the same in AgentJet 0.0.1 of January 2026 and 0.0.4 of May 2026):
// AgentJet is installed from a clone of its repository, editable, with the backbone as an extra
// (`pip install -e .[verl]` or `.[trinity]`, which bring vLLM), then flash-attn on its own.
// The guide's `uv pip` / conda variants are the same commands; we run pip of the chosen interpreter.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const AGENTJET_REPO = 'https://github.com/modelscope/AgentJet.git';
export const INSTALL_GUIDE = 'https://github.com/modelscope/AgentJet/blob/main/docs/en/installation.md';

export type Backbone = 'verl' | 'trinity';

import { shellCommand, shellQuote } from '../process/quote';

export interface FrameworkInstall {
  /** Where the AgentJet checkout is (the installed editable package's folder, or the workspace when it is one). */
  checkout?: string | undefined;
  /** The backbone extra; default verl (the guide's first choice, and what brings vLLM for debugging). */
  backbone?: Backbone | undefined;
}

/**
 * The command lines that install AgentJet into `python` as the guide says: clone (unless a checkout
 * is known), editable install with the backbone extra, then flash-attn after everything else.
 */
export function frameworkInstallLines(python: string, o: FrameworkInstall = {}): string[] {
  const py = shellCommand([python]);
  const extra = `.[${o.backbone ?? 'verl'}]`;
  const lines = o.checkout ? [`cd ${shellQuote(o.checkout)}`] : [`git clone ${AGENTJET_REPO}`, 'cd AgentJet'];
  lines.push(`${py} -m pip install -e "${extra}"`);
  lines.push(`${py} -m pip install --verbose flash-attn --no-deps --no-build-isolation --no-cache`);
  return lines;
}

/** The same as one line to paste into a shell (`&&` between the steps). */
export function frameworkInstallCommand(python: string, o: FrameworkInstall = {}): string {
  return frameworkInstallLines(python, o).join(' && ');
}

/** `<python> -m pip install --upgrade "debugpy>=1.8.0"`. */
export function debugpyInstallCommand(python: string, min: string): string {
  return `${shellCommand([python])} -m pip install --upgrade "debugpy>=${min}"`;
}

/** A package AgentJet's extras do not bring (e.g. Ray's dashboard extra). */
export function pipInstallCommand(python: string, spec: string): string {
  return `${shellCommand([python])} -m pip install ${shellQuote(spec)}`;
}

/**
 * The AgentJet checkout an installed `ajet` lives in, when it is an editable install from one:
 * `<checkout>/ajet/__init__.py` -> `<checkout>`; a site-packages install has none.
 */
export function checkoutOf(ajetLocation: string | null | undefined): string | undefined {
  if (!ajetLocation || /[\\/](site|dist)-packages[\\/]/.test(ajetLocation)) return undefined;
  const m = /^(.*)[\\/]ajet(?:[\\/]__init__\.py)?[\\/]?$/.exec(ajetLocation);
  return agentJetCheckout(m?.[1] || undefined);
}

/** `dir` when it is a clone of AgentJet (its pyproject names the project and `ajet/` is there). */
export function agentJetCheckout(dir: string | undefined): string | undefined {
  if (!dir || !existsSync(join(dir, 'ajet', '__init__.py'))) return undefined;
  try {
    return /^\s*name\s*=\s*["']AgentJet["']/im.test(readFileSync(join(dir, 'pyproject.toml'), 'utf8')) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The ASTuner/ASTune checkout an installed `astuner` or `astune` package lives in (an editable
 * install: `<checkout>/astuner/__init__.py`, its pyproject naming AgentScope-Tuner), else undefined.
 */
export function olderCheckoutOf(location: string | null | undefined): string | undefined {
  if (!location || /[\\/](site|dist)-packages[\\/]/.test(location)) return undefined;
  const dir = /^(.*)[\\/]astune(?:r)?(?:[\\/]__init__\.py)?[\\/]?$/.exec(location)?.[1];
  if (!dir) return undefined;
  try {
    return /^\s*name\s*=\s*["']AgentScope-Tuner["']/im.test(readFileSync(join(dir, 'pyproject.toml'), 'utf8')) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** Does the checkout's pyproject declare this optional-dependencies extra (`verl = [`)? */
export function declaresExtra(checkout: string, extra: string): boolean {
  try {
    const text = readFileSync(join(checkout, 'pyproject.toml'), 'utf8');
    const section = /^\[project\.optional-dependencies\]\s*$([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(text)?.[1] ?? '';
    return new RegExp(`^\\s*${extra}\\s*=`, 'm').test(section);
  } catch {
    return false;
  }
}

/** In an older framework's checkout: its own extra, editable, as its guide of the time says. */
export function olderExtraInstallCommand(python: string, checkout: string, extra: string): string {
  const py = shellCommand([python]);
  return [`cd ${shellQuote(checkout)}`, `${py} -m pip install -e ".[${extra}]"`].join(' && ');
}

/** In an older framework's checkout: a backbone's requirements file (scripts/requirements_<backbone>.txt). */
export function olderRequirementsInstallCommand(python: string, checkout: string, file: string): string {
  return [`cd ${shellQuote(checkout)}`, `${shellCommand([python])} -m pip install -r ${shellQuote(file)}`].join(' && ');
}
