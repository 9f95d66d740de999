// The trust boundary (core/trust/policy.ts) and the config service honouring it: in Restricted Mode
// no interpreter runs (neither the folder's .venv nor the fallback python3), references that need
// installed packages say so as information; on grant the probe runs and the references resolve.
// Also issue 29's first-hour item: a .venv nobody chose that lacks `ajet` leaves built-ins unchecked,
// as information, while an interpreter the user set still gets the error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { URI } from 'vscode-uri';
import { readInitialTrust, readTrustGrant } from '../../core/protocol/config';
import { WorkspaceTrust, type TrustedWork } from '../../core/trust/policy';
import { ConfigService } from '../../core/config/service';
import { AgentJetFactsService } from '../../core/config/agentjetFacts';
import { parseConfig } from '../../core/config/parse';
import { hover } from '../../core/config/features';
import { restrictedChecks } from '../../core/doctor/restricted';
import { toMarkdown } from '../../core/doctor/report';
import { waitFor } from '../util/poll';
import { fc, check } from '../util/fc';

const WORK: TrustedWork[] = ['resolve-interpreter', 'probe-packages', 'run-process'];

test('policy: nothing that needs trust is allowed before the grant, everything after; listeners run once', () => {
  const trust = new WorkspaceTrust(false);
  for (const w of WORK) assert.equal(trust.allows(w), false, w);
  let calls = 0;
  trust.onGrant(() => calls++);
  const gone = trust.onGrant(() => calls++);
  gone.dispose();
  trust.grant();
  trust.grant();
  assert.equal(calls, 1);
  for (const w of WORK) assert.equal(trust.allows(w), true, w);
  // Subscribing once trusted never calls back: the caller is already free to act.
  trust.onGrant(() => calls++);
  assert.equal(calls, 1);
  assert.ok(new WorkspaceTrust(true).allows('run-process'));
});

test('protocol: only an explicit true starts trusted or grants; missing or malformed is not trusted', () => {
  assert.equal(readInitialTrust({ trusted: true }), true);
  for (const v of [undefined, null, {}, { trusted: false }, { trusted: 'true' }, { trusted: 1 }, 'x', [true]])
    assert.equal(readInitialTrust(v), false, JSON.stringify(v));
  check(
    fc.property(
      fc.anything().filter((v) => !(v && typeof v === 'object' && (v as { trusted?: unknown }).trusted === true)),
      (v) => readInitialTrust(v) === false,
    ),
    500,
  );
  assert.equal(readTrustGrant({ trusted: true }), true);
  // No other notification grants trust.
  check(
    fc.property(
      fc.anything().filter((v) => !(v && typeof v === 'object' && (v as { trusted?: unknown }).trusted === true)),
      (v) => readTrustGrant(v) === false,
    ),
    500,
  );
});

/** A folder like a stranger's: a config using AgentJet's own judge, and a .venv/bin/python that leaves a marker. */
function strangerFolder(withAjet: boolean) {
  const dir = mkdtempSync(join(tmpdir(), 'agentjet-trust-'));
  const ws = join(dir, 'ws');
  const site = join(dir, 'site');
  mkdirSync(join(ws, '.venv', 'bin'), { recursive: true });
  mkdirSync(join(site, 'ajet', 'task_judge'), { recursive: true });
  writeFileSync(join(site, 'ajet', '__init__.py'), '');
  writeFileSync(join(site, 'ajet', 'task_judge', '__init__.py'), '');
  writeFileSync(join(site, 'ajet', 'task_judge', 'env_service_as_judge.py'), 'class EnvServiceJudge:\n    pass\n');
  const marker = join(dir, 'ran.log');
  const script = (name: string, path: string) => {
    writeFileSync(
      path,
      `#!/bin/sh\nprintf '%s\\n' '${name}' >> '${marker}'\n${withAjet ? `PYTHONPATH='${site}' ` : ''}exec python3 "$@"\n`,
    );
    chmodSync(path, 0o755);
    return path;
  };
  const venv = script('venv', join(ws, '.venv', 'bin', 'python'));
  const fallback = script('fallback', join(dir, 'python3-on-path'));
  writeFileSync(join(ws, 'my_workflow.py'), 'class MyWorkflow:\n    pass\n');
  const text = [
    'ajet:',
    '  project_name: t',
    '  task_judge:',
    '    judge_protocol: ajet.task_judge.env_service_as_judge->EnvServiceJudge',
    '  rollout:',
    '    user_workflow: my_workflow->MyWorkflow',
    '',
  ].join('\n');
  writeFileSync(join(ws, 'c.yaml'), text);
  return { dir, ws, site, marker, venv, fallback, text, ran: () => (existsSync(marker) ? readFileSync(marker, 'utf8') : '') };
}

