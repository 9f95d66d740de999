// Which messages of a launcher child session are the user's Stop (core/launch/childStop.ts).
// The client messages are VS Code 1.100's own: Shift+F5 on an attach session (the toolbar's
// Disconnect) sends `disconnect { restart: false, terminateDebuggee: false, suspendDebuggee: false }`,
// its Stop `terminateDebuggee: true`; after debugpy's `terminated` VS Code disconnects by itself.
import { test, describe } from 'node:test';
import * as assert from 'node:assert/strict';
import { ChildStopWatcher } from '../../core/launch/childStop';

const req = (command: string, args?: object) => ({ type: 'request', seq: 1, command, arguments: args });
const ev = (event: string) => ({ type: 'event', seq: 1, event });

test('Stop on the child (disconnect ending the debuggee) is forwarded once', () => {
  const w = new ChildStopWatcher();
  assert.equal(w.toAdapter(req('threads')), false);
  w.fromAdapter(ev('stopped'));
  assert.equal(w.toAdapter(req('disconnect', { restart: false, terminateDebuggee: true })), true);
  assert.equal(w.toAdapter(req('disconnect', { restart: false, terminateDebuggee: true })), false, 'only once');
});

test('terminate is a Stop, a restart is not', () => {
  assert.equal(new ChildStopWatcher().toAdapter(req('terminate')), true);
  assert.equal(new ChildStopWatcher().toAdapter(req('terminate', { restart: true })), false);
  assert.equal(new ChildStopWatcher().toAdapter(req('disconnect', { restart: true, terminateDebuggee: true })), false);
});

test("Shift+F5 on the child (the attach session's Disconnect) is the Stop too", () => {
  assert.equal(
    new ChildStopWatcher().toAdapter(req('disconnect', { restart: false, terminateDebuggee: false, suspendDebuggee: false })),
    true,
  );
  assert.equal(new ChildStopWatcher().toAdapter(req('disconnect')), true);
});

test('the disconnect VS Code sends after the child ended by itself is no Stop', () => {
  for (const end of ['terminated', 'exited']) {
    const w = new ChildStopWatcher();
    w.fromAdapter(ev(end));
    assert.equal(w.childEnded, true);
    assert.equal(w.toAdapter(req('disconnect', { restart: false, terminateDebuggee: true })), false, end);
  }
});

describe('ChildPauseWatcher: a child session paused in the debugger (issue 43 item 2)', () => {
  test('stopped pauses; a resuming request, continued or the end lets go; each change is told once', async () => {
    const { ChildPauseWatcher } = await import('../../core/launch/childStop');
    const w = new ChildPauseWatcher();
    const ev = (event: string) => ({ seq: 1, type: 'event', event });
    const req = (command: string) => ({ seq: 1, type: 'request', command });
    assert.equal(w.fromAdapter(ev('output')), false);
    assert.equal(w.fromAdapter(ev('stopped')), true);
    assert.equal(w.paused, true);
    assert.equal(w.fromAdapter(ev('stopped')), false, 'a second thread stopping changes nothing');
    assert.equal(w.toAdapter(req('stackTrace')), false);
    assert.equal(w.toAdapter(req('next')), true);
    assert.equal(w.paused, false);
    assert.equal(w.fromAdapter(ev('stopped')), true);
    assert.equal(w.fromAdapter(ev('continued')), true);
    assert.equal(w.fromAdapter(ev('stopped')), true);
    assert.equal(w.fromAdapter(ev('terminated')), true);
    assert.equal(w.paused, false);
  });
});
