// "Debug this task": from one rollout's task id to a debug-backbone launch restricted to that task.
// The run's config (its yaml_backup.yaml, or the current config) is copied into a DERIVED config
// beside the run, never edited in place: its task reader becomes a one-line JSONL file holding that
// task (for JSONL and Hugging Face readers), num_repeat is the user's, debug_first_n_tasks is 1 and
// the experiment is named after the derived file (read_yaml_name), so the new run is a new folder.
// AgentJet's debug backbone (ajet/backbone/main_vllm.py) reads the *validation* tasks, so both splits
// point at the one-task file. Readers where one task cannot be picked (env_service, data_generation,
// random_dummy, tracing, ...) are refused with the reason, before anything starts.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { fileProblem, searchJsonlTask, uniqueNamePart } from './dataset';
import { ProcessError, runProcess } from '../process/run';
import { parseDocument, isMap, type Document } from 'yaml';
import { t } from '../l10n';

export const SELECTABLE_READERS = ['jsonl_dataset_file', 'huggingface_dat_repo'] as const;

export interface ReaderInfo {
  /** `ajet` or `astuner`. */
  root: string;
  type: string | undefined;
  selectable: boolean;
  /** Why one task cannot be selected, when it cannot. */
  why: string | undefined;
}

function rootKey(doc: Document): string | undefined {
  const c = doc.contents;
  if (!isMap(c)) return undefined;
  for (const k of ['ajet', 'astuner']) if (c.has(k)) return k;
  return undefined;
}

/** Which task reader the config uses and whether "Debug this task" can restrict it to one task. */
export function readerInfo(configText: string): ReaderInfo {
  const doc = parseDocument(configText);
  const root = rootKey(doc) ?? 'ajet';
  const type = doc.getIn([root, 'task_reader', 'type']);
  const ty = typeof type === 'string' ? type : undefined;
  const selectable = !!ty && (SELECTABLE_READERS as readonly string[]).includes(ty);
  return {
    root,
    type: ty,
    selectable,
    why: selectable
      ? undefined
      : t(
          'The task reader "{0}" gives no way to run one chosen task (only jsonl_dataset_file and huggingface_dat_repo can be restricted); the debug run would take the reader\'s first tasks instead.',
          ty ?? '?',
        ),
  };
}

export interface DebugTaskRequest {
  /** The config to start from: the run's yaml_backup.yaml, or the current config. */
  sourceConfig: string;
  /** The launcher's working directory: relative paths of the config resolve here. */
  cwd: string;
  taskId: string;
  /** num_repeat for the debug run (default 1). */
  numRepeat?: number;
  /** Folder for the derived config and task file (beside the run). */
  outDir: string;
  /** Interpreter that can import `datasets` (Hugging Face readers only). */
  python?: string;
  /** The run the rollout came from, recorded in the link file. */
  sourceRun?: string;
  now?: Date;
}

export type PrepareResult =
  | {
      ok: true;
      config: string;
      taskFile: string;
      /** The JSON line written for the task. */
      task: Record<string, unknown>;
      reader: string;
      /** The experiment name read_yaml_name will give (prefix; the launcher adds the time). */
      configStem: string;
      link: string;
    }
  | { ok: false; code: 'reader' | 'not-found' | 'no-ids' | 'unreadable'; message: string };

/** Finds the record whose task_id is `id` in JSONL files (streamed, first match wins). */
export async function findJsonlTask(
  files: readonly string[],
  id: string,
): Promise<{ record: Record<string, unknown> | undefined; anyIds: boolean; problem?: string }> {
  const r = await searchJsonlTask(files, id);
  if (r.found) return { record: r.found, anyIds: true };
  if ('problem' in r) return { record: undefined, anyIds: false, problem: r.problem };
  return { record: undefined, anyIds: r.anyIds };
}

const HF_EXPORT = `
import json, sys
import datasets
path, name, split, idx = sys.argv[1], sys.argv[2] or None, sys.argv[3], int(sys.argv[4])
if path.endswith(".parquet"):
    ds = datasets.load_dataset("parquet", data_files=path, split=split)
else:
    ds = datasets.load_dataset(path, split=split, name=name)
print("AGENTJET_TASK " + json.dumps(dict(ds[idx]), default=str))
`;

/** Row `idx` of a Hugging Face split, through the user's interpreter (AgentJet's task_id is the row index). */
async function hfRow(
  python: string,
  path: string,
  name: string,
  split: string,
  idx: number,
  cwd: string,
): Promise<Record<string, unknown> | string> {
  let stdout: string, why: string;
  try {
    const r = await runProcess(python, ['-c', HF_EXPORT, path, name, split, String(idx)], { cwd, timeoutMs: 300_000 });
    stdout = r.stdout;
    why = r.stderr || 'no output';
  } catch (err) {
    stdout = err instanceof ProcessError ? err.stdout : '';
    why = err instanceof ProcessError ? err.stderr || err.message : String(err);
  }
  const line = stdout.split('\n').find((l) => l.startsWith('AGENTJET_TASK '));
  if (line) {
    try {
      return JSON.parse(line.slice('AGENTJET_TASK '.length)) as Record<string, unknown>;
    } catch {
      /* fall through */
    }
  }
  return why.trim().split('\n').slice(-3).join(' ');
}

