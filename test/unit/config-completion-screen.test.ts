// Completion never inserts a value the checker rejects: the general rule, shown on the case a user
// met (completing `layered_summon` in a LoRA config inserted `false`, which the LoRA rule rejects).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { parseConfig } from '../../core/config/parse';
import { validateParsed } from '../../core/config/validate';
import { complete } from '../../core/config/completion';
import { ClassResolver } from '../../core/config/classref';
import { CachedFs } from '../../core/config/fs';
import { bundledReleases } from '../../core/config/releases';

const [v4] = bundledReleases();
const ctx = () => ({ root: tmpdir(), resolver: new ClassResolver(new CachedFs()), facts: v4 });

/** The text after accepting a snippet as it comes (every placeholder keeps its first value). */
function accept(text: string, from: number, to: number, snippet: string): string {
  const plain = snippet
    .replace(/\$\{\d+\|([^,|]*)[^}]*\}/g, '$1')
    .replace(/\$\{\d+:([^}]*)\}/g, '$1')
    .replace(/\$\{?\d+\}?/g, '');
  return text.slice(0, from) + plain + text.slice(to);
}

const loraErrors = (text: string) =>
  validateParsed(parseConfig(text), { facts: v4 }).filter((d) => d.code === 'cross-field/lora' && d.message.includes('layered_summon'));

test('completing the key layered_summon in a LoRA config writes true (what the checker asks), not the default false', () => {
  assert.ok(v4);
  const text = 'ajet:\n  lora:\n    lora_rank: 8\n    load_format: safetensors\n    layer\n';
  const at = text.indexOf('layer') + 'layer'.length;
  const item = complete(parseConfig(text), at, ctx()).find((e) => e.label === 'layered_summon');
  assert.ok(item, 'offered');
  assert.match(item.insertText, /^layered_summon: \$\{1:true\}$/);
  const after = accept(text, item.from, item.to, item.insertText);
  assert.match(after, /layered_summon: true/);
  assert.deepEqual(loraErrors(after), []);
  // Without LoRA the default stands.
  const off = 'ajet:\n  lora:\n    lora_rank: 0\n    layer\n';
  const plain = complete(parseConfig(off), off.indexOf('layer') + 5, ctx()).find((e) => e.label === 'layered_summon');
  assert.match(plain?.insertText ?? '', /^layered_summon: \$\{1:false\}$/);
});

test('value completion leaves out a value the checker rejects there', () => {
  const text = 'ajet:\n  lora:\n    lora_rank: 8\n    load_format: safetensors\n    layered_summon: \n';
  const at = text.indexOf('layered_summon: ') + 'layered_summon: '.length;
  const values = complete(parseConfig(text), at, ctx()).map((e) => e.insertText);
  assert.deepEqual(values, ['true']);
  // Every value is offered where nothing rejects one.
  const off = 'ajet:\n  lora:\n    lora_rank: 0\n    layered_summon: \n';
  const all = complete(parseConfig(off), off.indexOf('layered_summon: ') + 16, ctx()).map((e) => e.insertText);
  assert.deepEqual([...all].sort(), ['false', 'true']);
});

test('completing load_format under LoRA puts safetensors first', () => {
  const text = 'ajet:\n  lora:\n    lora_rank: 8\n    layered_summon: true\n    load\n';
  const item = complete(parseConfig(text), text.indexOf('load\n') + 4, ctx()).find((e) => e.label === 'load_format');
  assert.ok(item);
  const after = accept(text, item.from, item.to, item.insertText);
  assert.deepEqual(
    validateParsed(parseConfig(after), { facts: v4 }).filter((d) => d.code === 'cross-field/lora'),
    [],
    after,
  );
});
