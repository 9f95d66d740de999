// Run Without Debugging (`noDebug`): the same command without debugpy, its output ours to show and
// read; the session ends with the launcher (its tree going with it, companions aside).
import type { ChildProcess } from 'node:child_process';
import { Event, InitializedEvent, TerminatedEvent, ExitedEvent } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { type ResolvedLaunch } from '../core/launch/attributes';
import { LAUNCH_ERRORS } from '../core/protocol/debug';
import { t } from '../core/l10n';
import { trace } from './debugpy';
import { LaunchStopped } from '../core/launch/owner';
import { signalExitCode } from '../core/launch/launcherRun';
import type { LaunchHost } from './host';

const ERR = LAUNCH_ERRORS;

export function startWithoutDebugger(
  s: LaunchHost,
  request: DebugProtocol.Request,
  r: ResolvedLaunch,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): void {
  let child: ChildProcess;
  const owner = s.procs.owner;
  owner.check('launcher');
  s.record.startedAt = Date.now();
  try {
    child = owner.spawn(command, ['-u', ...args], { cwd: r.cwd, env });
  } catch (e) {
    if (e instanceof LaunchStopped) throw e;
    s.fail(request, ERR.start, t('Could not start {0}: {1}', r.python, (e as Error).message));
    return;
  }
  owner.running();
  s.procs.launcher = child;
  s.record.setPid(child.pid);
  child.stdout?.on('data', (b: Buffer) => s.onOutput(b.toString(), 'stdout', true));
  child.stderr?.on('data', (b: Buffer) => s.onOutput(b.toString(), 'stderr', true));
  child.on('error', (e) => s.onOutput(`AgentJet: ${e.message}\n`, 'stderr', true));
  let ended = false;
  const onEnd = (code: number | null, sig: NodeJS.Signals | null) => {
    if (ended) return;
    ended = true;
    s.record.exitCode = code ?? (sig ? signalExitCode(sig) : 1);
    if (sig) s.record.exitSignal = sig;
    void s.finish().then(() => {
      s.sendEvent(new ExitedEvent(s.record.exitCode ?? 1));
      s.sendEvent(new TerminatedEvent());
    });
  };
  child.on('close', onEnd);
  // The launcher is gone but its pipes stay open: a child of it (killed launcher, or one that
  // outlived it) still holds them. The launch's tree goes with its launcher (companions aside),
  // and the session ends now rather than when that child does.
  child.on('exit', (code, sig) => {
    setTimeout(() => {
      if (ended) return;
      trace('launcher exited with its pipes still held: ending the rest of its tree');
      void s.procs.cleanup(false).finally(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        onEnd(code, sig);
      });
    }, 500).unref();
  });
  if (child.pid) {
    s.sendEvent(new Event('process', { name: r.config, systemProcessId: child.pid, isLocalProcess: true, startMethod: 'launch' }));
  }
  s.reply(request);
  s.sendEvent(new InitializedEvent());
}
