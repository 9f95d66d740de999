// Class references (`a.b.c->Class`, `path/to/file.py->Class`), resolved statically against the
// folder the launcher runs in, and framework built-ins against the installed package when known.
import { isAbsolute, join, dirname, basename, relative } from 'node:path';
import type { ConfigFs } from './fs';
import { parsePython, MAX_PYTHON_CHARS, type PyClass, type PyModule } from './python';
import { t } from '../l10n';
import { referenceWaitsForTrust } from '../trust/policy';

export interface ClassRef {
  form: 'module' | 'file';
  /** Module path or file path as written. */
  target: string;
  className: string;
  /** Offsets within the reference string. */
  targetStart: number;
  targetEnd: number;
  classStart: number;
  classEnd: number;
}

export function parseClassRef(value: string): ClassRef | { error: string } {
  const arrow = value.indexOf('->');
  if (arrow < 0) return { error: t('expected `module.path->ClassName` or `path/to/file.py->ClassName`') };
  const left = value.slice(0, arrow);
  const right = value.slice(arrow + 2);
  const ls = left.length - left.trimStart().length;
  const target = left.trim();
  const rs = right.length - right.trimStart().length;
  const className = right.trim();
  if (!target) return { error: t('the module or file before `->` is empty') };
  if (!/^[A-Za-z_]\w*$/.test(className)) return { error: t('`{0}` is not a Python class name', className) };
  const form = target.endsWith('.py') ? 'file' : 'module';
  if (form === 'module' && !/^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$/.test(target))
    return { error: t('`{0}` is not a dotted module path (use a file path ending in .py for files)', target) };
  return {
    form,
    target,
    className,
    targetStart: ls,
    targetEnd: ls + target.length,
    classStart: arrow + 2 + rs,
    classEnd: arrow + 2 + rs + className.length,
  };
}

/** Where installed top-level packages live, as found by the configured Python. */
export interface PackageLocator {
  /** Folder containing the top-level package/module `name` (a sys.path entry), null when not installed, undefined when unknown. */
  locate(name: string): string | null | undefined;
  /** True while the interpreter is still being asked about `name` (nothing is claimed then). */
  pending?(name: string): boolean;
  /** Why the interpreter could not be asked at all. */
  problem?(): string | undefined;
  /** True in Restricted Mode: nothing is asked of any interpreter until the user trusts the folder. */
  waitingForTrust?(): boolean;
  /**
   * False when nobody chose this interpreter for AgentJet (the folder's `.venv` or the Python
   * extension's pick, found for the user): a framework package missing there is not an error then.
   */
  readonly configured?: boolean;
  /** The interpreter asked (for messages). */
  readonly python?: string;
}

export const BUILTIN_ROOTS = new Set(['ajet', 'astuner', 'astune']);

export type Resolution =
  | { ok: true; file: string; cls: PyClass; module: PyModule }
  | {
      ok: false;
      code: 'class-ref/missing-module' | 'class-ref/missing-file' | 'class-ref/missing-class';
      part: 'target' | 'class';
      message: string;
      severity: 'error' | 'warning';
    }
  | { ok: 'skip'; reason: string }
  /**
   * Not confirmed and no error claimed: the file is too large to read whole, or the installed
   * packages could not be asked (`trust`: Restricted Mode; the check waits for the user's trust).
   */
  | { ok: 'unchecked'; file?: string; message: string; trust?: boolean };

type Unresolved = Extract<Resolution, { ok: false }>;

/** A reference that does not resolve; a missing class is the class part's fault, the rest the target's. */
function unresolved(code: Unresolved['code'], severity: Unresolved['severity'], message: string): Unresolved {
  return { ok: false, code, part: code === 'class-ref/missing-class' ? 'class' : 'target', severity, message };
}

export class ClassResolver {
  private parsed = new Map<string, { text: string; mod: PyModule }>();
  /** Folders of installed packages the interpreter named (locate): their modules may be read too. */
  private readonly packageDirs = new Set<string>();
  constructor(
    private readonly fs: ConfigFs,
    private readonly locator?: PackageLocator,
  ) {}

  exists(path: string): boolean {
    return this.fs.kind(path) === 'file';
  }

  /**
   * The folders a module read for `root` may reach: `root` and the installed packages' folders. Every
   * `.py` is read through the open-time real-path check (core/fs/inside.ts): a link out of them is not read.
   */
  within(root: string): string[] {
    return [root, ...this.packageDirs];
  }

  private locate(top: string): string | null | undefined {
    const base = this.locator?.locate(top);
    if (typeof base === 'string') this.packageDirs.add(base);
    return base;
  }

