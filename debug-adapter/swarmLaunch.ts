// The launch of a swarm client (`swarmClient`): the swarm server checked first (its state in the
// Debug Console), then `python <client.py>` under debugpy, or without it.
import { OutputEvent } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { mergedEnv } from '../core/launch/attributes';
import { checkSwarmServer, planSwarmClient, swarmClientCommand, type SwarmClientAttributes } from '../core/launch/swarmClient';
import { statusText } from '../core/swarm/format';
import { shellCommand } from '../core/process/quote';
import { LAUNCH_ERRORS } from '../core/protocol/debug';
import { t } from '../core/l10n';
import type { LaunchHost } from './host';
import { startWithoutDebugger } from './noDebug';
import { startUnderDebugpy } from './launch';

const ERR = LAUNCH_ERRORS;

/** `swarmClient`: the server checked first (its state in the Debug Console), then `python <client.py>` under debugpy. */
export async function launchSwarmClient(s: LaunchHost, request: DebugProtocol.Request, a: SwarmClientAttributes): Promise<void> {
  const planned = planSwarmClient(a);
  if (!planned.ok) {
    s.fail(request, ERR.args, planned.message);
    return;
  }
  const r = planned.launch;
  s.launch = r;
  s.procs.launch = r;
  const owner = s.procs.owner;
  const env = mergedEnv(r);
  owner.check('plan');
  // debugpy's adapter starts while the server is asked (it ends again if the server is not there).
  const adapterReady = r.noDebug ? undefined : s.relay.spawn(r, env);
  if (r.url) {
    const url = r.url;
    const checked = await owner.step('preflight', () => checkSwarmServer(url));
    if (!checked.ok) {
      if (adapterReady) await s.procs.killDebugpy();
      s.fail(request, ERR.preflight, checked.message);
      return;
    }
    s.sendEvent(new OutputEvent(`AgentJet: ${statusText(checked.status)}`, 'console'));
  } else {
    s.sendEvent(
      new OutputEvent(
        `AgentJet: ${t('no swarm server URL found (no "swarmUrl", no AJET_SWARM_URL, no SwarmClient("http://…") in the script): the server was not checked.')}\n`,
        'important',
      ),
    );
  }
  const cmd = swarmClientCommand(r);
  s.record.command = [cmd.command, ...cmd.args];
  s.sendEvent(
    new OutputEvent(
      `AgentJet: ${shellCommand(s.record.command)}  (cwd ${r.cwd}${r.envFile ? `, env from ${r.envFile}` : ''})\n`,
      'console',
    ),
  );
  if (r.noDebug || !adapterReady) startWithoutDebugger(s, request, r, cmd.command, cmd.args, env);
  else {
    const init = await owner.step('debugpy', () => adapterReady);
    await startUnderDebugpy(s, request, r, { kind: 'script', path: r.script }, r.args, init, null);
  }
}