test('config service in Restricted Mode: no interpreter runs; the built-in reference waits for trust, as information; the grant probes and resolves it', async () => {
  const f = strangerFolder(true);
  let answers = 0;
  const trust = new WorkspaceTrust(false);
  const svc = new ConfigService({
    roots: [f.ws],
    trust,
    onInterpreterAnswer: () => answers++,
    agentjet: { cacheDir: '', fallbackPython: f.fallback },
  });
  try {
    const file = join(f.ws, 'c.yaml');
    const uri = URI.file(file).toString();
    // The shell chooses no interpreter in Restricted Mode (language-server/folders.ts); even one set
    // here is not run while the workspace is untrusted.
    svc.setInterpreter(f.ws, f.venv, false);
    const before = svc.diagnose(uri, 1, f.text, file);
    const waits = before.diagnostics.filter((d) => d.code === 'class-ref/waits-for-trust');
    assert.equal(waits.length, 1, JSON.stringify(before.diagnostics));
    assert.equal(waits[0]!.severity, 'information');
    assert.match(waits[0]!.message, /installed packages are checked once you trust this folder/);
    assert.ok(!before.diagnostics.some((d) => d.severity === 'error'), JSON.stringify(before.diagnostics));
    const p = parseConfig(f.text);
    const at = f.text.indexOf('ajet.task_judge');
    const h = hover(p, at + 2, { ...svc.context(file), facts: svc.factsFor(file, p) });
    assert.match(h?.markdown ?? '', /\[Trust this folder…\]\(command:workbench\.trust\.manage\)/);
    const keyHover = hover(p, f.text.indexOf('project_name') + 2, { ...svc.context(file), facts: svc.factsFor(file, p) });
    assert.match(keyHover?.markdown ?? '', /Installed packages are checked once you trust this folder/);
    await svc.agentjets.ready(f.ws);
    assert.equal(f.ran(), '', 'nothing ran before the grant');

    trust.grant();
    // The shell sets the folder's interpreter again on grant (the language server clears its folders).
    svc.setInterpreter(f.ws, f.venv, false);
    let last: unknown;
    await waitFor(
      () => {
        const d = svc.diagnose(uri, 2, f.text, file).diagnostics.filter((x) => x.code.startsWith('class-ref/'));
        last = d;
        return answers > 0 && d.length === 0;
      },
      () => `the probe answered and the reference resolved (${JSON.stringify(last)})`,
      30_000,
      50,
    );
    assert.match(f.ran(), /venv/);
    assert.equal(svc.context(file).waitingForTrust, undefined);
  } finally {
    // The folder's installed AgentJet is being looked for too: that probe ends before the folder goes.
    await svc.agentjets.ready(f.ws);
    rmSync(f.dir, { recursive: true, force: true });
  }
});

test('facts service: the installed AgentJet is not asked for in Restricted Mode; it is once trust is granted', async () => {
  const f = strangerFolder(true);
  const trust = new WorkspaceTrust(false);
  const facts = new AgentJetFactsService({ cacheDir: '', trust, fallbackPython: f.fallback });
  try {
    facts.setFolder(f.ws, undefined);
    await facts.ready(f.ws);
    facts.setFolder(f.ws, undefined);
    await facts.ready(f.ws);
    assert.equal(f.ran(), '');
    // Judged by the bundled facts, and not "still reading" forever: nothing is being read.
    assert.equal(facts.factsFor(f.ws, parseConfig(f.text)).provisional, undefined);
    trust.grant();
    facts.setFolder(f.ws, undefined);
    await facts.ready(f.ws);
    assert.match(f.ran(), /fallback/);
  } finally {
    rmSync(f.dir, { recursive: true, force: true });
  }
});