  /** The parsed module `file`, read when it lies in `root` or an installed package (real paths). */
  module(file: string, root: string): PyModule | undefined {
    const text = this.fs.read(file, this.within(root));
    // Above the reader's limit the parse would be empty: treated as unreadable, never as "no classes".
    if (text === undefined || text.length > MAX_PYTHON_CHARS) return undefined;
    const c = this.parsed.get(file);
    if (c && c.text === text) return c.mod;
    const mod = parsePython(text);
    this.parsed.set(file, { text, mod });
    return mod;
  }

  /** File of a dotted module under a sys.path entry. */
  moduleFile(base: string, dotted: string): string | undefined {
    const rel = join(base, ...dotted.split('.'));
    if (this.fs.kind(rel + '.py') === 'file') return rel + '.py';
    if (this.fs.kind(join(rel, '__init__.py')) === 'file') return join(rel, '__init__.py');
    if (this.fs.kind(rel) === 'dir') return join(rel, '__init__.py'); // namespace package
    return undefined;
  }

  /** The sys.path entry a module's top-level name comes from: the root, or an installed location. */
  private baseFor(top: string, root: string): string | null | undefined {
    if (this.fs.kind(join(root, top)) === 'dir' || this.fs.kind(join(root, top + '.py')) === 'file') return root;
    return this.locate(top);
  }

  resolve(ref: ClassRef, root: string): Resolution {
    let file: string | undefined;
    if (ref.form === 'file') {
      file = isAbsolute(ref.target) ? ref.target : join(root, ref.target);
      if (this.fs.kind(file) !== 'file')
        return unresolved(
          'class-ref/missing-file',
          'error',
          t('File `{0}` not found (relative paths resolve against {1}).', ref.target, root),
        );
    } else {
      const [top = ''] = ref.target.split('.');
      const builtin = BUILTIN_ROOTS.has(top);
      const base = this.baseFor(top, root);
      if (base === undefined) {
        if (this.locator?.waitingForTrust?.()) return { ok: 'unchecked', message: referenceWaitsForTrust(ref.target), trust: true };
        if (this.locator?.pending?.(top)) return { ok: 'skip', reason: t('still asking the interpreter') };
        if (builtin) return { ok: 'skip', reason: t('framework built-in; no Python configured to check it') };
        const problem = this.locator?.problem?.();
        return unresolved(
          'class-ref/missing-module',
          'warning',
          problem
            ? t(
                'Module `{0}` is not in the workspace ({1}), and the interpreter could not be asked about installed packages: {2}.',
                ref.target,
                root,
                problem,
              )
            : t(
                'Module `{0}` is not in the workspace ({1}). If it comes from an installed package, set `agentjet.pythonPath` so it can be checked.',
                ref.target,
                root,
              ),
        );
      }
      // A built-in of the framework, missing from an interpreter the user never chose for AgentJet
      // (the folder's .venv may be any project's): the reference is fine for AgentJet's own Python.
      if (base === null && builtin && this.locator?.configured === false)
        return {
          ok: 'unchecked',
          message: t(
            '`{0}` was not checked: {1} has no `{2}` package, and no interpreter is set for AgentJet (set `agentjet.pythonPath` to the Python that runs AgentJet to check it).',
            ref.target,
            this.locator.python ?? 'python',
            top,
          ),
        };
      if (base === null)
        return unresolved(
          'class-ref/missing-module',
          'error',
          builtin
            ? t('The configured Python has no `{0}` package installed.', top)
            : t('Module `{0}` not found in {1} nor in the configured Python.', ref.target, root),
        );
      file = this.moduleFile(base, ref.target);
      if (!file) return unresolved('class-ref/missing-module', 'error', t('Module `{0}` not found under {1}.', ref.target, base));
    }
    const found = this.findClass(file, ref.className, 0, root);
    if (found) return { ok: true, ...found };
    const mod = this.module(file, root);
    if (!mod && this.fs.kind(file) === 'file') {
      if (this.fs.outside?.(file, this.within(root)))
        return {
          ok: 'unchecked',
          file,
          message: t(
            '`{0}` was not checked: {1} leads outside the workspace folder and the installed packages (a link out of them is not read).',
            ref.className,
            ref.target,
          ),
        };
      return this.largeFile(file, ref.className, root);
    }
    const names = mod ? [...mod.classes.keys()] : [];
    const shownFile = basename(file) === '__init__.py' ? dirname(file) : file;
    const rel = relative(root, shownFile);
    const shown = rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : shownFile;
    return unresolved(
      'class-ref/missing-class',
      'error',
      names.length
        ? t('`{0}` is not defined in {1} (classes: {2}).', ref.className, shown, names.slice(0, 8).join(', '))
        : t('`{0}` is not defined in {1}.', ref.className, shown),
    );
  }