/** Writes the derived config and the one-task file; the user's files are only read. */
export async function prepareDebugTask(req: DebugTaskRequest): Promise<PrepareResult> {
  let text: string;
  const bad = fileProblem(req.sourceConfig);
  if (bad) return { ok: false, code: 'unreadable', message: bad };
  try {
    text = readFileSync(req.sourceConfig, 'utf8');
  } catch (e) {
    return { ok: false, code: 'unreadable', message: t('Cannot read {0}: {1}', req.sourceConfig, String(e)) };
  }
  const info = readerInfo(text);
  if (!info.selectable) return { ok: false, code: 'reader', message: info.why! };
  const doc = parseDocument(text);
  const R = info.root;
  const abs = (p: unknown): string | undefined => (typeof p === 'string' && p ? (isAbsolute(p) ? p : resolve(req.cwd, p)) : undefined);
  let task: Record<string, unknown>;
  if (info.type === 'jsonl_dataset_file') {
    const files = [
      abs(doc.getIn([R, 'task_reader', 'jsonl_dataset_file', 'training', 'file_path'])),
      abs(doc.getIn([R, 'task_reader', 'jsonl_dataset_file', 'validation', 'file_path'])),
    ].filter((f): f is string => !!f);
    if (!files.length)
      return {
        ok: false,
        code: 'unreadable',
        message: t('The config names no dataset file (task_reader.jsonl_dataset_file.training.file_path).'),
      };
    const found = await findJsonlTask([...new Set(files)], req.taskId);
    if (found.problem) return { ok: false, code: 'unreadable', message: t('The dataset cannot be read: {0}', found.problem) };
    if (!found.record) {
      return found.anyIds
        ? { ok: false, code: 'not-found', message: t('No task with task_id "{0}" in {1}.', req.taskId, files.join(', ')) }
        : {
            ok: false,
            code: 'no-ids',
            message: t(
              'The records of {0} have no task_id, so AgentJet gives every task the same empty id: one task cannot be picked.',
              files.join(', '),
            ),
          };
    }
    task = found.record;
  } else {
    const idx = Number(req.taskId);
    if (!/^\d+$/.test(req.taskId) || !Number.isSafeInteger(idx))
      return { ok: false, code: 'not-found', message: t('A Hugging Face reader names tasks by row number; "{0}" is not one.', req.taskId) };
    const hf = [R, 'task_reader', 'huggingface_dat_repo'];
    const rawPath = doc.getIn([...hf, 'dataset_path']);
    const path =
      typeof rawPath === 'string' && (rawPath.startsWith('.') || existsSync(resolve(req.cwd, rawPath)))
        ? abs(rawPath)!
        : String(rawPath ?? '');
    const name = String(doc.getIn([...hf, 'dataset_name']) ?? '');
    let row: Record<string, unknown> | string = 'no split';
    for (const splitKey of ['training_split', 'validation_split']) {
      const split = doc.getIn([...hf, splitKey]);
      if (typeof split !== 'string') continue;
      row = await hfRow(req.python ?? 'python3', path, name, split, idx, req.cwd);
      if (typeof row !== 'string') break;
    }
    if (typeof row === 'string')
      return { ok: false, code: 'not-found', message: t('Row {0} of {1} could not be read: {2}', req.taskId, path, row) };
    // As AgentJet's HuggingFaceTaskReader builds the task from a row.
    task = { task_id: req.taskId, main_query: row.main_query ?? row.question ?? 'Empty', metadata: row };
  }
  mkdirSync(req.outDir, { recursive: true });
  // Named after the run for a snapshot (yaml_backup.yaml), else after the config: the new run is `<stem>_<time>`.
  const base = req.sourceConfig.replace(/^.*[\\/]/, '').replace(/\.ya?ml$/i, '');
  const from = base === 'yaml_backup' ? (req.sourceRun?.replace(/[\\/]+$/, '').replace(/^.*[\\/]/, '') ?? 'debug') : base;
  // Unique per task id: a name cut or changed by sanitising carries a hash of the original.
  const stem = `${uniqueNamePart(from)}_task_${uniqueNamePart(req.taskId)}`;
  const taskFile = join(req.outDir, `${stem}.jsonl`);
  writeFileSync(taskFile, `${JSON.stringify(task)}\n`);
  doc.setIn([R, 'task_reader', 'type'], 'jsonl_dataset_file');
  doc.setIn([R, 'task_reader', 'jsonl_dataset_file', 'training', 'file_path'], taskFile);
  doc.setIn([R, 'task_reader', 'jsonl_dataset_file', 'validation', 'file_path'], taskFile);
  doc.setIn([R, 'rollout', 'num_repeat'], Math.max(1, Math.floor(req.numRepeat ?? 1)));
  doc.setIn([R, 'debug', 'debug_first_n_tasks'], 1);
  doc.setIn([R, 'experiment_name'], 'read_yaml_name');
  // A snapshot names the old run's folder: the new run must get its own.
  if (doc.hasIn([R, 'experiment_dir'])) doc.setIn([R, 'experiment_dir'], 'auto');
  const config = join(req.outDir, `${stem}.yaml`);
  doc.commentBefore = ` Derived by AgentJet for VS Code ("Debug this task"): ${req.sourceConfig}, task ${req.taskId} only.${doc.commentBefore ? `\n${doc.commentBefore}` : ''}`;
  writeFileSync(config, doc.toString());
  const link = join(req.outDir, `${stem}.link.json`);
  writeFileSync(
    link,
    `${JSON.stringify({ sourceRun: req.sourceRun, sourceConfig: req.sourceConfig, taskId: req.taskId, numRepeat: req.numRepeat ?? 1, config, taskFile, createdAt: (req.now ?? new Date()).toISOString() }, null, 2)}\n`,
  );
  return { ok: true, config, taskFile, task, reader: info.type!, configStem: stem, link };
}

/** The folder for derived files: beside the run (`<run>/debug-tasks`), else `<cwd>/.agentjet-vscode/debug-tasks`. */
export function debugTaskDir(run: string | undefined, cwd: string): string {
  return run ? join(run, 'debug-tasks') : join(cwd, '.agentjet-vscode', 'debug-tasks');
}
