// Completion's trial validations are reused while the user types on one line, and asked again as
// soon as anything they depend on answers differently (other facts, a class file that appeared).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../core/config/parse';
import { complete } from '../../core/config/completion';
import { ClassResolver } from '../../core/config/classref';
import { CachedFs } from '../../core/config/fs';
import { bundledReleases } from '../../core/config/releases';
import { trialWork } from '../../core/config/completionTrials';

const [v4] = bundledReleases();

const base = 'ajet:\n  rollout:\n    user_workflow: flows.mine->MyFlow\n  lora:\n    lora_rank: 8\n    load_format: safetensors\n    ';

function labels(text: string, ctx: Parameters<typeof complete>[2]): string[] {
  return complete(parseConfig(text), text.length, ctx).map((e) => `${e.label}=${e.insertText}`);
}

test('typing a key on one line validates the trial once, then reuses it with the same answers', () => {
  const root = mkdtempSync(join(tmpdir(), 'aj-reuse-'));
  try {
    const ctx = { root, resolver: new ClassResolver(new CachedFs(0)), facts: v4 };
    const before = { ...trialWork };
    const first = labels(base + 'l', ctx);
    const afterFirst = trialWork.validations - before.validations;
    assert.ok(afterFirst >= 1, 'the first request validates');
    const typed = [base + 'la', base + 'lay', base + 'laye'].map((t) => labels(t, ctx));
    assert.equal(trialWork.validations - before.validations, afterFirst, 'no new validation while typing');
    assert.ok(trialWork.reused - before.reused >= 3);
    // The answers are those of a fresh context (nothing kept).
    const fresh = { root, resolver: new ClassResolver(new CachedFs(0)), facts: v4 };
    assert.deepEqual(typed[2], labels(base + 'laye', fresh));
    assert.ok(
      first.some((l) => l.startsWith('layered_summon=layered_summon: ${1:true}')),
      first.join(' '),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('other facts, or a class file that appears, make the trial run again', () => {
  const root = mkdtempSync(join(tmpdir(), 'aj-reuse-'));
  try {
    const resolver = new ClassResolver(new CachedFs(0));
    const ctx = { root, resolver, facts: v4 };
    labels(base + 'l', ctx);
    const n0 = trialWork.validations;
    labels(base + 'la', ctx);
    assert.equal(trialWork.validations, n0, 'reused');
    // The module the class reference names appears: the kept trial asked about it, so it runs again.
    const n1 = trialWork.validations;
    mkdirSync(join(root, 'flows'));
    writeFileSync(join(root, 'flows', 'mine.py'), 'class MyFlow:\n    pass\n');
    labels(base + 'laye', ctx);
    assert.equal(trialWork.validations, n1 + 1, 'the module now resolves: validated again');
    labels(base + 'layer', ctx);
    assert.equal(trialWork.validations, n1 + 1, 'and reused after that');
    // Judged by other facts (the user's AgentJet was read again): validated again.
    assert.ok(v4);
    labels(base + 'layere', { root, resolver, facts: { ...v4 } });
    assert.equal(trialWork.validations, n1 + 2);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