  /**
   * A module too large to read whole (over the fs's read limit): a streamed scan for the class's
   * top-level `class Name` line confirms it; otherwise nothing is claimed (it may be re-exported),
   * and the reference is reported as not checked.
   */
  private largeFile(file: string, className: string, root: string): Resolution {
    const rel = relative(root, file);
    const shown = rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
    const mb = ((this.fs.size?.(file) ?? 0) / 1048576).toFixed(1);
    const hit = this.fs.findLine?.(file, new RegExp(`^class\\s+${className}\\b`), undefined, this.within(root));
    if (hit) {
      const cls: PyClass = { name: className, line: hit.line, character: hit.character, bases: [] };
      return { ok: true, file, cls, module: { classes: new Map([[className, cls]]), imports: [], starImports: [], names: new Map() } };
    }
    return {
      ok: 'unchecked',
      file,
      message:
        hit === null
          ? t(
              '`{0}` was not checked: {1} is {2} MB, too large to read whole, and no top-level `class {0}` line was found in it (it may be imported there).',
              className,
              shown,
              mb,
            )
          : t('`{0}` was not checked: {1} is {2} MB, too large to read.', className, shown, mb),
    };
  }

  /** Finds a class defined in or re-exported by `file`. */
  findClass(file: string, name: string, depth: number, root: string): { file: string; cls: PyClass; module: PyModule } | undefined {
    if (depth > 6) return undefined;
    const mod = this.module(file, root);
    if (!mod) return undefined;
    const cls = mod.classes.get(name);
    if (cls) return { file, cls, module: mod };
    for (const imp of mod.imports) {
      if (imp.alias !== name) continue;
      const target = this.importedFile(file, imp.module);
      const hit = target && this.findClass(target, imp.name, depth + 1, root);
      // A name imported from somewhere we cannot read still exists: point at the import line.
      return hit || { file, cls: { name, line: imp.line, character: 0, bases: [] }, module: mod };
    }
    const other = mod.names.get(name);
    if (other !== undefined) return { file, cls: { name, line: other, character: 0, bases: [] }, module: mod };
    for (const star of mod.starImports) {
      const target = this.importedFile(file, star);
      const hit = target && this.findClass(target, name, depth + 1, root);
      if (hit) return hit;
    }
    return undefined;
  }

  private importedFile(fromFile: string, module: string): string | undefined {
    const dots = (/^\.*/.exec(module) as RegExpExecArray)[0].length;
    const rest = module.slice(dots);
    if (dots > 0) {
      let dir = dirname(fromFile);
      for (let i = 1; i < dots; i++) dir = dirname(dir);
      return rest ? this.moduleFile(dir, rest) : join(dir, '__init__.py');
    }
    const [top = ''] = rest.split('.');
    // Absolute imports: try the package the file lives in (walk up), then installed packages.
    let dir = dirname(fromFile);
    for (let i = 0; i < 8; i++) {
      if (this.fs.kind(join(dir, top)) === 'dir' || this.fs.kind(join(dir, top + '.py')) === 'file') return this.moduleFile(dir, rest);
      const up = dirname(dir);
      if (up === dir) break;
      dir = up;
    }
    const base = this.locate(top);
    return base ? this.moduleFile(base, rest) : undefined;
  }

  /** Python modules under root as dotted paths, for completion (bounded walk). */
  listModules(root: string, limit = 3000): string[] {
    const out: string[] = [];
    const skip = new Set([
      'node_modules',
      '__pycache__',
      'site-packages',
      'saved_experiments',
      'launcher_record',
      'saved_checkpoints',
      'dist',
      'build',
    ]);
    const walk = (dir: string, prefix: string, depth: number) => {
      if (depth > 5 || out.length >= limit) return;
      for (const name of this.fs.list(dir).sort()) {
        if (name.startsWith('.') || skip.has(name) || out.length >= limit) continue;
        const p = join(dir, name);
        if (name.endsWith('.py')) {
          const m = name === '__init__.py' ? prefix : prefix ? `${prefix}.${name.slice(0, -3)}` : name.slice(0, -3);
          if (m && /^[A-Za-z_][\w.]*$/.test(m)) out.push(m);
        } else if (/^[A-Za-z_]\w*$/.test(name) && this.fs.kind(p) === 'dir') {
          walk(p, prefix ? `${prefix}.${name}` : name, depth + 1);
        }
      }
    };
    walk(root, '', 0);
    return [...new Set(out)];
  }
}
