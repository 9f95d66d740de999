// Item 6 of issue 23: AgentJet's harmless notes (prompt token mismatch, written to
// exception.json.log and carried on after) are classified once: the Runs tree's counts and the
// dashboard's lists agree, and the dashboard does not list them as exceptions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeWorkspace } from '../gen/workspace';
import { tempDir } from '../util/runtree';
import { inspectExperiment, listExperiments } from '../../core/runs/discover';
import { nodeFs } from '../../core/fs/seam';
import { RunCollector } from '../../core/runs/collector';

test('the tree counts and the dashboard lists the same harmless notes, apart from exceptions', async () => {
  const tmp = tempDir();
  try {
    writeWorkspace(tmp.path, { experiments: 3, steps: 2, tokens: 20 });
    const fs = nodeFs();
    const root = join(tmp.path, 'saved_experiments');
    const { experiments: entries } = await listExperiments(fs, root);
    let sawNote = false;
    for (const entry of entries) {
      const info = await inspectExperiment(fs, entry, { localHost: 'gpu-node-0' });
      const c = new RunCollector(entry.path);
      await c.poll(fs);
      const series = c.series();
      const fromLog = series.exceptions.filter((e) => e.source === 'exception');
      const notes = fromLog.filter((e) => e.harmless).length;
      const errors = fromLog.filter((e) => !e.harmless).length;
      assert.equal(notes, info.noteCount, `${entry.name}: dashboard notes ${notes}, tree ${info.noteCount}`);
      assert.equal(errors, info.exceptionCount, `${entry.name}: dashboard exceptions ${errors}, tree ${info.exceptionCount}`);
      if (notes) sawNote = true;
    }
    assert.ok(sawNote, 'the generated workspace has a run with a harmless note');
  } finally {
    tmp.dispose();
  }
});

test('the dashboard counts line names notes with the tree words, not as exceptions', async () => {
  const { countsText } = await import('../../media/dashboard/text');
  assert.equal(countsText(3, 1, 0, 2), '3 steps · 1 evaluation · 0 exceptions · 2 harmless notes');
  assert.equal(countsText(3, 1, 1), '3 steps · 1 evaluation · 1 exception');
});
