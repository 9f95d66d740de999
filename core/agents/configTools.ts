// The agent tools about configs: lint (config/lintPaths) and explain a key (the schema of the
// AgentJet that judges the file).
import { t } from '../l10n';
import { readInside, RefusedPathError } from '../fs/inside';
import { lintPaths } from '../config/lintPaths';
import { parseConfig } from '../config/parse';
import { typesOf, resolveRef, type ConfigSchema } from '../config/schema';
import { schemaForPath, describeKey } from '../config/context';
import { AgentJetFactsService, defaultCacheDir as defaultFactsCacheDir } from '../config/agentjetFacts';
import { bundledReleases } from '../config/releases';
import { VALUE_SOURCES } from '../config/codefacts';
import { FRAMEWORK_VERSIONS } from '../agentjet/dialect';
import { WorkspaceTrust } from '../trust/policy';
import { ToolError, str, PAGE, pathArg, json, shown, insideRoots, fittedPage, type AgentTool, type AgentToolEnv } from './toolkit';

export const lintTool: AgentTool = {
  name: 'agentjet_lint',
  title: 'Lint AgentJet configs',
  description:
    "Checks an AgentJet/ASTuner YAML config, or every config in a folder, the way the editor does: each diagnostic with its 1-based line and column, severity, code, message and quick fixes, and which AgentJet judged the file (the user's checkout or installed package, else bundled facts of a release). Runs the workspace's interpreter only when one was handed in (a trusted workspace, agentjet mcp --python), to ask where packages are installed; nothing is imported.",
  inputSchema: {
    type: 'object',
    properties: {
      path: pathArg('A config file or a folder, relative to the workspace root or absolute.'),
      ...PAGE,
    },
    required: ['path'],
    additionalProperties: false,
  },
  runsWorkspaceCode: 'if-given',
  network: false,
  async run(args, env, signal) {
    const target = await insideRoots(env, str(args, 'path'));
    const root = env.roots[0]!;
    const python = env.mayRunPython ? await env.python?.() : undefined;
    const res = await lintPaths([target], {
      root,
      runPython: env.mayRunPython,
      ...(python ? { python } : {}),
      ...(env.factsCacheDir ? { factsCacheDir: env.factsCacheDir } : {}),
      ...(signal ? { signal } : {}),
      // A folder walk follows links: a file whose real path leaves the roots is neither read nor counted.
      within: env.roots,
    });
    const all = res.files.flatMap((f) =>
      f.diagnostics.map((d) => ({
        file: shown(env, f.file),
        line: d.range.start.line + 1,
        column: d.range.start.character + 1,
        endLine: d.range.end.line + 1,
        endColumn: d.range.end.character + 1,
        severity: d.severity,
        code: d.code,
        message: d.message,
        ...(d.fixes?.length ? { quickFixes: d.fixes.map((x) => ({ title: x.title, newText: x.newText })) } : {}),
      })),
    );
    return fittedPage(all, args, 100, (p) =>
      json({
        judgedBy: res.judgedBy,
        configsChecked: res.checked,
        errors: res.errors,
        warnings: res.warnings,
        ...(res.checked === 0
          ? { note: t('no AgentJet/ASTuner config (a YAML file whose root has ajet:, astuner: or astune:) at {0}', shown(env, target)) }
          : {}),
        diagnostics: p.items,
        ...(p.total > p.items.length ? { total: p.total, offset: p.offset } : {}),
        ...(p.note ? { more: p.note } : {}),
        ...(res.special.length ? { skipped: res.special.map((f) => t('{0}: skipped, not a regular file', shown(env, f))) } : {}),
        ...(res.unreadable.length ? { unreadable: res.unreadable.map((u) => ({ file: shown(env, u.file), error: u.error })) } : {}),
      }),
    );
  },
};

// ---------------------------------------------------------------- explain a key

const ROOT_KEYS = ['ajet', 'astuner', 'astune'];

interface Judge {
  schema: ConfigSchema;
  label: string;
  dialect: 'agentjet' | 'astuner';
}

/**
 * Who judges a key: with a config, the facts that judge that file (its folder's AgentJet, else the
 * bundled release that fits it); without, the folder's AgentJet, else every bundled release, newest first.
 */