test('no trust answer means not trusted: the facts and config services run nothing, not even an interpreter handed in', async () => {
  const f = strangerFolder(true);
  try {
    const facts = new AgentJetFactsService({ cacheDir: '' });
    facts.setFolder(f.ws, f.venv);
    await facts.ready(f.ws);
    const svc = new ConfigService({ roots: [f.ws], agentjet: { cacheDir: '' } });
    svc.setInterpreter(f.ws, f.venv, true);
    await svc.agentjets.ready(f.ws);
    const file = join(f.ws, 'c.yaml');
    const refs = svc.diagnose(URI.file(file).toString(), 1, f.text, file).diagnostics.filter((x) => x.code.startsWith('class-ref/'));
    assert.ok(refs.length > 0 && refs.every((x) => x.code === 'class-ref/waits-for-trust'), JSON.stringify(refs));
    // Without a fallback named, none is tried either (core never picks `python3` itself).
    const bare = new AgentJetFactsService({ cacheDir: '', trust: new WorkspaceTrust(true) });
    bare.setFolder(f.ws, undefined);
    await bare.ready(f.ws);
    assert.equal(f.ran(), '');
    // The same folder with trust given does run the interpreter (the check above can fail).
    const trusted = new AgentJetFactsService({ cacheDir: '', trust: new WorkspaceTrust(true) });
    trusted.setFolder(f.ws, f.venv);
    await trusted.ready(f.ws);
    assert.match(f.ran(), /venv/);
  } finally {
    rmSync(f.dir, { recursive: true, force: true });
  }
});

test('a .venv nobody chose, without ajet: built-in references are unchecked information; an interpreter the user set gets the error', async () => {
  const f = strangerFolder(false);
  try {
    const file = join(f.ws, 'c.yaml');
    const uri = URI.file(file).toString();
    for (const configured of [false, true]) {
      let answered = false;
      const svc = new ConfigService({
        roots: [f.ws],
        trust: new WorkspaceTrust(true),
        onInterpreterAnswer: () => (answered = true),
        agentjet: { cacheDir: '', fallbackPython: '' },
      });
      svc.setInterpreter(f.ws, f.venv, configured);
      // The facts service answers too: wait for the reference's own verdict.
      const d = await waitFor(
        () => {
          const out = answered ? svc.diagnose(uri, 1, f.text, file).diagnostics.filter((x) => x.code.startsWith('class-ref/')) : [];
          return out.length ? out : undefined;
        },
        'the probe answered',
        30_000,
        50,
      );
      assert.equal(d.length, 1, JSON.stringify(d));
      if (configured) {
        assert.equal(d[0]!.severity, 'error');
        assert.match(d[0]!.message, /The configured Python has no `ajet` package installed/);
      } else {
        assert.equal(d[0]!.code, 'class-ref/unchecked');
        assert.equal(d[0]!.severity, 'information');
        assert.ok(d[0]!.message.includes(`${f.venv} has no \`ajet\` package`), d[0]!.message);
      }
      await svc.agentjets.ready(f.ws);
    }
  } finally {
    rmSync(f.dir, { recursive: true, force: true });
  }
});

test('Check Environment in Restricted Mode: the report names what it would run, with which interpreter, and offers Trust; no error', () => {
  const checks = restrictedChecks({ python: '/p/.venv/bin/python', pythonSource: 'venv', cwd: '/p' });
  assert.ok(!checks.some((c) => c.status === 'error'));
  const trust = checks.find((c) => c.id === 'trust');
  assert.deepEqual(trust?.fix?.value, 'workbench.trust.manage');
  const md = toMarkdown(checks, '/p/.venv/bin/python');
  assert.match(md, /\/p\/\.venv\/bin\/python -c/);
  assert.match(md, /nvidia-smi/);
  assert.match(md, /\(command:workbench\.trust\.manage\)/);
});
