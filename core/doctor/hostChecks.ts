// The doctor's checks of the host around Python: the launcher a launch would run, who holds the
// vLLM port, the NVIDIA GPUs, and workspace trust (pure; evaluate in checks.ts calls them).
import { t } from '../l10n';
import { LAUNCHER_ENTRIES } from '../agentjet/dialect';
import { recognisePortHolder } from '../agentjet/portHolder';
import { pythonSetting, type Check, type DoctorInput, type GpuFacts, type ProbeFacts, type LaunchContext } from './facts';

export function launcherCheck(
  py: string,
  found: NonNullable<ProbeFacts['launchers']>,
  launch: LaunchContext | undefined,
  framework: string | undefined,
): Check {
  const candidates =
    launch?.candidates ?? LAUNCHER_ENTRIES[framework === 'astuner' ? 'astuner' : framework === 'astune' ? 'astune' : 'ajet'].modules;
  if (launch?.consoleScript)
    return { id: 'launcher', title: t('Launcher'), status: 'ok', detail: t('{0} (console script)', launch.consoleScript) };
  const module = candidates.find((c) => found[c]?.file);
  if (module) return { id: 'launcher', title: t('Launcher'), status: 'ok', detail: `python -m ${module} (${found[module]!.file!})` };
  const why = [...new Set(candidates.map((c) => found[c]?.error).filter((e): e is string => !!e))].join('; ');
  return {
    id: 'launcher',
    title: t('Launcher'),
    status: 'error',
    detail:
      t(
        '{0} has no AgentJet launcher: no console script beside it and it cannot import {1}{2}. Install the framework into this interpreter (for AgentJet: pip install -e .[verl] in its checkout, as its installation guide says) or pick another one with the agentjet.pythonPath setting.',
        py,
        candidates.join(', '),
        why ? ` (${why})` : '',
      ) +
      // ASTune's launcher is `launcher.py` at the root of its checkout, in no package.
      (candidates.includes('launcher')
        ? ` ${t('ASTune runs its launcher.py from the root of its checkout: launch with the checkout as the working directory ("cwd" in launch.json).')}`
        : ''),
    fix: pythonSetting(),
  };
}

export function portCheck(port: ProbeFacts['port'], input: DoctorInput): Check {
  const key = input.launch?.portKey ?? 'ajet.debug.debug_vllm_port';
  if (!port.inUse) return { id: 'port', title: t('vLLM port'), status: 'ok', detail: t('Port {0} is free.', port.port) };
  const pgids = input.launch?.companionPgids ?? [];
  const ours = input.portHeldByCompanion || (port.holderPgid != null ? pgids.includes(port.holderPgid) : pgids.length > 0);
  if (ours)
    return {
      id: 'port',
      title: t('vLLM port'),
      status: 'ok',
      detail: t('Port {0} is held by the vLLM server a previous debug launch left running (it is reused).', port.port),
    };
  const theirs =
    input.portCompanion !== undefined
      ? input.portCompanion
      : port.holderPid != null
        ? recognisePortHolder({ pid: port.holderPid, pgid: port.holderPgid, args: port.holderArgs })
        : undefined;
  if (theirs) {
    const where = theirs.cwd ?? t('another folder');
    if (input.launch?.reusePgids?.includes(theirs.pgid))
      return {
        id: 'port',
        title: t('vLLM port'),
        status: 'ok',
        detail: t(
          "Port {0} is held by AgentJet's companion {1} (process group {2}) started in {3}: this launch reuses it.",
          port.port,
          theirs.what,
          theirs.pgid,
          where,
        ),
      };
    return {
      id: 'port',
      title: t('vLLM port'),
      status: input.launch ? 'error' : 'warning',
      detail: t(
        "port {0} ({1}) is held by AgentJet's own companion {2} (process {3}, group {4}) started in {5}. AgentJet's launcher keeps a companion per folder and starts its own here: stop that one (kill -- -{4}) or set {1} to a free port.",
        port.port,
        key,
        theirs.what,
        theirs.pid,
        theirs.pgid,
        where,
      ),
      // The launch refusal offers Stop It and Launch (extension/debug/provider.ts).
    };
  }
  const who =
    port.holderPid != null ? `${t('process {0}', port.holderPid)}${port.holderArgs ? ` (${port.holderArgs})` : ''}` : t('another program');
  // A debug launch would start its vLLM server on this port: an error there; for the doctor a warning.
  return {
    id: 'port',
    title: t('vLLM port'),
    status: input.launch ? 'error' : 'warning',
    detail: t('port {0} ({1}) is held by {2}, which is not an AgentJet companion. Stop it or set {1} to a free port.', port.port, key, who),
    fix: { kind: 'command', value: 'agentjet.stopCompanions', label: t('Stop companions') },
  };
}

export function gpuCheck(g: GpuFacts): Check {
  if (!g.available)
    return {
      id: 'gpu',
      title: t('CUDA GPUs'),
      status: 'info',
      detail: t(
        'No NVIDIA GPU seen ({0}). Debugging with a remote or API model still works; training needs GPUs.',
        g.error ?? t('nvidia-smi not found'),
      ),
    };
  if (g.gpus.length === 0)
    return { id: 'gpu', title: t('CUDA GPUs'), status: 'warning', detail: t('nvidia-smi answered but lists no GPU.') };
  const list = g.gpus.map((x) => (x.memoryMiB ? `${x.name} (${Math.round(x.memoryMiB / 1024)} GiB)` : x.name)).join(', ');
  return { id: 'gpu', title: t('CUDA GPUs'), status: 'ok', detail: t('{0} GPU(s): {1}', g.gpus.length, list) };
}

export function trustCheck(trusted: boolean): Check {
  return trusted
    ? {
        id: 'trust',
        title: t('Workspace trust'),
        status: 'ok',
        detail: t('The workspace is trusted: launching and debugging are enabled.'),
      }
    : {
        id: 'trust',
        title: t('Workspace trust'),
        status: 'error',
        detail: t('The workspace is not trusted: launching, debugging and training are disabled.'),
        fix: { kind: 'command', value: 'workbench.trust.manage', label: t('Manage Workspace Trust') },
      };
}

/** Parses `nvidia-smi --query-gpu=name,memory.total --format=csv,noheader,nounits`. */
export function parseNvidiaSmi(stdout: string): GpuFacts['gpus'] {
  return stdout
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const i = l.lastIndexOf(',');
      const mem = i >= 0 ? Number.parseFloat(l.slice(i + 1)) : Number.NaN;
      return { name: (i >= 0 ? l.slice(0, i) : l).trim(), memoryMiB: Number.isNaN(mem) ? null : mem };
    });
}
