// The stdio writer of the config server: one write per message, a Content-Length in bytes (not
// characters), and what it writes reads back with the library's own reader.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { StreamMessageReader, type Message } from 'vscode-jsonrpc/node';
import { OneWriteMessageWriter } from '../../language-server/stdio';

test('each message leaves in one write and reads back with the library reader', async () => {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  const write = out.write.bind(out);
  out.write = ((chunk: Buffer | string, encoding: BufferEncoding, cb?: (err?: Error | null) => void) => {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, encoding) : Buffer.from(chunk));
    return write(chunk, encoding, cb);
  }) as typeof out.write;
  const writer = new OneWriteMessageWriter(out);
  const sent: Message[] = [
    { jsonrpc: '2.0', id: 1, result: [{ label: '✨ 设置待训练的模型', detail: 'ascii' }] } as Message,
    { jsonrpc: '2.0', method: 'textDocument/publishDiagnostics', params: { uri: 'file:///x.yaml', diagnostics: [] } } as Message,
  ];
  const got: Message[] = [];
  const reader = new StreamMessageReader(out);
  const both = new Promise<void>((resolve) =>
    reader.listen((m) => {
      got.push(m);
      if (got.length === sent.length) resolve();
    }),
  );
  for (const m of sent) await writer.write(m);
  assert.equal(chunks.length, sent.length, 'one write per message');
  const head = /^Content-Length: (\d+)\r\n\r\n/.exec(chunks[0]!.toString('latin1'));
  assert.ok(head);
  assert.equal(Number(head[1]), chunks[0]!.length - head[0].length, 'the length counts bytes');
  await both;
  assert.deepEqual(got, sent);
  reader.dispose();
  writer.dispose();
});