async function judges(env: AgentToolEnv, configPath: string | undefined): Promise<Judge[]> {
  const root = env.roots[0]!;
  const python = env.mayRunPython ? await env.python?.() : undefined;
  // Only an interpreter handed in may be asked; without one a checkout or the bundled facts judge.
  const service = new AgentJetFactsService({
    cacheDir: env.factsCacheDir ?? defaultFactsCacheDir(),
    trust: new WorkspaceTrust(python !== undefined),
  });
  service.setFolder(root, python);
  const own = await service.ready(root);
  if (configPath) {
    // Checked again where it is opened: a link swapped in since insideRoots is not followed.
    const read = await readInside(configPath, env.roots, 2 * 1024 * 1024 + 1).catch((err: unknown) => {
      if (err instanceof RefusedPathError && err.code === 'ENOTREG') throw new ToolError(t('{0} is not a file', shown(env, configPath)));
      throw err;
    });
    const text = read.size <= 2 * 1024 * 1024 ? read.bytes.toString('utf8') : '';
    const p = parseConfig(text);
    const facts = service.factsFor(root, p);
    return [{ schema: facts.schema, label: facts.label, dialect: p.dialect }];
  }
  if (own) return [{ schema: own.schema, label: own.label, dialect: 'agentjet' }];
  return bundledReleases().map((f) => ({ schema: f.schema, label: f.label, dialect: 'agentjet' as const }));
}

export const explainKeyTool: AgentTool = {
  name: 'agentjet_explain_key',
  title: 'Explain an AgentJet config key',
  description:
    "Explains one config key (e.g. `ajet.rollout.max_env_len` or `rollout.max_env_len`): description, type, default, allowed values (per framework version when they differ), the defaults file and code that read it, the verl keys it is converted to, and which AgentJet/ASTuner versions read it. With `path`, the config's own AgentJet and dialect judge. Runs the workspace's interpreter only when one was handed in, to ask where AgentJet is installed; nothing is imported.",
  inputSchema: {
    type: 'object',
    properties: {
      key: { type: 'string', minLength: 1, maxLength: 300, description: 'Dotted key path, with or without the ajet./astuner. root.' },
      path: pathArg('Optional: the config file the key is in.'),
    },
    required: ['key'],
    additionalProperties: false,
  },
  runsWorkspaceCode: 'if-given',
  network: false,
  async run(args, env) {
    const configPath = str(args, 'path') !== undefined ? await insideRoots(env, str(args, 'path')) : undefined;
    const raw = (str(args, 'key') ?? '').trim();
    const parts = raw.split('.').filter((s) => s !== '');
    if (parts.length && ROOT_KEYS.includes(parts[0]!)) parts.shift();
    if (!parts.length) throw new ToolError(t('name a key under the root, e.g. rollout.max_env_len'));
    const all = await judges(env, configPath);
    const key = parts.join('.');
    const rootKeyOf = (j: Judge) => (j.dialect === 'astuner' && j.schema.properties?.astuner ? 'astuner' : 'ajet');
    const judge = all.find((j) => schemaForPath([rootKeyOf(j), ...parts], j.schema) !== undefined);
    if (!judge) {
      const first = all[0]!;
      const parent = schemaForPath([rootKeyOf(first), ...parts.slice(0, -1)], first.schema);
      const siblings = Object.keys(resolveRef(parent ?? {}, first.schema).properties ?? {}).slice(0, 60);
      throw new ToolError(
        t(
          '{0} judges no key {1}. Keys at that level: {2}',
          all.map((j) => j.label).join('; '),
          key,
          siblings.length ? siblings.join(', ') : '-',
        ),
      );
    }
    const { schema, label, dialect } = judge;
    const rootKey = rootKeyOf(judge);
    const node = schemaForPath([rootKey, ...parts], schema)!;
    const r = resolveRef(node, schema);
    const versions = FRAMEWORK_VERSIONS.filter((v) => (schema['x-versionKeys']?.[v] ?? []).includes(key));
    const verl = schema['x-release']?.verlConversions?.[key];
    const compared = VALUE_SOURCES.filter((s) => s.key === key).map(
      (s) => `${s.file} (${'name' in s ? s.name : 'registry' in s ? s.registry : s.decorator})`,
    );
    return json({
      key: `${rootKey}.${key}`,
      judgedBy: label,
      type: typesOf(r),
      ...(r.default !== undefined ? { default: r.default } : {}),
      ...(r.enum ? { allowed: r.enum } : {}),
      ...(r['x-enumByVersion'] ? { allowedByVersion: r['x-enumByVersion'] } : {}),
      ...(r['x-source'] ? { defaultsFile: r['x-source'] } : {}),
      ...(compared.length ? { valueCheckedIn: compared } : {}),
      ...(verl?.length ? { convertedToVerlKeys: verl } : {}),
      readByVersions: versions,
      ...(r.deprecated ? { deprecated: r['x-deprecatedMessage'] ?? true } : {}),
      ...(r['x-renamedTo'] ? { renamedTo: r['x-renamedTo'] } : {}),
      ...(r['x-movedTo'] ? { movedTo: r['x-movedTo'] } : {}),
      ...(r['x-unread'] ? { unread: r['x-unread'] } : {}),
      ...(r.properties ? { childKeys: Object.keys(r.properties).slice(0, 80) } : {}),
      description: describeKey([rootKey, ...parts], node, dialect, schema),
    });
  },
};
