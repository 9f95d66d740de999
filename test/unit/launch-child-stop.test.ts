// Which messages of a launcher child session are the user's Stop (core/launch/childStop.ts).
// The client messages are VS Code 1.100's own: Shift+F5 on an attach session (the toolbar's
// Disconnect) sends `disconnect { restart: false, terminateDebuggee: false, suspendDebuggee: false }`,
// its Stop `terminateDebuggee: true`; after debugpy's `terminated` VS Code disconnects by itself.
import { test } from 'node:test';
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
