// A `.logger_lock` is read exactly as beast-logger reads it: every sample text is handed to the
// real beast_logger.register.install_lock_file (beast-logger-6ba1ca5; os.kill replaced by a
// recorder), and the process it would check must be the one parseLockContent reads. The Python runs
// in UTF-8 mode: beast-logger opens the lock in the locale's encoding, UTF-8 on the systems AgentJet runs on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTestPython } from '../harness/python';
import { upstream, withUpstream } from '../util/upstream';
import { maxPid, parseLockContent } from '../../core/agentjet/liveness';

const SAMPLES = [
  '4062',
  '4062\n',
  ' 4062 ',
  '\t4062\r\n',
  '+4062',
  '2_4062',
  '４０６２',
  '٤٠٦٢',
  '0004062',
  '4062\u3000',
  '\x1c4062\x85',
  '',
  '\n',
  '-4062',
  '4062.0',
  '4062_',
  '_4062',
  '40__62',
  '\ufeff4062',
  '40 62',
  '1e3',
  '0x10',
  '1',
  '0',
  '99999999999999999999',
  '4062\x00',
];

test(
  "the pid beast-logger's install_lock_file would check is the one the extension reads",
  withUpstream('beast-logger-6ba1ca5', () => {
    const dir = mkdtempSync(join(tmpdir(), 'aj-lock-bl-'));
    try {
      const bytes = [...SAMPLES.map((s) => Buffer.from(s, 'utf8')), Buffer.from([0xff, 0x34, 0x32])];
      const { python } = ensureTestPython();
      const r = spawnSync(python, [join(__dirname, 'python', 'read_locks.py'), upstream('beast-logger-6ba1ca5'), dir], {
        input: JSON.stringify(bytes.map((b) => b.toString('hex'))),
        encoding: 'utf8',
        env: { ...process.env, LOGURU_COLORIZE: 'NO', PYTHONUTF8: '1' },
      });
      assert.equal(r.status, 0, r.stderr);
      const line = r.stdout.split('\n').find((l) => l.startsWith('READ '));
      assert.ok(line, r.stdout);
      const read = JSON.parse(line.slice(5)) as (number | null)[];
      let named = 0;
      bytes.forEach((b, i) => {
        const mine = parseLockContent(b, 'linux');
        const theirs = read[i];
        const shown = JSON.stringify(b.toString('utf8'));
        if (theirs !== null && theirs !== undefined && theirs >= 2 && theirs <= maxPid('linux')) {
          named++;
          assert.deepEqual(mine, { pid: theirs }, `${shown}: beast-logger checks ${theirs}`);
        } else assert.ok('invalid' in mine, `${shown}: beast-logger reads ${String(theirs)}, the extension ${JSON.stringify(mine)}`);
      });
      assert.ok(named >= 10, `${named} samples named a process`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }),
);
