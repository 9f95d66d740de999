// The connection over stdio writes each message in one write (header and body in one buffer): the
// library's stream writer makes two, each a system call that wakes the client. IPC and the other
// transports are the library's own.
import { inspect } from 'node:util';
import {
  AbstractMessageWriter,
  createConnection,
  Message,
  ProposedFeatures,
  StreamMessageReader,
  type Connection,
  type DataCallback,
  type Disposable,
  type MessageWriter,
} from 'vscode-languageserver/node';

/** Notes the shutdown request: stdin closing after it is an orderly end (exit 0), before it not (1). */
class WatchedReader extends StreamMessageReader {
  shutdown = false;

  override listen(callback: DataCallback): Disposable {
    return super.listen((m) => {
      if (Message.isRequest(m) && m.method === 'shutdown') this.shutdown = true;
      callback(m);
    });
  }
}

export class OneWriteMessageWriter extends AbstractMessageWriter implements MessageWriter {
  private errors = 0;

  constructor(private readonly out: NodeJS.WritableStream) {
    super();
    out.on('error', (e: Error) => this.fireError(e));
    out.on('close', () => this.fireClose());
  }

  write(msg: Message): Promise<void> {
    const body = JSON.stringify(msg);
    // One string: written as UTF-8 natively, no buffer of our own for the collector to track.
    const data = `Content-Length: ${Buffer.byteLength(body, 'utf8')}\r\n\r\n${body}`;
    return new Promise((resolve, reject) =>
      this.out.write(data, 'utf8', (err) => {
        if (!err) return resolve();
        this.fireError(err, msg, ++this.errors);
        reject(err);
      }),
    );
  }

  end(): void {
    /* stdout stays open until the process exits */
  }
}

/** The server's connection: over stdio with the one-write writer, else as the command line says. */
export function serverConnection(): Connection {
  if (!process.argv.includes('--stdio')) return createConnection(ProposedFeatures.all);
  const reader = new WatchedReader(process.stdin);
  const connection = createConnection(ProposedFeatures.all, reader, new OneWriteMessageWriter(process.stdout));
  // As the library does for a stdin it reads itself: the client went away, so does the server.
  for (const e of ['end', 'close']) process.stdin.on(e, () => process.exit(reader.shutdown ? 0 : 1));
  // stdout carries the protocol: console output goes to the client's log instead (as the library does for --stdio).
  const text = (args: unknown[]) => args.map((a) => (typeof a === 'string' ? a : inspect(a))).join(' ');
  console.log = console.info = console.debug = (...a: unknown[]) => connection.console.log(text(a));
  console.warn = (...a: unknown[]) => connection.console.warn(text(a));
  console.error = console.trace = (...a: unknown[]) => connection.console.error(text(a));
  console.dir = (o: unknown) => connection.console.log(inspect(o));
  console.table = (o: unknown) => connection.console.log(inspect(o));
  return connection;
}
