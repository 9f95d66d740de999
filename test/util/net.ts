// A free TCP port on 127.0.0.1 (for a vLLM stand-in, a listener), for every test layer.
import { createServer } from 'node:net';

// Below every OS's ephemeral range (Linux 32768-60999, macOS and Windows 49152-65535). A port
// from listen(0) is an ephemeral one: the OS may hand it out again at once, to the test's own next
// connection or listener, and the launch then finds "its" free port held by the test itself.
const LOW = 20000;
const SPAN = 12000;
/** Ports this process has handed out, never handed out twice. */
const handed = new Set<number>();

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  for (let i = 0; i < 500; i++) {
    const port = LOW + Math.floor(Math.random() * SPAN);
    if (handed.has(port)) continue;
    if (await canBind(port)) {
      handed.add(port);
      return port;
    }
  }
  throw new Error(`no free port in ${LOW}-${LOW + SPAN - 1} after 500 tries`);
}
